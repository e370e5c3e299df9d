"""Run a soak end to end: driver in a fresh network namespace, then analysis and artifacts.

torchft 0.2.0 binds its Manager server on ``[::]`` and its checkpoint HTTP server on all
interfaces, so the driver (and every process it starts) runs under ``unshare --net`` with only
``lo`` up: nothing it opens is reachable from outside the machine. If no namespace can be made
(neither root nor user namespaces), the soak refuses to run rather than expose those ports.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import process_group
from ..atomic import write_json
from ..errors import PlatformError, ToolError
from . import outdir
from .invariants import check
from .metrics import analyse, load_raw, read_jsonl
from .record import SoakRecord
from .spec import (
    SoakSpec,
    detect_bound_s,
    downtime_bound_s,
    heartbeat_timeout_s,
    hold_bound_s,
    join_timeout_s,
    make_schedule,
    recovery_bound_s,
)

SUPERVISION_POLL = "500ms"


def netns_prefix() -> list[str]:
    """The ``unshare`` invocation that gives a child its own network namespace, or raise."""
    for prefix in (["unshare", "--net"], ["unshare", "--net", "--map-root-user"]):
        try:
            probe = process_group.run([*prefix, "true"], timeout=20)
        except (OSError, subprocess.SubprocessError):
            continue
        if probe.returncode == 0:
            return prefix
    raise PlatformError("port soak: cannot create a network namespace (`unshare --net` failed; need root or "
                        "user namespaces); refusing to run torchft servers that bind on all interfaces")


def driver_budget_s(spec: SoakSpec) -> float:
    """Upper bound on the driver's wall time, from its own waits (see driver.drive)."""
    return (spec.startup_budget_s + spec.duration_s + 2 * spec.timeout_s + spec.step_period_s
            + 120 + 15 + 60)  # stop_all, reaping, interpreter start-up and imports


def run_driver(spec: SoakSpec, out: Path, env: Mapping[str, str], log: Path, prefix: list[str] | None = None) -> int:
    spec.validate()
    prefix = prefix or netns_prefix()
    write_json(out / "spec.json", spec.to_json())
    child_env = dict(env)
    child_env.update({"PORT_SOAK_NETNS": "1", "HYPERACTOR_MESH_SUPERVISION_POLL_FREQUENCY": SUPERVISION_POLL,
                      "PYTHONUNBUFFERED": "1"})
    root = str(Path(__file__).resolve().parents[2])
    child_env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    argv = [*prefix, sys.executable, "-m", "porting.soak.driver", str(out)]
    with open(log, "wb") as fh:
        proc = process_group.spawn(argv, stdout=fh, stderr=subprocess.STDOUT, env=child_env)
        try:
            return proc.wait(timeout=driver_budget_s(spec))
        except subprocess.TimeoutExpired:
            return -1
        finally:  # also on a signal (process_group.Interrupted): the driver's session goes too
            process_group.stop_group(proc)


def bounds_of(spec: SoakSpec) -> dict[str, float]:
    """The bounds the invariants hold the run to, recorded in soak.json."""
    return {"downtime_s": downtime_bound_s(spec), "detect_s": detect_bound_s(spec), "hold_s": hold_bound_s(spec),
            "recovery_s": recovery_bound_s(spec), "join_timeout_s": join_timeout_s(spec),
            "heartbeat_timeout_s": heartbeat_timeout_s(spec)}


def build_record(spec: SoakSpec, out: Path, driver_rc: int, wall_s: float) -> SoakRecord:
    raw = load_raw(out, spec.replicas)
    run = raw["run"]
    if driver_rc not in (0, 1):
        run.setdefault("errors", []).append(f"soak driver exited with status {driver_rc}")
    result = analyse(raw)
    invariants = check(spec, result, run)
    run_view: dict[str, Any] = {k: run.get(k) for k in ("origin", "end", "startup_s", "lighthouse", "network",
                                                         "listener_snapshots", "reaped", "errors",
                                                         "unhandled_faults", "injections", "stopped_meshes",
                                                         "hosts", "hosts_left", "cluster")}
    run_view["wall_s"] = round(wall_s, 3)
    bounds = bounds_of(spec)
    return SoakRecord(spec=spec.to_json(), schedule=[f.to_json() for f in make_schedule(spec)], bounds=bounds,
                      run=run_view, result=result, invariants=[i.to_json() for i in invariants])


