"""Process pools whose workers never outlive the command (`port hipify`, `port audit`).

Two guarantees, because neither alone covers every way a command ends:

* ``die_with_parent`` runs first in each worker: on Linux it asks the kernel for SIGKILL when
  the parent dies (``prctl(PR_SET_PDEATHSIG)``), which covers a SIGKILL or a default-action
  SIGTERM of the parent, where no Python code of the parent runs; a parent that died before
  the call is caught by comparing ``os.getppid()``.
* ``worker_pool`` kills the workers when the ``with`` block is left by an exception (Ctrl-C, an
  ``Interrupted`` from the signal owner, an error): ``ProcessPoolExecutor.shutdown`` would wait
  for the tasks already running, and the interpreter's exit hook joins them too.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.context import BaseContext
from typing import Any

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(parent_pid: int) -> None:
    """Make this process end when ``parent_pid`` (its parent) does; a no-op off Linux."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before the request above took effect
        os._exit(1)


def _init(parent_pid: int, initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    die_with_parent(parent_pid)
    if initializer is not None:
        initializer(*initargs)


def new_pool(jobs: int, mp_context: BaseContext, initializer: Callable[..., None] | None = None,
             initargs: tuple[Any, ...] = ()) -> ProcessPoolExecutor:
    """A ``ProcessPoolExecutor`` whose workers die with this process (see the module docstring)."""
    return ProcessPoolExecutor(max_workers=jobs, mp_context=mp_context, initializer=_init,
                               initargs=(os.getpid(), initializer, initargs))


def close_pool(pool: ProcessPoolExecutor, failed: bool) -> None:
    """Shut ``pool`` down: normally (wait for it), or, when the command is failing or being
    interrupted, cancel what is queued and kill the workers at once."""
    if not failed:
        pool.shutdown(wait=True)
        return
    # Python < 3.14 has no public way to kill a pool's workers; _processes is the pid -> Process
    # map ProcessPoolExecutor keeps (3.8-3.13), read defensively.
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.kill()
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.join(5)


@contextlib.contextmanager
def worker_pool(jobs: int, mp_context: BaseContext, initializer: Callable[..., None] | None = None,
                initargs: tuple[Any, ...] = ()) -> Iterator[ProcessPoolExecutor]:
    pool = new_pool(jobs, mp_context, initializer, initargs)
    failed = True
    try:
        yield pool
        failed = False
    finally:
        close_pool(pool, failed)
