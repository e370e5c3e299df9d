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
    faults = result["faults"]
    out: list[Invariant] = []

    def add(name: str, ok: bool, detail: str) -> None:
        out.append(Invariant(name, bool(ok), detail))

    schedule = make_schedule(spec)
    injected = [i for i in run.get("injections", []) if "target" in i]
    skipped = [i for i in run.get("injections", []) if "skipped" in i]
    add("faults_injected", len(injected) == len(schedule) and not skipped and bool(schedule),
        f"{len(injected)} of {len(schedule)} scheduled faults injected"
        + (f"; skipped: {', '.join(str(s['id']) + ' (' + s['skipped'] + ')' for s in skipped)}" if skipped else ""))

    hold = hold_bound_s(spec)
    starved = [f"fault {f['id']}: replica {r} committed nothing in {f['window_s']} s" for f in faults
               for r, n in f["survivor_commits"].items() if n == 0]
    held = [f"fault {f['id']}: replica {r} paused {g} s" for f in faults
            for r, g in f.get("survivor_max_gap_s", {}).items() if g is not None and g > hold]
    longest = max((g for f in faults for g in f.get("survivor_max_gap_s", {}).values() if g is not None), default=0)
    add("survivors_commit_during_faults", bool(faults) and not starved and not held,
        "; ".join(starved + held) or
        f"every survivor kept committing through each of {len(faults)} faults (longest pause "
        f"{longest:.3g} s,"
        f" bound {hold:g} s = collective timeout + heartbeat timeout + join timeout)")

    bad_heal = []
    for f in faults:
        src = f["heal_source"]
        if not f["recovered"] or src is None:
            bad_heal.append(f"fault {f['id']}: replica {f['replica']} never healed")
        elif src["replica"] == f["replica"]:
            bad_heal.append(f"fault {f['id']}: healed from itself")
        elif not str(src.get("via") or "").startswith("http://127.0.0.1:"):
            bad_heal.append(f"fault {f['id']}: state did not come through the peer checkpoint transport")
    add("restarts_heal_from_peer", bool(faults) and not bad_heal,
        "; ".join(bad_heal) or ", ".join(f"fault {f['id']}: r{f['replica']} <- r{f['heal_source']['replica']} "
                                         f"at step {f['heal_source']['step']}" for f in faults))

    sums = result["checksums"]
    heal_mismatch = [f["id"] for f in faults if f["heal_source"] and not f["heal_source"]["checksum_match"]]
    add("weights_agree_after_healing", not heal_mismatch and sums["mismatches"] == 0 and sums["steps_compared"] > 0,
        f"{sums['steps_compared']} steps compared across replicas, {sums['mismatches']} with differing weight "
        f"checksums; heals with a checksum different from the source's: {heal_mismatch or 'none'}")

    ratio = loss_ratio(result["loss_curve"])
    add("loss_halves", ratio is not None and ratio[1] < 0.5 * ratio[0],
        "fewer than 10 committed steps" if ratio is None else
        f"mean loss first 10% {ratio[0]:.4g}, last 10% {ratio[1]:.4g} (must be < {0.5 * ratio[0]:.4g})")

    bound = downtime_bound_s(spec)
    worst = max((f["downtime_s"] for f in faults), default=0.0)
    add("downtime_within_bound", bool(faults) and worst <= bound and all(f["recovered"] for f in faults),
        f"max downtime {worst:.3g} s, bound {bound:g} s (the fault interval)")

    dbound = detect_bound_s(spec)
    slow = [f"fault {f['id']}: {f['detect_s']}" for f in faults if f["detect_s"] is None or f["detect_s"] > dbound]
    add("faults_detected", bool(faults) and not slow,
        "; ".join(slow) or f"supervision saw every fault within {max(f['detect_s'] for f in faults):.3g} s "
        f"(bound {dbound:g} s); detected by "
        + ", ".join(f"{v}: {sum(1 for f in faults if f['detected_via'] == v)}"
                    for v in sorted({str(f['detected_via']) for f in faults})))

    net = run.get("network", {})
    links, addrs = net.get("links", []), net.get("addresses", [])
    exposed = sorted({a for snap in run.get("listener_snapshots", []) for a in snap["listeners"]
                      if not _is_loopback(a)})
    isolated = links == ["lo"] and addrs and all(_is_loopback(a) for a in addrs)
    add("loopback_only", bool(run.get("listener_snapshots")) and (isolated or not exposed),
        (f"network namespace {net.get('netns')} has only lo ({', '.join(addrs)}); "
         if isolated else f"interfaces {links}; non-loopback listeners {exposed}; ")
        + f"{len(run.get('listener_snapshots', []))} listener snapshots, wildcard listeners: {len(exposed)}")

    reaped = run.get("reaped", {})
    add("processes_reaped", bool(reaped.get("launched")) and not reaped.get("stragglers_killed"),
        f"{len(reaped.get('launched', []))} replica processes launched, "
        f"{len(reaped.get('stragglers_killed', []))} still alive at the end (killed)")

    add("supervision_handled_all", not run.get("unhandled_faults") and not run.get("errors"),
        "; ".join([u["report"][:200] for u in run.get("unhandled_faults", [])] + run.get("errors", []))
        or "every failure was handled by the supervisor; the driver finished cleanly")
    return out