def soak(spec: SoakSpec, out: Path, env: Mapping[str, str]) -> SoakRecord:
    """Run the soak and write soak.json, soak.png and soak.xml into ``out`` (also when a signal
    stops it: then marked incomplete, and the signal's ``KeyboardInterrupt`` is re-raised)."""
    began = time.time()
    outdir.check(out)  # a directory that is not a soak's is refused before anything else
    prefix = netns_prefix()  # before touching anything
    outdir.claim(out)  # refuses a directory that is not a soak's; deletes only a soak's files
    try:
        rc = run_driver(spec, out, env, out / "driver.log", prefix)
    except KeyboardInterrupt as exc:  # Ctrl-C, or process_group.Interrupted (SIGTERM, SIGHUP)
        # the driver's group is stopped (run_driver); what it left is the result, marked incomplete
        _write(interrupted_record(spec, out, str(exc) or "SIGINT received", time.time() - began), out, env)
        outdir.record(out)
        raise
    try:
        if not (out / "run.json").is_file():
            raise ToolError(f"port soak: the driver stopped without writing {out / 'run.json'} "
                            f"(exit status {rc}); see {out / 'driver.log'}")
        record = build_record(spec, out, rc, time.time() - began)
        _write(record, out, env)
    finally:
        outdir.record(out)
    return record


def write_artifacts(record: SoakRecord, out: Path, env: Mapping[str, str]) -> None:
    """soak.json, soak.png and soak.xml of ``record`` into ``out`` (atomically, each)."""
    _write(record, out, env)


def _write(record: SoakRecord, out: Path, env: Mapping[str, str]) -> None:
    from .junit import write_junit
    from .plot import write_plot

    data = record.to_json()
    write_json(out / "soak.json", data)
    write_plot(data, out / "soak.png")
    write_junit(data, out / "soak.xml", env)


def interrupted_record(spec: SoakSpec, out: Path, why: str, wall_s: float) -> SoakRecord:
    """The record of a soak stopped by a signal: what the replicas logged so far, analysed as far
    as it goes, with ``run.errors`` (so the JUnit says ``port.complete=false``) and a failed
    ``soak_completed`` invariant (so ``ok`` is false)."""
    reason = f"interrupted: {why} after {wall_s:.1f} s; the driver and its replicas were stopped"
    try:
        raw = load_raw_partial(out, spec)
        result = analyse(raw)
        invariants = [i.to_json() for i in check(spec, result, raw["run"])]
    except Exception as exc:  # noqa: BLE001 - partial logs of a killed run; keep the record regardless
        raw, result, invariants = {"run": {}}, {}, []
        reason += f" (partial analysis failed: {exc.__class__.__name__}: {exc})"
    run = {**raw["run"], "errors": [*raw["run"].get("errors", []), reason], "wall_s": round(wall_s, 3)}
    invariants.insert(0, {"name": "soak_completed", "ok": False, "detail": reason})
    bounds = bounds_of(spec)
    return SoakRecord(spec=spec.to_json(), schedule=[f.to_json() for f in make_schedule(spec)], bounds=bounds,
                      run=run, result=result, invariants=invariants)


def load_raw_partial(out: Path, spec: SoakSpec) -> dict[str, Any]:
    """``load_raw`` for a run that did not finish: no run.json yet is an empty run."""
    from ..parsing import load_json

    run_json = out / "run.json"
    run = load_json(run_json) if run_json.is_file() else {}
    events: list[dict[str, Any]] = []
    for r in range(spec.replicas):
        events.extend(read_jsonl(out / "steps" / f"r{r}.jsonl"))
    return {"spec": spec.to_json(), "run": run if isinstance(run, dict) else {},
            "supervisor": read_jsonl(out / "supervisor.jsonl"), "events": events}
