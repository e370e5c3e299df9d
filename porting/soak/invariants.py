"""The certification: invariants checked over an analysed soak (see metrics.analyse)."""

from __future__ import annotations

import ipaddress
import statistics
from dataclasses import asdict, dataclass
from typing import Any

from .netfaults import lighthouse_problems, loss_discontinuities, split_brain, victim_problems
from .spec import (
    HOST_FAULTS,
    SoakSpec,
    detect_bound_s,
    downtime_bound_s,
    hold_bound_s,
    make_schedule,
    recovery_bound_s,
    rejoin_bound_s,
)


@dataclass
class Invariant:
    name: str
    ok: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _is_loopback(addr: str) -> bool:
    host = addr.split("/")[0]
    if host.startswith("[") and "]" in host:
        host = host[1:host.index("]")]
    elif host.count(":") == 1:
        host = host.rsplit(":", 1)[0]
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def loss_ratio(loss_curve: list[list[float]]) -> tuple[float, float] | None:
    """(mean loss over the first 10% of committed steps, over the last 10%)."""
    if len(loss_curve) < 10:
        return None
    k = max(1, len(loss_curve) // 10)
    return (statistics.fmean(p[1] for p in loss_curve[:k]), statistics.fmean(p[1] for p in loss_curve[-k:]))


def check(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> list[Invariant]:
    """Every invariant of the soak, in report order."""
    return [rule(spec, result, run) for rule in RULES]


def _faults_injected(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    schedule = make_schedule(spec)
    injected = [i for i in run.get("injections", []) if "target" in i]
    skipped = [i for i in run.get("injections", []) if "skipped" in i]
    return Invariant("faults_injected", len(injected) == len(schedule) and not skipped and bool(schedule),
                     f"{len(injected)} of {len(schedule)} scheduled faults injected"
                     + (f"; skipped: {', '.join(str(s['id']) + ' (' + s['skipped'] + ')' for s in skipped)}"
                        if skipped else ""))


def _replica_faults(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in result["faults"] if f["kind"] not in HOST_FAULTS]


def _survivors_commit(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    # with the Lighthouse cut off nobody can commit past a quorum; its own rule holds that case
    faults = [f for f in result["faults"] if f["kind"] != "lighthouse_partition"]
    if not faults and result["faults"]:
        return Invariant("survivors_commit_during_faults", True,
                         "only Lighthouse partitions scheduled (see no_quorum_without_lighthouse)")
    hold = hold_bound_s(spec)
    starved = [f"fault {f['id']}: replica {r} committed nothing in {f['window_s']} s" for f in faults
               for r, n in f["survivor_commits"].items() if n == 0]
    held = [f"fault {f['id']}: replica {r} paused {g} s" for f in faults
            for r, g in f.get("survivor_max_gap_s", {}).items() if g is not None and g > hold]
    longest = max((g for f in faults for g in f.get("survivor_max_gap_s", {}).values() if g is not None), default=0)
    return Invariant("survivors_commit_during_faults", bool(faults) and not starved and not held,
                     "; ".join(starved + held) or
                     f"every survivor kept committing through each of {len(faults)} faults (longest pause "
                     f"{longest:.3g} s, bound {hold:g} s = collective timeout + heartbeat timeout + join timeout)")


def _heal_problem(f: dict[str, Any], run: dict[str, Any]) -> str | None:
    src = f["heal_source"]
    if not f["recovered"] or src is None:
        return f"fault {f['id']}: replica {f['replica']} never healed"
    if src["replica"] == f["replica"]:
        return f"fault {f['id']}: healed from itself"
    if not str(src.get("via") or "").startswith(f"http://{_address_of(run, src['replica'])}:"):
        return f"fault {f['id']}: state did not come through the peer checkpoint transport of its host"
    return None


def _address_of(run: dict[str, Any], replica: int) -> str:
    """The address replica ``replica`` serves on: its simulated host's, or loopback."""
    if run.get("cluster"):
        return str((run["cluster"].get("replica_address") or {}).get(str(replica)))
    layout = (run.get("hosts") or {}).get("layout")
    if not layout:
        return "127.0.0.1"
    host = layout["replica_host"].get(str(replica))
    return next((a for h, a in layout["addresses"].items() if h == f"host{host}"), "?")


def _heal_from_peer(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    faults = _replica_faults(result)
    if not faults and result["faults"]:
        return Invariant("restarts_heal_from_peer", True, "no replica-level fault scheduled (see "
                         "cut_off_hosts_rejoin_from_live_peer)")
    bad_heal = [p for p in (_heal_problem(f, run) for f in faults) if p is not None]
    return Invariant("restarts_heal_from_peer", bool(faults) and not bad_heal,
                     "; ".join(bad_heal) or ", ".join(f"fault {f['id']}: r{f['replica']} <- "
                                                      f"r{f['heal_source']['replica']} at step "
                                                      f"{f['heal_source']['step']}" for f in faults))


def _weights_agree(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    sums = result["checksums"]
    sources = [(f["id"], f.get("heal_source")) for f in result["faults"]]
    sources += [(f["id"], v["heal_source"]) for f in result["faults"] for v in f.get("victims", [])]
    heal_mismatch = sorted({i for i, src in sources if src and not src["checksum_match"]})
    return Invariant("weights_agree_after_healing",
                     not heal_mismatch and sums["mismatches"] == 0 and sums["steps_compared"] > 0,
                     f"{sums['steps_compared']} steps compared across replicas, {sums['mismatches']} with differing "
                     f"weight checksums; heals with a checksum different from the source's: {heal_mismatch or 'none'}")


def _loss_halves(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    ratio = loss_ratio(result["loss_curve"])
    return Invariant("loss_halves", ratio is not None and ratio[1] < 0.5 * ratio[0],
                     "fewer than 10 committed steps" if ratio is None else
                     f"mean loss first 10% {ratio[0]:.4g}, last 10% {ratio[1]:.4g} (must be < {0.5 * ratio[0]:.4g})")


def _downtime(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    faults = result["faults"]
    bound = downtime_bound_s(spec)
    worst = max((f["downtime_s"] for f in faults), default=0.0)
    return Invariant("downtime_within_bound",
                     bool(faults) and worst <= bound and all(f["recovered"] for f in faults),
                     f"max downtime {worst:.3g} s, bound {bound:g} s (the fault interval; the time-outs account "
                     f"for {recovery_bound_s(spec):.3g} s of it, the rest is the restart's margin)")


def _detected(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    # a process failure must be seen by supervision: the replica faults, and every replica of a
    # lost host (a partition or a slow link fails no process: nothing for supervision to see)
    faults = _replica_faults(result) + [{**v, "id": f["id"], "detected_via": "host_loss"} for f in result["faults"]
                                        if f["kind"] == "host_loss" for v in f["victims"]]
    if not faults and result["faults"]:
        return Invariant("faults_detected", True, "no fault that fails a process was scheduled")
    dbound = detect_bound_s(spec)
    slow = [f"fault {f['id']}: {f['detect_s']}" for f in faults if f["detect_s"] is None or f["detect_s"] > dbound]
    if not faults:  # nothing was injected and analysed: nothing was seen to be detected
        return Invariant("faults_detected", False, "no fault was analysed")
    return Invariant("faults_detected", not slow,
                     "; ".join(slow) or "supervision saw every fault within "
                     f"{max(f['detect_s'] for f in faults):.3g} s (bound {dbound:g} s); detected by "
                     + ", ".join(f"{v}: {sum(1 for f in faults if f['detected_via'] == v)}"
                                 for v in sorted({str(f['detected_via']) for f in faults})))


def _loopback_only(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    if run.get("hosts"):
        return _hosts_isolated(run)
    if run.get("cluster"):
        return _on_allocation(run)
    net = run.get("network", {})
    links, addrs = net.get("links", []), net.get("addresses", [])
    exposed = sorted({a for snap in run.get("listener_snapshots", []) for a in snap["listeners"]
                      if not _is_loopback(a)})
    isolated = links == ["lo"] and addrs and all(_is_loopback(a) for a in addrs)
    return Invariant("loopback_only", bool(run.get("listener_snapshots")) and bool(isolated or not exposed),
                     (f"network namespace {net.get('netns')} has only lo ({', '.join(addrs)}); "
                      if isolated else f"interfaces {links}; non-loopback listeners {exposed}; ")
                     + f"{len(run.get('listener_snapshots', []))} listener snapshots, "
                     f"wildcard listeners: {len(exposed)}")


def _in_subnet(addr: str) -> bool:
    from .hosts import PREFIX, SUBNET

    host = addr.split("/")[0]
    try:
        return ipaddress.ip_address(host) in ipaddress.ip_network(f"{SUBNET}.0/{PREFIX}")
    except ValueError:
        return False


def _link_local(addr: str) -> bool:
    """IPv6 link-local (fe80::/10): the kernel gives one to every veth; it reaches only the same
    link, here the soak's bridge."""
    try:
        return ipaddress.ip_address(addr.split("/")[0].split("%")[0]).is_link_local
    except ValueError:
        return False


def _host_listener_ok(addr: str, own: str) -> bool:
    """A listener on a simulated host binds its address, loopback, or a wildcard (which, in a
    namespace holding only ``lo`` and the host's ``eth0``, is the same two)."""
    host = addr.rsplit(":", 1)[0].strip("[]").split("%")[0]
    return host in (own, "*", "0.0.0.0", "::", f"::ffff:{own}") or _is_loopback(addr)


def _hosts_isolated(run: dict[str, Any]) -> Invariant:
    """With simulated hosts: the soak's namespace holds only lo, the bridge and the hosts' veths;
    each host only lo and its eth0 with its own address; every listener binds inside its host."""
    net, hosts = run.get("network", {}), run["hosts"]["hosts"]
    bad = [f"soak namespace link {ln}" for ln in net.get("links", [])
           if ln != "lo" and ln != run["hosts"]["bridge"] and not ln.startswith("vh")]
    bad += [f"soak namespace address {a}" for a in net.get("addresses", [])
            if not (_is_loopback(a) or _in_subnet(a) or _link_local(a))]
    for name, host in hosts.items():
        bad += [f"{name}: link {ln}" for ln in host["links"] if ln not in ("lo", "eth0")]
        bad += [f"{name}: address {a}" for a in host["addresses"]
                if not (_is_loopback(a) or _link_local(a) or a.split("/")[0] == host["address"])]
    snaps = run.get("listener_snapshots", [])
    bad += sorted({f"soak namespace listener {a}" for s in snaps for a in s["listeners"] if not _is_loopback(a)})
    bad += sorted({f"{name}: listener {a}" for s in snaps for name, addrs in s.get("hosts", {}).items()
                   for a in addrs if not _host_listener_ok(a, hosts[name]["address"])})
    count = sum(len(a) for s in snaps for a in s.get("hosts", {}).values())
    return Invariant("hosts_isolated", bool(snaps) and not bad, "; ".join(bad[:10]) or
                     f"{len(hosts)} hosts, each only lo + eth0 with its own address (and IPv6 link-local); "
                     f"{count} listeners over "
                     f"{len(snaps)} snapshots, all on their host")


def _on_allocation(run: dict[str, Any]) -> Invariant:
    """On a cluster: every replica group ran on a node of the allocation, at that node's address,
    and the Lighthouse URL names the Lighthouse node's address."""
    cluster = run["cluster"]
    bad = [f"replica {r}: never reported where it ran" for r, w in cluster["replicas"].items() if not w]
    if not str(run.get("lighthouse", "")).startswith((f"http://{cluster['lighthouse_address']}:",
                                                      str(cluster.get("lighthouse_service") or "\0"))):
        bad.append(f"the Lighthouse URL {run.get('lighthouse')} is not on {cluster['lighthouse_address']}")
    return Invariant("on_allocation_addresses", not bad, "; ".join(bad) or
                     f"{cluster['scheduler']} job {cluster['job']}: Lighthouse on {cluster['lighthouse_node']} "
                     f"({cluster['lighthouse_address']}), replica groups on " + ", ".join(
                         f"r{r}@{w['node']}/{w['address']}" for r, w in cluster["replicas"].items()))


def _no_split_brain(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    steps = result.get("steps", [])
    bad = split_brain(steps)
    return Invariant("no_split_brain", bool(steps) and not bad, "; ".join(bad[:10]) or
                     f"each of {result.get('steps_committed', 0)} committed steps was committed under one "
                     "quorum, by at most its participants")


def _loss_continuous(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    bad = loss_discontinuities(result["loss_curve"])
    return Invariant("loss_curve_continuous", len(result["loss_curve"]) >= 2 and not bad, "; ".join(bad[:10]) or
                     f"{len(result['loss_curve'])} committed steps, none missing, no jump up")


def _cut_off_hosts(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    faults = [f for f in result["faults"] if f["kind"] in ("partition", "host_loss", "slow")]
    name = "cut_off_hosts_rejoin_from_live_peer"
    if not faults:
        return Invariant(name, True, "no partition, host loss or slow link scheduled")
    layout = run.get("hosts", {}).get("layout", {})
    addresses = {h.removeprefix("host"): a for h, a in layout.get("addresses", {}).items()}
    bound = rejoin_bound_s(spec)
    bad = [p for f in faults for p in victim_problems(f, bound, addresses, layout.get("replica_host", {}))]
    return Invariant(name, not bad, "; ".join(bad[:10]) or ", ".join(
        f"fault {f['id']} ({f['kind']} of host{f['host']}): " + ", ".join(
            f"r{v['replica']} back {v['rejoin_after_heal_s']} s after the heal"
            + (f" <- r{v['heal_source']['replica']}" if v["heal_source"] else " in step (nothing to heal)")
            for v in f["victims"])
        for f in faults) + f" (bound {bound:g} s)")


def _lighthouse_cut_off(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    faults = [f for f in result["faults"] if f["kind"] == "lighthouse_partition"]
    name = "no_quorum_without_lighthouse"
    if not faults:
        return Invariant(name, True, "no Lighthouse partition scheduled")
    bound = rejoin_bound_s(spec)
    bad = [p for f in faults for p in lighthouse_problems(f, bound)]
    return Invariant(name, not bad, "; ".join(bad[:10]) or ", ".join(
        f"fault {f['id']}: no new quorum in {f['healed_s']} s cut off; all resumed within "
        f"{max(v for v in f['resumed_after_heal_s'].values() if v is not None):.3g} s" for f in faults)
        + f" (bound {bound:g} s)")


def _reaped(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    reaped = run.get("reaped", {})
    return Invariant("processes_reaped", bool(reaped.get("launched")) and not reaped.get("stragglers_killed"),
                     f"{len(reaped.get('launched', []))} replica processes launched, "
                     f"{len(reaped.get('stragglers_killed', []))} still alive at the end (killed)")


def _supervision_handled(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    return Invariant("supervision_handled_all", not run.get("unhandled_faults") and not run.get("errors"),
                     "; ".join([u["report"][:200] for u in run.get("unhandled_faults", [])] + run.get("errors", []))
                     or "every failure was handled by the supervisor; the driver finished cleanly")


RULES = (_faults_injected, _survivors_commit, _heal_from_peer, _weights_agree, _loss_halves, _downtime, _detected,
         _loopback_only, _reaped, _supervision_handled, _no_split_brain, _loss_continuous, _cut_off_hosts,
         _lighthouse_cut_off)
