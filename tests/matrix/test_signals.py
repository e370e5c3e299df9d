"""SIGTERM / SIGINT: the JUnit of what ran is still written, marked incomplete."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

SLOW = """
import time
from pathlib import Path

def test_fast_1():
    pass

def test_fast_2():
    pass

def test_zz_blocks():
    Path({started!r}).write_text("x")
    time.sleep(600)
"""


def _wait_for(path, proc) -> None:
    """Wait until the blocking test has started (or the run ended early)."""
    while not path.exists():
        if proc.poll() is not None:
            raise AssertionError(f"pytest ended before the blocking test started:\n{proc.stdout.read()}")
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.parametrize("sig,workers,group", [
    ("SIGTERM", "0", False),
    ("SIGINT", "0", False),
    ("SIGTERM", "2", True),   # what `timeout` does: the whole process group
])
def test_signal_still_writes_junit_marked_interrupted(project, tmp_path, sig, workers, group):
    started = tmp_path / "started"
    project.write("test_matrix/pack/test_slow.py", SLOW.format(started=str(started)))
    args = ["test_matrix"] + (["-n", workers, "--dist", "loadfile"] if workers != "0" else [])
    proc = subprocess.Popen(project.command(*args), cwd=project.root, env=project.env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        _wait_for(started, proc)
        time.sleep(0.3)  # let the fast tests' reports reach the controller
        signum = getattr(signal, sig)
        if group:  # exactly what coreutils `timeout` does: the child, then its process group
            os.kill(proc.pid, signum)
            os.killpg(proc.pid, signum)
        else:
            os.kill(proc.pid, signum)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    run = project.result(proc.returncode, out)
    assert run.junit.is_file(), out
    props = run.suite_properties()
    assert props["port.complete"] == "false", out
    assert props["port.incomplete_reason"].startswith(f"{sig} after "), props
    assert props["port.collected"] == "3"
    cases = run.cases()
    assert "test_matrix.pack.test_slow::test_fast_1" in cases and "test_matrix.pack.test_slow::test_fast_2" in cases
