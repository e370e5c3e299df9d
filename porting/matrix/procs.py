"""Process hygiene for matrix runs: tag every process a run starts, find what is left.

Monarch's proc processes detach into their own sessions, so "children of pytest" misses
them once their parent is gone. Instead the run puts a tag in the environment
(``PORT_MATRIX_RUN=<run_id>``) before anything is spawned; every descendant inherits it and
``/proc/<pid>/environ`` shows it for as long as the process lives.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

TAG_ENV = "PORT_MATRIX_RUN"


@dataclass(frozen=True)
class Leftover:
    pid: int
    cmdline: str


def _ancestors(pid: int) -> set[int]:
    out = {pid}
    while pid > 1:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            pid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        out.add(pid)
    return out


def tagged_processes(run_id: str, proc: Path = Path("/proc"), tag_env: str = TAG_ENV) -> list[Leftover]:
    """Live processes (other than this one and its ancestors) started with this run's tag."""
    needle = f"{tag_env}={run_id}".encode()
    skip = _ancestors(os.getpid())
    found: list[Leftover] = []
    for entry in proc.iterdir() if proc.is_dir() else []:
        if not entry.name.isdigit() or int(entry.name) in skip:
            continue
        try:
            environ = (entry / "environ").read_bytes()
            if needle not in environ.split(b"\0"):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            if state == "Z":  # a zombie has exited already; its parent reaps it
                continue
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except (OSError, IndexError):
            continue
        found.append(Leftover(pid=int(entry.name), cmdline=cmd[:200]))
    return found


def wait_for_exit(run_id: str, grace_s: float, tag_env: str = TAG_ENV) -> list[Leftover]:
    """Poll until no tagged process remains or ``grace_s`` passes; return what remains."""
    deadline = time.monotonic() + grace_s
    while True:
        left = tagged_processes(run_id, tag_env=tag_env)
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.1)


def kill_all(leftovers: list[Leftover]) -> None:
    for p in leftovers:
        try:
            os.kill(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
