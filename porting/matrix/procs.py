"""Process hygiene for matrix runs: tag every process a run starts, find what is left.

Monarch's proc processes detach into their own sessions, so "children of pytest" misses
them once their parent is gone. Instead the run puts a tag in the environment
(``PORT_MATRIX_RUN=<run_id>``) before anything is spawned; every descendant inherits it and
``/proc/<pid>/environ`` shows it for as long as the process lives.

The plugin's session-end check only runs when the run ends in order. When ``port matrix``
itself is killed (SIGKILL, an OOM kill, a CI job's ``timeout --kill-after``) nothing in the
process runs any more, and Monarch's procs and the hosts a test starts with
``start_new_session=True`` (``run_worker_loop_forever``) would live on. ``reaped`` starts a
small watcher in its own session for the duration of a run: it waits for the command's
process to end (a pidfd: woken by the kernel at exit, however the command ended) and kills
every process that still carries the run's owner tag (``PORT_MATRIX_OWNER``, one per
command, so two shards of one run id on one host never reap each other).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

TAG_ENV = "PORT_MATRIX_RUN"
OWNER_ENV = "PORT_MATRIX_OWNER"
POLL_S = 0.5  # how often the watcher checks the command without a pidfd


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


CONFIRM_SCANS = 3  # empty scans in a row before "nothing is left" is believed


def wait_for_exit(run_id: str, grace_s: float, tag_env: str = TAG_ENV) -> list[Leftover]:
    """Poll until no tagged process remains or ``grace_s`` passes; return what remains.

    "None remains" needs ``CONFIRM_SCANS`` empty scans in a row, 0.1 s apart: under load a
    single scan was seen to return nothing while a tagged ``sleep`` lived on (2 of about 40 runs
    of tests/matrix/test_plugin.py's leftover test beside three others, 2026-12-08; its
    environment carried the run's tag). Why the scan missed it was not found; one empty scan is
    not taken as proof."""
    deadline = time.monotonic() + grace_s
    empty = 0
    while True:
        left = tagged_processes(run_id, tag_env=tag_env)
        empty = 0 if left else empty + 1
        if empty >= CONFIRM_SCANS or time.monotonic() >= deadline:
            return left
        time.sleep(0.1)


def kill_all(leftovers: list[Leftover]) -> None:
    for p in leftovers:
        try:
            os.kill(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def sweep(token: str, tag_env: str = OWNER_ENV, rounds: int = 5) -> list[Leftover]:
    """Kill every live process tagged ``tag_env=token`` (a few rounds: one may fork while the
    others die); what was found, for the caller to report."""
    found: list[Leftover] = []
    for _ in range(rounds):
        left = tagged_processes(token, tag_env=tag_env)
        if not left:
            break
        found.extend(p for p in left if p not in found)
        kill_all(left)
        time.sleep(0.1)
    return found


def wait_for_death(pid: int) -> None:
    """Return once process ``pid`` has ended (a pidfd where the kernel has them, else polling)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except (AttributeError, OSError):  # no pidfd (old kernel, not Linux): poll
        while _alive(pid):
            time.sleep(POLL_S)
        return
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while not poller.poll(None):
            pass
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    state = Path(f"/proc/{pid}/stat")
    try:
        return state.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def watch(pid: int, token: str) -> None:
    """The watcher's body: when ``pid`` ends, kill what carries its owner tag."""
    wait_for_death(pid)
    sweep(token)


@contextlib.contextmanager
def reaped() -> Iterator[str]:
    """For the duration of a run: every process started inside carries a fresh owner tag, and a
    watcher in its own session (out of reach of the signals that end the command's process
    group) kills them if this process dies first. On a normal exit the tagged processes still
    alive are killed here and the watcher is ended. Yields the tag."""
    token = uuid.uuid4().hex
    old = os.environ.get(OWNER_ENV)
    package_parent = str(Path(__file__).resolve().parents[2])
    code = ("import sys; sys.path.insert(0, sys.argv[3]); from porting.matrix.procs import watch; "
            "watch(int(sys.argv[1]), sys.argv[2])")
    env = {k: v for k, v in os.environ.items() if k not in (OWNER_ENV, TAG_ENV)}
    watcher = subprocess.Popen([sys.executable, "-c", code, str(os.getpid()), token, package_parent],
                               env=env, start_new_session=True, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.environ[OWNER_ENV] = token
    try:
        yield token
    finally:
        if old is None:
            os.environ.pop(OWNER_ENV, None)
        else:
            os.environ[OWNER_ENV] = old
        left = sweep(token)
        if left:
            listing = "; ".join(f"pid {p.pid}: {p.cmdline[:120]}" for p in left)
            print(f"port matrix: killed {len(left)} process(es) the run left behind: {listing}", flush=True)
        watcher.kill()
        watcher.wait()
