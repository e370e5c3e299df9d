"""The owner of every child process a command starts: each child leads its own process group
(``start_new_session=True``), and that whole group is ended when the child times out, when the
command unwinds (an error, Ctrl-C) and when the command is signalled (SIGTERM, SIGHUP, SIGINT).

Two parts:

* ``run`` (instead of ``subprocess.run``) and ``spawn`` (instead of ``subprocess.Popen``):
  the child gets its own group and is registered while it lives; ``run`` kills the group on a
  time-out (a hanging ``hipconfig`` takes its own children with it) and on any exception.
* ``owner()``: installed once per command by the CLI. A signal sends SIGTERM to every
  registered group at once (children of worker threads too, which no exception reaches) and
  then raises ``Interrupted`` in the main thread, so ``finally`` blocks run and each command
  can write a result marked incomplete. A repeat of the signal within ``REPEAT_GRACE_S`` is
  ignored (``timeout`` signals the leader and then its group); a later one kills every group
  with SIGKILL and ends the command at once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator, Mapping, Sequence

TYPE_CHECKING = False  # typing is not imported at run time: every command starts through here
if TYPE_CHECKING:
    import subprocess  # imported where a child starts: `port detect` usually starts none
    from typing import Any

REPEAT_GRACE_S = 5.0
POLL_S = 0.2  # how often a running child is checked for having exited with its pipes held
SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class Interrupted(KeyboardInterrupt):
    """The command was signalled; code that already cleans up on Ctrl-C does so here too."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        self.signame = signal.Signals(signum).name
        self.exit_code = 128 + signum
        super().__init__(f"{self.signame} received")


class _Groups:
    """Process groups of the live children. Signals and their handlers are per process, so this
    registry is too: the handler must reach children started anywhere (worker threads too)."""

    def __init__(self) -> None:
        # Reentrant: the signal handler runs in the main thread, possibly while that thread is
        # inside spawn() holding the lock.
        self._lock = threading.RLock()
        self._pgids: set[int] = set()
        self.stopping: int | None = None  # the signal that ends the command: start nothing new

    def locked(self) -> threading.RLock:
        return self._lock

    def add(self, pgid: int) -> None:
        with self._lock:
            self._pgids.add(pgid)

    def discard(self, pgid: int) -> None:
        with self._lock:
            self._pgids.discard(pgid)

    def signal_all(self, sig: int) -> None:
        with self._lock:
            pgids = list(self._pgids)
        for pgid in pgids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, sig)


_LIVE = _Groups()


def stop_group(proc: subprocess.Popen, grace_s: float = 10.0) -> None:
    """SIGTERM the child's process group, wait up to ``grace_s`` for the leader, then SIGKILL
    the group, so that nothing it started (Monarch procs, workers) outlives it."""
    import subprocess

    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, grace_s)):
        if not _group_may_be_ours(proc):
            break
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            break  # the group is gone
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=grace_s)
    if _group_may_be_ours(proc):
        _await_gone(proc.pid, grace_s)
    _LIVE.discard(proc.pid)


def _group_may_be_ours(proc: subprocess.Popen) -> bool:
    """False when the group numbered ``proc.pid`` is certainly someone else's. Once the leader
    has been reaped its number is free, and on a busy host (pid_max 32768) a new process gets
    it within minutes; one started with its own session (as a test's leaked ``sleep`` is) then
    leads a group of that number, and a late ``killpg`` would kill it. The kernel keeps a
    number out of use while any process still has it as its group, so a live process holding
    the leader's pid after the reap proves the old group is gone."""
    return proc.returncode is None or not os.path.exists(f"/proc/{proc.pid}")


def _await_gone(pgid: int, limit_s: float) -> None:
    """Wait (at most ``limit_s``) until no process of the group is left: a SIGKILL is only queued
    by kill(), and on a loaded machine a forked child can still be running when the command
    returns. An exited member the init process has not reaped yet still counts; hence the bound."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.01)


def spawn(argv: Sequence[str], **popen: Any) -> subprocess.Popen:
    """``subprocess.Popen`` with the child leading its own group, registered with the owner.
    The caller ends it with ``stop_group`` (also when it exited: its group may live on)."""
    import subprocess

    popen["start_new_session"] = True
    # Start and register under the registry's lock: a signal handled while another thread is
    # between Popen and the registration waits for it, so no group starts unseen (a child that
    # was already running, e.g. writing its pid, when the signal came was missed before).
    with _LIVE.locked():
        if _LIVE.stopping is not None:  # a worker thread asking after the command was signalled
            raise Interrupted(_LIVE.stopping)
        proc = subprocess.Popen(list(argv), **popen)
        _LIVE.add(proc.pid)
    return proc


def run(argv: Sequence[str], *, timeout: float | None = None, env: Mapping[str, str] | None = None,
        cwd: str | None = None, text: bool = True, errors: str = "replace",
        grace_s: float = 2.0) -> subprocess.CompletedProcess:
    """``subprocess.run(argv, capture_output=True)`` whose whole process group dies with it:
    on a time-out (``subprocess.TimeoutExpired`` is raised, as ``subprocess.run`` does), on
    any exception and once the child has exited (a daemon it left behind goes too)."""
    import subprocess

    proc = spawn(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                 env=None if env is None else dict(env), cwd=cwd, text=text,
                 errors=errors if text else None)
    try:
        out, err = _communicate(proc, timeout)
    except BaseException:
        stop_group(proc, grace_s)
        raise
    stop_group(proc, grace_s)  # the leader is done; anything left in its group is an orphan
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _communicate(proc: subprocess.Popen, timeout: float | None) -> tuple[Any, Any]:
    """``proc.communicate(timeout)``, except that once the leader has exited, a background
    child still holding its pipes is not waited for: the group is ended and the output read."""
    import subprocess

    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        left = POLL_S if deadline is None else min(POLL_S, deadline - time.monotonic())
        try:
            return proc.communicate(timeout=max(left, 0.0))
        except subprocess.TimeoutExpired:
            if proc.poll() is not None:
                stop_group(proc, 2.0)
                return proc.communicate()
            if timeout is not None and deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(proc.args, timeout) from None


class _Handler:
    def __init__(self) -> None:
        self.first: float | None = None

    def __call__(self, signum: int, _frame: object) -> None:
        now = time.monotonic()
        if self.first is None:
            self.first = now
            _LIVE.stopping = signum
            _LIVE.signal_all(signal.SIGTERM)
            raise Interrupted(signum)
        if now - self.first < REPEAT_GRACE_S:
            return
        _LIVE.signal_all(signal.SIGKILL)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


@contextlib.contextmanager
def owner() -> Iterator[None]:
    """For the duration of a command: signals end every child group and raise ``Interrupted``;
    on the way out, whatever group is still registered is killed."""
    handler = _Handler()
    _LIVE.stopping = None
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in SIGNALS:
            previous[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        _LIVE.signal_all(signal.SIGKILL)
        _LIVE.stopping = None
        for signum, old in previous.items():
            signal.signal(signum, old)
