"""Network faults on simulated hosts (spec.HOST_FAULTS): what happened to each, and the
invariants that hold them. Pure functions over the records (see metrics.analyse).

Expected behaviour, per fault (the bounds are in spec.py; the docs repeat them):

* ``partition`` — host ``h``'s link is down for ``link_fault_s``. Its replica groups cannot reach
  the Lighthouse or any peer, so they commit nothing (no quorum of their own: the Lighthouse is
  elsewhere); the replica groups on the other hosts drop them from the next quorum and keep
  committing, pausing at most ``hold_bound_s``. Once the link is back, each partitioned replica
  group commits again within ``rejoin_bound_s``, having healed from a live peer on another host if
  the others committed any step without it. A partition that ends before any quorum left it out
  leaves nothing to heal: a collective in flight waits up to the collective timeout, TCP delivers
  once the link is back, and every replica group commits that step together (CI saw it with the
  link down 5 s against a 5 s collective timeout).
* ``host_loss`` — every replica group of host ``h`` is SIGKILLed at once and its link is down for
  ``link_fault_s``: the supervisor restarts them (new generations), they wait for the link, and
  then heal from a live peer on another host; the survivors behave as for a partition.
* ``slow`` — host ``h``'s link is rate-limited (``tbf``) for ``link_fault_s``: whatever it does to
  ``h``'s replica groups (slower steps, time-outs, dropping out of a quorum), they commit again
  within ``rejoin_bound_s`` of the limit being lifted, and the other hosts keep committing.
* ``lighthouse_partition`` — the Lighthouse's host is cut off for ``link_fault_s``: no quorum
  can form, so no committed step may carry a quorum id that was not already in use before the
  partition; every replica group commits again within ``rejoin_bound_s`` of the heal.

And over the whole run, faults or not: no split brain (every committed step was committed under
one quorum), and a continuous loss curve (no committed step index missing, no sustained jump up).
"""

from __future__ import annotations

import statistics
from typing import Any

LOSS_JUMP = 2.0  # the loss over the next steps above this multiple of the loss over the steps before
LOSS_WINDOW = 10  # ... each the median of this many committed steps' mean loss


def host_fault_timeline(injection: dict[str, Any], steps: list[dict[str, Any]], heals: list[dict[str, Any]],
                        supervisor: list[dict[str, Any]], origin: float, end: float,
                        bounds: dict[str, float]) -> dict[str, Any]:
    """One network fault: per victim replica (every replica of the host; none for the Lighthouse's
    host), when it stopped and resumed committing and where it healed from; the survivors'
    commits and longest pause while the fault lasted plus the hold bound."""
    t0, t1 = float(injection["t"]), float(injection["healed"])
    victims = [int(r) for r in injection.get("victims", [])]
    window_end = min(end, max(t1 + bounds["rejoin_s"], t0 + bounds["hold_s"]))
    rel = lambda t: None if t is None else round(float(t) - origin, 3)  # noqa: E731
    per_victim = [_victim(injection, r, steps, heals, supervisor, t0, t1, window_end) for r in victims]
    replicas = sorted({s["replica"] for s in steps})
    survivors = [r for r in replicas if r not in victims]
    quorums_before = {s["quorum_id"] for s in steps if s["committed"] and s["t"] <= t0}
    during = [s for s in steps if s["committed"] and t0 < s["t"] <= t1]
    return {
        "id": injection["id"], "kind": injection["kind"], "host": injection["host"], "t": rel(t0),
        "healed_s": round(t1 - t0, 3), "replica": injection["target"], "victims": per_victim,
        "recovered": all(v["recovered"] for v in per_victim),
        "downtime_s": max((v["downtime_s"] for v in per_victim if v["downtime_s"] is not None), default=0.0),
        "survivor_commits": {str(r): sum(1 for s in steps if s["replica"] == r and s["committed"]
                                         and t0 < s["t"] <= window_end) for r in survivors},
        "survivor_max_gap_s": {str(r): _max_gap([s["t"] for s in steps if s["replica"] == r and s["committed"]],
                                                t0, window_end) for r in survivors},
        "new_quorums_while_cut_off": sorted({s["quorum_id"] for s in during} - quorums_before),
        "resumed_after_heal_s": _resumed(steps, replicas, t1),
        "link": injection.get("link"), "window_s": round(window_end - t0, 3),
    }


