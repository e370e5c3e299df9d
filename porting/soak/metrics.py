"""From the raw logs of a soak (spec.json, run.json, supervisor.jsonl, steps/*.jsonl) to the
measured figures: per-fault timings, per-replica downtime, participants over time, loss curve.

Pure functions over records; no processes. Times in the results are seconds since the schedule
origin (every replica had trained its first step).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import InputError


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Records of a JSON-lines file; a torn last line (the writer was SIGKILLed) is skipped."""
    out: list[dict[str, Any]] = []
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return out
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def load_raw(out: Path, replicas: int) -> dict[str, Any]:
    def _json(name: str) -> dict[str, Any]:
        path = out / name
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError(f"{path}: missing (the soak driver did not finish)") from None
        except (OSError, ValueError, RecursionError) as exc:
            raise InputError(f"{path}: unreadable: {exc.__class__.__name__}: {exc}") from None
        if not isinstance(data, dict):
            raise InputError(f"{path}: expected a JSON object")
        return data

    events: list[dict[str, Any]] = []
    for r in range(replicas):
        events.extend(read_jsonl(out / "steps" / f"r{r}.jsonl"))
    return {"spec": _json("spec.json"), "run": _json("run.json"),
            "supervisor": read_jsonl(out / "supervisor.jsonl"), "events": events}


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def _first(records: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    return next(iter(records), None)


def fault_timeline(injection: dict[str, Any], steps: list[dict[str, Any]], heals: list[dict[str, Any]],
                   supervisor: list[dict[str, Any]], origin: float, end: float, hold_bound: float) -> dict[str, Any]:
    """What happened to one injected fault: detection, restart, heal, rejoin, downtime, and how the
    survivors fared from the fault until the victim rejoined (at least ``hold_bound`` seconds)."""
    target, gen, t0 = injection["target"], injection["gen"], float(injection["t"])
    mine_before = [s for s in steps if s["replica"] == target and s["gen"] == gen and s["committed"]
                   and s["t"] <= t0]
    last_commit = mine_before[-1] if mine_before else None
    down_from = float(last_commit["t"]) if last_commit else t0
    failure = _first(e for e in supervisor if e.get("event") == "failure" and e.get("replica") == target
                     and e.get("gen") == gen)
    launch = _first(e for e in supervisor if e.get("event") == "launch" and e.get("replica") == target
                    and e.get("gen") == gen + 1)
    heal = _first(h for h in heals if h["replica"] == target and h["gen"] == gen + 1)
    rejoin = _first(s for s in steps if s["replica"] == target and s["gen"] == gen + 1 and s["committed"])
    up_at = float(rejoin["t"]) if rejoin else None
    window_end = min(end, max(up_at if up_at is not None else end, t0 + hold_bound))
    survivors = sorted({s["replica"] for s in steps if s["replica"] != target})
    commits_during = {r: sum(1 for s in steps if s["replica"] == r and s["committed"] and t0 < s["t"] <= window_end)
                      for r in survivors}
    gaps = {r: _max_gap([float(s["t"]) for s in steps if s["replica"] == r and s["committed"]], t0, window_end)
            for r in survivors}
    noticed = _first(s for s in steps if s["replica"] != target and t0 < s["t"] <= window_end
                     and (not s["committed"] or s["participants"] != s.get("_prev_participants", s["participants"])
                          or s["quorum_id"] != s.get("_prev_quorum", s["quorum_id"])))
    rel = lambda t: None if t is None else round(float(t) - origin, 3)  # noqa: E731
    return {
        "id": injection["id"], "kind": injection["kind"], "replica": target, "gen": gen,
        "pid": injection.get("pid"), "t": rel(t0),
        "detect_s": round(float(failure["detected"]) - t0, 3) if failure else None,
        "detected_via": failure.get("via") if failure else None,
        "survivors_noticed_s": round(float(noticed["t"]) - t0, 3) if noticed else None,
        "restarted_s": round(float(launch["t"]) - t0, 3) if launch else None,
        "heal_s": round(float(heal["t"]) - t0, 3) if heal else None,
        "rejoin_s": round(up_at - t0, 3) if up_at is not None else None,
        "downtime_s": round((up_at if up_at is not None else end) - down_from, 3),
        "recovered": up_at is not None,
        "steps_missed": (int(rejoin["step"]) - int(last_commit["step"]) - 1) if rejoin and last_commit else None,
        "heal_source": None if heal is None else {
            "replica": heal["source_replica"], "gen": heal["source_gen"], "pid": heal["source_pid"],
            "via": (heal.get("transport") or {}).get("url"), "step": (heal.get("transport") or {}).get("step"),
            "checksum_match": heal["checksum"] == heal["source_checksum"]},
        "survivor_commits": {str(r): n for r, n in commits_during.items()},
        "survivor_max_gap_s": {str(r): g for r, g in gaps.items()},
        "window_s": round(window_end - t0, 3),
    }


def _max_gap(times: list[float], start: float, stop: float) -> float | None:
    """Longest pause between consecutive commits that overlaps [start, stop]; None if no commit
    follows ``start`` at all."""
    if not any(t > start for t in times):
        return None
    gap = 0.0
    for a, b in zip(times, times[1:]):
        if b > start and a < stop:
            gap = max(gap, b - max(a, start) if a < start else b - a)
    return round(gap, 3)


def _annotate_participants(steps: list[dict[str, Any]]) -> None:
    prev: dict[int, tuple[int, int]] = {}
    for s in steps:
        s["_prev_participants"], s["_prev_quorum"] = prev.get(s["replica"], (s["participants"], s["quorum_id"]))
        prev[s["replica"]] = (s["participants"], s["quorum_id"])


def analyse(raw: dict[str, Any]) -> dict[str, Any]:
    from .netfaults import host_fault_timeline
    from .spec import HOST_FAULTS, SoakSpec, hold_bound_s, rejoin_bound_s

    spec, run, supervisor = raw["spec"], raw["run"], raw["supervisor"]
    hold = hold_bound_s(SoakSpec.from_json(spec))
    replicas = int(spec["replicas"])
    events = sorted(raw["events"], key=lambda e: float(e.get("t", 0)))
    steps = [e for e in events if e.get("event") == "step"]
    heals = [e for e in events if e.get("event") == "heal"]
    origin = float(run.get("origin") or (steps[0]["t"] if steps else 0.0))
    end = float(run.get("end") or (steps[-1]["t"] if steps else origin))
    _annotate_participants(steps)
    injections = [i for i in run.get("injections", []) if "target" in i]
    bounds = {"hold_s": hold, "rejoin_s": rejoin_bound_s(SoakSpec.from_json(spec))}
    faults = [host_fault_timeline(i, steps, heals, supervisor, origin, end, bounds) if i["kind"] in HOST_FAULTS
              else fault_timeline(i, steps, heals, supervisor, origin, end, hold) for i in injections]

    per_replica = []
    for r in range(replicas):
        downs = [f["downtime_s"] for f in faults if f["replica"] == r and "victims" not in f]
        downs += [v["downtime_s"] for f in faults for v in f.get("victims", [])
                  if v["replica"] == r and v["downtime_s"] is not None]
        per_replica.append({
            "replica": r, "faults": len(downs),
            "generations": 1 + sum(1 for e in supervisor if e.get("event") == "launch" and e.get("replica") == r
                                   and e.get("gen", 0) > 0),
            "commits": sum(1 for s in steps if s["replica"] == r and s["committed"]),
            "downtime_max_s": max(downs) if downs else 0.0, "downtime_median_s": _median(downs) or 0.0,
        })

    by_step: dict[int, list[dict[str, Any]]] = {}
    for s in steps:
        if s["committed"]:
            by_step.setdefault(int(s["step"]), []).append(s)
    ordered = sorted(by_step)
    participants = [[round(min(float(x["t"]) for x in by_step[k]) - origin, 3), len(by_step[k])] for k in ordered]
    loss_curve = [[k, round(statistics.fmean(float(x["loss"]) for x in by_step[k]), 6),
                   round(min(float(x["t"]) for x in by_step[k]) - origin, 3)] for k in ordered]
    agree = [k for k in ordered if len(by_step[k]) > 1]
    mismatched = [k for k in agree if len({x["checksum"] for x in by_step[k]}) > 1]
    return {
        "origin": origin, "end": end, "faults": faults, "replicas": per_replica,
        "participants": participants, "loss_curve": loss_curve,
        "steps": [{"t": round(float(s["t"]) - origin, 3), "replica": s["replica"], "gen": s["gen"],
                   "step": s["step"], "loss": s["loss"], "committed": s["committed"],
                   "quorum_id": s["quorum_id"], "participants": s["participants"]} for s in steps],
        "steps_committed": len(ordered),
        "steps_lost": sum(1 for s in steps if not s["committed"]),
        "replica_steps_missed": sum(f.get("steps_missed") or 0 for f in faults),
        "checksums": {"steps_compared": len(agree), "mismatched_steps": mismatched[:20],
                      "mismatches": len(mismatched)},
        "downtime": {"max_s": max((f["downtime_s"] for f in faults), default=0.0),
                     "median_s": _median([f["downtime_s"] for f in faults]) or 0.0},
        "participants_range": [min((p[1] for p in participants), default=0),
                               max((p[1] for p in participants), default=0)],
    }
