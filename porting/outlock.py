"""One run per output directory: `port certify` and `port matrix` hold an exclusive lock on it.

Two runs writing into one directory would mix their evidence (the second's report reading the
first's JUnit). The lock is ``flock`` on ``DIR/.port.lock``: the kernel drops it when the holder
exits, however it exits, so a crashed run never leaves a stale lock behind. The lock file is
opened without following a symlink (a planted link cannot make us create or truncate a file
elsewhere) and holds the holder's pid and command, shown in the refusal.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from .errors import UsageError

LOCK_NAME = ".port.lock"


class OutputBusy(UsageError):
    """Another run holds the output directory."""


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", errors="replace").strip()
    except OSError:
        return ""
    return f" ({text})" if text and text.isprintable() else ""


@contextlib.contextmanager
def locked(directory: str | os.PathLike[str], what: str, name: str = LOCK_NAME) -> Iterator[None]:
    """Hold ``directory``'s lock ``name`` for the block; ``OutputBusy`` (one line) if another run
    has it. (`port matrix` locks per JUnit file: the shards of one array job share a directory.)"""
    path = Path(directory)
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd = os.open(path / name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise UsageError(f"{directory}: cannot lock the output directory ({exc.strerror or exc})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputBusy(f"{directory}: another run is writing into this output directory{_holder(fd)}; "
                             "wait for it or choose another directory") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, {what}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