def _victim(injection: dict[str, Any], r: int, steps: list[dict[str, Any]], heals: list[dict[str, Any]],
            supervisor: list[dict[str, Any]], t0: float, t1: float, window_end: float) -> dict[str, Any]:
    gen = int(injection["gens"][str(r)])
    mine = [s for s in steps if s["replica"] == r and s["committed"]]
    last = next((s for s in reversed(mine) if s["t"] <= t0), None)
    back = next((s for s in mine if s["t"] > t1), None)
    heal = next((h for h in heals if h["replica"] == r and h["t"] > t0), None)
    # what the others committed while it was away (past its last step, not the step it came back
    # to in the same quorum as they): the steps it must take from a peer
    left = last["t"] if last else t0
    shared = (back["step"], back["quorum_id"]) if back else None
    missed = {s["step"] for s in steps if s["replica"] != r and s["committed"]
              and left < s["t"] < (back["t"] if back else window_end)
              and (not last or s["step"] > last["step"]) and (s["step"], s["quorum_id"]) != shared}
    failure = next((e for e in supervisor if e.get("event") == "failure" and e.get("replica") == r
                    and e.get("gen") == gen), None)
    return {
        "replica": r, "gen": gen, "back_gen": back["gen"] if back else None,
        "rejoin_after_heal_s": round(back["t"] - t1, 3) if back else None,
        # from the link's heal to the state loaded from a peer (negative: loaded before the heal)
        "healed_after_link_s": round(float(heal["t"]) - t1, 3) if heal else None,
        "downtime_s": _max_gap([s["t"] for s in mine], t0, window_end) if back else None,
        "recovered": back is not None, "last_step": last["step"] if last else None,
        "missed_steps": len(missed),
        "detect_s": round(float(failure["detected"]) - t0, 3) if failure else None,
        "heal_source": None if heal is None else {
            "replica": heal["source_replica"], "gen": heal["source_gen"],
            "via": (heal.get("transport") or {}).get("url"),
            "checksum_match": heal["checksum"] == heal["source_checksum"]},
    }


def _resumed(steps: list[dict[str, Any]], replicas: list[int], t1: float) -> dict[str, float | None]:
    """Per replica: seconds from the heal to its first commit after it (None: never)."""
    out: dict[str, float | None] = {}
    for r in replicas:
        first = next((s for s in steps if s["replica"] == r and s["committed"] and s["t"] > t1), None)
        out[str(r)] = round(first["t"] - t1, 3) if first else None
    return out


def _max_gap(times: list[float], start: float, stop: float) -> float | None:
    from .metrics import _max_gap as gap

    return gap(sorted(times), start, stop)


# invariants over the analysed faults ---------------------------------------------------------
def split_brain(steps: list[dict[str, Any]]) -> list[str]:
    """Steps committed under more than one quorum id, or by more replicas than the quorum held."""
    by_step: dict[int, list[dict[str, Any]]] = {}
    for s in steps:
        if s["committed"]:
            by_step.setdefault(int(s["step"]), []).append(s)
    bad = []
    for k, recs in sorted(by_step.items()):
        quorums = sorted({r["quorum_id"] for r in recs})
        if len(quorums) > 1:
            bad.append(f"step {k} committed under quorums {quorums}")
        elif len({r["replica"] for r in recs}) > max(int(r["participants"]) for r in recs):
            bad.append(f"step {k} committed by {len({r['replica'] for r in recs})} replicas, "
                       f"quorum of {max(int(r['participants']) for r in recs)}")
    return bad


