"""Helpers of the hostile tests (fixture ``hp``): process liveness, hostile scripts, and running
the CLI as a subprocess the way a user (or a CI runner) does."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (an exited child nobody reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def wait_dead(pid: int, guard_s: float = 30.0) -> bool:
    """Poll until ``pid`` is gone; ``guard_s`` only bounds a hang, it is not a speed limit."""
    end = time.monotonic() + guard_s
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def wait_for_file(path: Path, guard_s: float = 60.0) -> str:
    end = time.monotonic() + guard_s
    while time.monotonic() < end:
        if path.is_file() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def kill_quietly(pid: int, *needles: str) -> None:
    """Clean-up after a failed test: SIGKILL ``pid`` if it is alive and still the process the
    test started (its command line contains one of ``needles``; pids are reused)."""
    if alive(pid) and any(n in cmdline(pid) for n in needles or ("sleep",)):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def hanging_script(path: Path, pidfile: Path, output: str = "") -> Path:
    """An executable that starts a grandchild (its pid in ``pidfile``) and then hangs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n"
                    f"sleep 600 &\necho $! > '{pidfile}'\n"
                    + (f"echo '{output}'\n" if output else "")
                    + "sleep 600\n")
    path.chmod(0o755)
    return path


def port_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(extra)
    return env


def run_port(args: list[str], cwd: Path, env: dict[str, str] | None = None,
             guard_s: float = 300.0) -> subprocess.CompletedProcess:
    """``python -m porting ARGS`` as a subprocess (``guard_s`` only bounds a hang)."""
    return subprocess.run([sys.executable, "-m", "porting", *args], cwd=cwd, env=env or port_env(),
                          capture_output=True, text=True, timeout=guard_s)


def assert_clean_error(proc: subprocess.CompletedProcess, code: int, *needles: str) -> str:
    """Exit ``code``, one ``port: error:`` line naming what is wrong, no traceback."""
    err = proc.stderr
    assert proc.returncode == code, (proc.returncode, err[-2000:])
    assert "Traceback" not in err and "Traceback" not in proc.stdout, err[-2000:]
    errors = [ln for ln in err.splitlines() if ln.startswith("port: error:")]
    assert len(errors) == 1, err[-2000:]
    for needle in needles:
        assert needle in errors[0], (needle, errors[0])
    return errors[0]


def tree(root: Path) -> set[str]:
    """Every path under ``root`` (relative), to show that nothing was written outside OUT."""
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture(scope="session")
def hp():
    """The helpers above (with --import-mode=importlib, tests cannot import conftest)."""
    import types

    names = ("REPO", "alive", "cmdline", "wait_dead", "wait_for_file", "kill_quietly", "hanging_script", "port_env",
             "run_port", "assert_clean_error", "tree")
    return types.SimpleNamespace(**{n: globals()[n] for n in names})
