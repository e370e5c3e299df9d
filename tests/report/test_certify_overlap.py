"""`port certify` runs audit and hipify beside build and matrix: proven with fake stages that
can only finish when the other thread's stage is running at the same time (events, no clock),
with the record's order, a side stage's failure and an interruption checked too."""

from __future__ import annotations

import io
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

import porting.certify as certify_mod
from porting.certify import Progress, StageResult, certify
from porting.errors import InputError

GUARD_S = 120.0  # a liveness guard against a deadlock (the sequential pipeline), not a speed limit
ORDER = ["detect", "audit", "hipify", "build", "matrix", "report"]


class FakeStages:
    """``run_stage`` for every stage: detect writes a path, ``hooks[name]`` runs while the stage
    'runs', and each call is recorded with the thread it ran on."""

    def __init__(self, hooks: dict[str, object] | None = None, status: dict[str, tuple[str, int]] | None = None):
        self.hooks = hooks or {}
        self.status = status or {}
        self.calls: list[tuple[str, str, list[str]]] = []

    def __call__(self, name: str, args: list[str], log_path: Path, progress: Progress, timeout: float,
                 **kw: object) -> StageResult:
        self.calls.append((name, threading.current_thread().name, list(args)))
        started = progress.now()
        if name == "detect":
            Path(args[args.index("--out") + 1]).write_text(json.dumps({"path": "cpu"}))
        hook = self.hooks.get(name)
        if callable(hook):
            hook()
        status, rc = self.status.get(name, ("ok", 0))
        return StageResult(name, [name, *args], status, rc=rc, started=started,
                           elapsed=round(progress.now() - started, 3), log=str(log_path), summary=f"fake {name}")


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / "native").mkdir(parents=True)
    return project


def _certify(tmp_path: Path, project: Path) -> certify_mod.CertifyRecord:
    return certify(tmp_path / "out", sources=["native"], progress=Progress(stream=io.StringIO()), cwd=str(project))


def test_audit_and_hipify_run_while_the_matrix_runs(tmp_path, monkeypatch):
    """The matrix fake cannot finish before hipify has started, and hipify cannot finish before the
    matrix has started: only a pipeline that overlaps them ends without hitting the guard."""
    matrix_running, hipify_running = threading.Event(), threading.Event()
    seen: dict[str, bool] = {}

    def matrix() -> None:
        matrix_running.set()
        seen["hipify ran during the matrix"] = hipify_running.wait(GUARD_S)

    def hipify() -> None:
        hipify_running.set()
        seen["matrix ran during hipify"] = matrix_running.wait(GUARD_S)

    fake = FakeStages({"matrix": matrix, "hipify": hipify})
    monkeypatch.setattr(certify_mod, "run_stage", fake)
    record = _certify(tmp_path, _project(tmp_path))
    assert seen == {"hipify ran during the matrix": True, "matrix ran during hipify": True}
    threads = {name: thread for name, thread, _ in fake.calls}
    assert threads["audit"] == threads["hipify"] == "certify-sources"
    assert threads["matrix"] == threads["build"] == threading.main_thread().name
    assert [s.name for s in record.stages] == ORDER
    saved = json.loads((tmp_path / "out" / "certify.json").read_text())
    by_name = {s["name"]: s for s in saved["stages"]}
    hip, mat = by_name["hipify"], by_name["matrix"]  # the overlap is visible in the record
    assert hip["started"] <= mat["started"] + mat["elapsed"] and mat["started"] <= hip["started"] + hip["elapsed"]


def test_the_record_keeps_the_sequential_order_when_the_side_stages_end_last(tmp_path, monkeypatch):
    """hipify ends after the matrix and the suites: it is still recorded after audit, before build."""
    matrix_done = threading.Event()
    fake = FakeStages({"matrix": matrix_done.set, "hipify": lambda: matrix_done.wait(GUARD_S)})
    monkeypatch.setattr(certify_mod, "run_stage", fake)
    record = _certify(tmp_path, _project(tmp_path))
    assert [s.name for s in record.stages] == ORDER
    ended = [name for name, _, _ in fake.calls]
    assert ended.index("hipify") < len(ended)  # it ran
    saved = json.loads((tmp_path / "out" / "certify.json").read_text())
    assert [s["name"] for s in saved["stages"]] == ORDER
    assert all("started" in s and "elapsed" in s for s in saved["stages"])


def test_a_failing_side_stage_is_recorded_and_makes_the_report_incomplete(tmp_path, monkeypatch):
    fake = FakeStages(status={"audit": ("failed", 2)})
    monkeypatch.setattr(certify_mod, "run_stage", fake)
    record = _certify(tmp_path, _project(tmp_path))
    audit = record.stages[1]
    assert (audit.name, audit.status, audit.rc) == ("audit", "failed", 2)
    report_args = next(args for name, _, args in fake.calls if name == "report")
    incomplete = [report_args[i + 1] for i, a in enumerate(report_args) if a == "--incomplete"]
    assert incomplete == ["stage audit failed (exit 2): fake audit"]


def test_an_exception_on_the_side_thread_reaches_the_caller(tmp_path, monkeypatch):
    """What used to propagate out of certify from the audit stage still does, from its thread."""
    refused = InputError("audit: refused")

    def audit() -> None:
        raise refused

    monkeypatch.setattr(certify_mod, "run_stage", FakeStages({"audit": audit}))
    with pytest.raises(InputError) as caught:
        _certify(tmp_path, _project(tmp_path))
    assert caught.value is refused
    assert not (tmp_path / "out" / "certify.json").exists()  # as before: no record of a run that raised


def test_a_signal_during_the_matrix_ends_the_side_stage_s_child_too(tmp_path, monkeypatch):
    """SIGTERM while the matrix runs: the audit child (started on the side thread through
    process_group) is ended by the owner, and certify raises Interrupted after joining it."""
    from porting.process_group import Interrupted, owner

    real_run_stage = certify_mod.run_stage
    pidfile, hip_pid = tmp_path / "audit.pid", tmp_path / "hipify.pid"
    sleeper = [sys.executable, "-c", f"import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); "
                                     "time.sleep(600)"]

    def matrix() -> None:
        deadline = time.monotonic() + GUARD_S
        while not (pidfile.exists() and pidfile.read_text()):
            assert time.monotonic() < deadline, "the audit child never started"
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGTERM)

    fake = FakeStages({"matrix": matrix})

    def stages(name: str, args: list[str], log_path: Path, progress: Progress, timeout: float,
               **kw: object) -> StageResult:
        if name in ("audit", "hipify"):  # real children, spawned through process_group
            command = sleeper if name == "audit" else [sys.executable, "-c", f"open({str(hip_pid)!r}, 'w')"]
            return real_run_stage(name, args, log_path, progress, timeout, command=command)
        return fake(name, args, log_path, progress, timeout, **kw)

    monkeypatch.setattr(certify_mod, "run_stage", stages)
    with owner(), pytest.raises(Interrupted):
        _certify(tmp_path, _project(tmp_path))
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):  # already reaped by run_stage's stop_group
        os.kill(pid, 0)
    assert not hip_pid.exists()  # the side thread started nothing after the signal
