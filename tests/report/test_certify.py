"""`port certify` orchestration: stages run as subprocesses; crashes, timeouts, missing and
omitted stages are contained, reported, and keep the verdict from ever being 'certified'."""

from __future__ import annotations

import io
import json
import sys

import pytest

from porting.certify import Progress, certify, run_stage


def _progress(interval: float = 0.2) -> tuple[Progress, io.StringIO]:
    buf = io.StringIO()
    return Progress(stream=buf, interval=interval), buf


def test_a_crashing_stage_is_contained_and_logged(tmp_path):
    progress, buf = _progress()
    result = run_stage("report", [str(tmp_path / "missing.xml"), "--out", str(tmp_path / "o")],
                       tmp_path / "logs" / "report.log", progress, timeout=600)
    assert result.status == "failed" and result.rc == 2 and result.broken
    assert "missing.xml: no such file or directory" in result.summary
    assert "port: error:" in (tmp_path / "logs" / "report.log").read_text()
    assert "report: FAILED (exit 2)" in buf.getvalue()


def test_a_python_crash_with_traceback_is_contained(tmp_path):
    progress, buf = _progress()
    cmd = [sys.executable, "-c", "import sys; print('step 1', flush=True); raise SystemExit(1/0)"]
    result = run_stage("matrix", [], tmp_path / "m.log", progress, timeout=600, command=cmd)
    assert result.rc == 1 and result.status == "failed"  # not "problems": exit 1 with a traceback
    assert result.summary.startswith("crashed: ZeroDivisionError")
    assert "ZeroDivisionError" in (tmp_path / "m.log").read_text()


def test_a_stage_that_hangs_is_killed_at_its_timeout_with_progress_lines(tmp_path):
    progress, buf = _progress(interval=0.1)
    cmd = [sys.executable, "-c", "import time\nprint('collected 12 items', flush=True)\ntime.sleep(600)"]
    result = run_stage("matrix", [], tmp_path / "m.log", progress, timeout=1.0, command=cmd)
    assert result.status == "timeout" and result.broken
    text = buf.getvalue()
    assert "matrix: running 00:0" in text and "last: collected 12 items" in text
    assert "matrix: TIMEOUT" in text


def test_a_missing_stage_is_reported(tmp_path):
    progress, buf = _progress()
    result = run_stage("no-such-stage", [], tmp_path / "x.log", progress, timeout=10)
    assert result.status == "missing" and result.broken and "MISSING" in buf.getvalue()


def test_certify_with_omitted_stages_is_partial_and_never_certified(tmp_path):
    progress, buf = _progress()
    record = certify(tmp_path / "out", sources=["native"], progress=progress, cwd=str(tmp_path),
                     skip={"build", "matrix"})
    names = [(s.name, s.status) for s in record.stages]
    assert names[0] == ("detect", "ok") and record.path in ("cpu", "cuda", "native-hip", "hipified-cuda")
    assert ("audit", "skipped") in names and ("hipify", "skipped") in names  # tmp project has no native/
    assert ("build", "omitted") in names and ("matrix", "omitted") in names
    assert names[-1] == ("report", "ok")
    assert record.verdict is not None and record.verdict["status"] != "certified"
    parity = json.loads((tmp_path / "out" / "parity.json").read_text())
    assert parity["partial"] is True
    assert any("stage matrix omitted" in r for r in parity["partial_reasons"])
    saved = json.loads((tmp_path / "out" / "certify.json").read_text())
    assert saved["kind"] == "rocm-port.certify" and saved["exit_code"] == record.exit_code == 3
    text = buf.getvalue()
    for stage in ("detect", "audit", "hipify", "build", "matrix", "report", "done"):
        assert f"] {stage}: " in text
    assert "verdict: NO EVIDENCE (PARTIAL)" in text


def test_interrupting_certify_stops_the_running_stage(tmp_path):
    """SIGTERM to `port certify` must not leave the stage (its own process group) running."""
    import os
    import signal
    import subprocess
    import time

    project = tmp_path / "proj"
    (project / "test_matrix").mkdir(parents=True)
    pidfile = tmp_path / "stage.pid"
    # A matrix pack whose only test records its pid and then sleeps: the stage is busy.
    (project / "test_matrix" / "test_sleep.py").write_text(
        "import os, time\n"
        f"def test_sleep():\n    open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n    time.sleep(600)\n")
    proc = subprocess.Popen([sys.executable, "-m", "porting", "certify", "--out", str(tmp_path / "out"),
                             "--skip", "build", "--progress-interval", "0.5",
                             "--matrix-dir", "test_matrix"],
                            cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        while not pidfile.exists() or not pidfile.read_text():
            assert proc.poll() is None, proc.stdout.read().decode()
            time.sleep(0.2)
        stage_pid = int(pidfile.read_text())
        proc.send_signal(signal.SIGTERM)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM
    for _ in range(600):  # a liveness guard (SIGKILL follows SIGTERM after 10 s), not a speed limit
        try:
            os.kill(stage_pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError(f"stage process {stage_pid} survived certify's SIGTERM")


@pytest.mark.slow
def test_certify_end_to_end_on_a_small_project(tmp_path):
    """Every real stage on a project whose matrix is two tests: the CPU path is green, and
    with no ROCm run the verdict is 'no evidence' (exit 3), complete, never 'certified'."""
    import subprocess

    project = tmp_path / "proj"
    (project / "test_matrix").mkdir(parents=True)
    (project / "test_matrix" / "test_small.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('n', [1, 2])\ndef test_ok(n):\n    assert n > 0\n")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "porting", "certify", "--out", str(out),
                           "--matrix-dir", "test_matrix"], cwd=project,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    record = json.loads((out / "certify.json").read_text())
    status = {s["name"]: s["status"] for s in record["stages"]}
    assert status == {"detect": "ok", "audit": "skipped", "hipify": "skipped", "build": "ok", "matrix": "ok",
                      "report": "ok"}, record["stages"]
    parity = json.loads((out / "parity.json").read_text())
    # no native/: audit and hipify did not run, so the report is partial and names them (issue 23, hole 10)
    assert parity["partial"] is True and parity["verdict"]["status"] == "no evidence"
    assert [r for r in parity["partial_reasons"] if "skipped" in r] == [
        "certify: stage audit skipped: no source dir (native)", "certify: stage hipify skipped: no source dir (native)"]
    assert record["exit_code"] == 3  # still the honest NO EVIDENCE of a CPU-only machine
    assert [t["id"] for t in parity["tests"]] == ["test_matrix.test_small::test_ok[1]",
                                                  "test_matrix.test_small::test_ok[2]"]
    assert "verdict: NO EVIDENCE" in proc.stdout and "CPU path green" in proc.stdout
    assert f"artifacts in {out}" in proc.stdout


def test_certify_takes_every_verdict_exit_of_the_report_as_a_verdict():
    """Incomplete (4) and external-only (5) are verdicts, not a broken report stage."""
    from porting.certify import VERDICT_EXITS
    from porting.report.verdict import EXIT_CODES

    assert sorted(VERDICT_EXITS) == sorted(EXIT_CODES.values())
