"""The certification: invariants checked over an analysed soak (see metrics.analyse)."""

from __future__ import annotations

import ipaddress
import statistics
from dataclasses import asdict, dataclass
from typing import Any

from .spec import SoakSpec, detect_bound_s, downtime_bound_s, hold_bound_s, make_schedule


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


def _survivors_commit(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    faults = result["faults"]
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


def _heal_problem(f: dict[str, Any]) -> str | None:
    src = f["heal_source"]
    if not f["recovered"] or src is None:
        return f"fault {f['id']}: replica {f['replica']} never healed"
    if src["replica"] == f["replica"]:
        return f"fault {f['id']}: healed from itself"
    if not str(src.get("via") or "").startswith("http://127.0.0.1:"):
        return f"fault {f['id']}: state did not come through the peer checkpoint transport"
    return None


def _heal_from_peer(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    faults = result["faults"]
    bad_heal = [p for p in map(_heal_problem, faults) if p is not None]
    return Invariant("restarts_heal_from_peer", bool(faults) and not bad_heal,
                     "; ".join(bad_heal) or ", ".join(f"fault {f['id']}: r{f['replica']} <- "
                                                      f"r{f['heal_source']['replica']} at step "
                                                      f"{f['heal_source']['step']}" for f in faults))


def _weights_agree(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    sums = result["checksums"]
    heal_mismatch = [f["id"] for f in result["faults"] if f["heal_source"] and not f["heal_source"]["checksum_match"]]
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
                     f"max downtime {worst:.3g} s, bound {bound:g} s (the fault interval)")


def _detected(spec: SoakSpec, result: dict[str, Any], run: dict[str, Any]) -> Invariant:
    faults = result["faults"]
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
         _loopback_only, _reaped, _supervision_handled)