def loss_discontinuities(loss_curve: list[list[float]]) -> list[str]:
    """Committed step indices missing from the curve, and a sustained jump up: the median mean
    loss of the ``LOSS_WINDOW`` steps from some step on above ``LOSS_JUMP`` times the median of the
    ``LOSS_WINDOW`` before it. A replica that trained on without healing, or healed from stale
    state, stays high for many steps; one step's batch does not (each replica draws its own, and
    one draw was seen at 6.5 against 3.2 for the ten steps before, in a stretch with no fault)."""
    bad = []
    for prev, cur in zip(loss_curve, loss_curve[1:]):
        if int(cur[0]) != int(prev[0]) + 1:
            bad.append(f"steps {int(prev[0]) + 1}..{int(cur[0]) - 1} missing")
    losses = [p[1] for p in loss_curve]
    for i in range(LOSS_WINDOW, len(losses) - LOSS_WINDOW + 1):
        before = statistics.median(losses[i - LOSS_WINDOW:i])
        after = statistics.median(losses[i:i + LOSS_WINDOW])
        if after > LOSS_JUMP * before:
            bad.append(f"steps {int(loss_curve[i][0])}..{int(loss_curve[i + LOSS_WINDOW - 1][0])}: median loss "
                       f"{after:.4g} > {LOSS_JUMP:g} x {before:.4g} (the {LOSS_WINDOW} steps before)")
            break  # the first jump is the finding; the windows after it overlap it
    return bad


def victim_problems(fault: dict[str, Any], rejoin_bound: float, addresses: dict[str, str],
                    host_of: dict[str, int]) -> list[str]:
    """Why a partitioned / lost / slowed host's replica groups did not come back as promised."""
    bad = []
    for v in fault["victims"]:
        who = f"fault {fault['id']} ({fault['kind']}): replica {v['replica']}"
        if not v["recovered"]:
            bad.append(f"{who} never committed again")
            continue
        if v["rejoin_after_heal_s"] > rejoin_bound:
            bad.append(f"{who} committed {v['rejoin_after_heal_s']} s after the heal (bound {rejoin_bound:g} s)")
        if fault["kind"] == "slow" and v["heal_source"] is None:
            continue  # a slowed host that kept up need not heal
        src = v["heal_source"]
        if src is None:
            if v["back_gen"] != v["gen"]:
                bad.append(f"{who} came back as a new process (generation {v['back_gen']}) without healing")
            elif v["missed_steps"]:
                bad.append(f"{who} committed again without healing, {v['missed_steps']} step(s) behind")
            continue  # nobody committed without it: it is in step, nothing to heal
        src_host = host_of.get(str(src["replica"]))
        if src_host == fault["host"] and not _live_again(fault, int(src["replica"]), v["healed_after_link_s"],
                                                         host_of):
            bad.append(f"{who} healed from replica {src['replica']} on its own (cut-off) host, which had not "
                       "healed from another host since the link came back")
        elif not str(src["via"] or "").startswith(f"http://{addresses.get(str(src_host))}:"):
            bad.append(f"{who}: state did not come from the source's host address ({src['via']})")
        if not src["checksum_match"]:
            bad.append(f"{who}: healed weights differ from the source's")
    return bad


def _live_again(fault: dict[str, Any], replica: int, before: float | None, host_of: dict[str, int],
                seen: frozenset[int] = frozenset()) -> bool:
    """Whether ``replica``, cut off by ``fault``, had loaded live state after the link came back
    and before ``before`` (seconds after the heal): from a replica on another host, or from one of
    its own host that had itself done so earlier. Then it is a live peer too (with 4 groups on a
    host, the last to heal may take the state from a host-mate that healed one quorum earlier)."""
    me = next((v for v in fault["victims"] if v["replica"] == replica), None)
    if me is None or before is None or replica in seen or me["heal_source"] is None:
        return False
    t = me.get("healed_after_link_s")
    if t is None or not 0 <= t < before or not me["heal_source"]["checksum_match"]:
        return False
    src = int(me["heal_source"]["replica"])
    return host_of.get(str(src)) != fault["host"] or _live_again(fault, src, t, host_of, seen | {replica})


def lighthouse_problems(fault: dict[str, Any], rejoin_bound: float) -> list[str]:
    """A quorum formed without the Lighthouse, or a replica group that did not resume."""
    bad = []
    if fault["new_quorums_while_cut_off"]:
        bad.append(f"fault {fault['id']}: quorums {fault['new_quorums_while_cut_off']} formed while the "
                   "Lighthouse was cut off")
    for r, s in fault["resumed_after_heal_s"].items():
        if s is None or s > rejoin_bound:
            bad.append(f"fault {fault['id']}: replica {r} resumed {s} s after the Lighthouse came back "
                       f"(bound {rejoin_bound:g} s)")
    return bad
