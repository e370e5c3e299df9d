"""Process hygiene for the tool's own tests (the matrix has its own: porting.matrix.procs).

Some tests start Monarch procs, which detach into their own sessions; a test run stopped
early (``-x``, a failure in a fixture, ``timeout`` sending SIGTERM) used to leave them running
with parent pid 1. The controlling pytest tags its environment (every descendant inherits the
tag, xdist workers and Monarch's procs included), turns SIGTERM into the KeyboardInterrupt
pytest already stops cleanly on, and at the very end kills whatever still carries the tag,
saying so.
"""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Callable

import pytest

from porting.matrix.procs import kill_all, wait_for_exit

TAG_ENV = "PORT_TEST_SESSION"
_TAG_KEY = pytest.StashKey[str]()


def _sigterm(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker: the controller owns the tag
        return
    tag = uuid.uuid4().hex
    os.environ[TAG_ENV] = tag
    config.stash[_TAG_KEY] = tag
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _sigterm)


def pytest_unconfigure(config: pytest.Config) -> None:
    tag = config.stash.get(_TAG_KEY, None)
    if tag is None:
        return
    left = wait_for_exit(tag, grace_s=5.0, tag_env=TAG_ENV)
    if left:
        kill_all(left)
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        lines = [f"tests: killed {len(left)} process(es) a test left behind:"]
        lines += [f"  pid {p.pid}: {p.cmdline}" for p in left]
        if reporter is not None:
            reporter.write_line("\n".join(lines), yellow=True)


def process_tree() -> dict[int, list[int]]:
    """parent pid -> child pids, from /proc (processes that vanish while it is read are skipped)."""
    tree: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="utf-8") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        tree.setdefault(ppid, []).append(int(name))
    return tree


def descendants_of(root: int) -> set[int]:
    """Every live process below ``root`` (children, their children, ...)."""
    tree, seen, todo = process_tree(), set(), [root]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


@pytest.fixture
def descendants() -> Callable[[int], set[int]]:
    """Every live process below a pid, read from /proc (tests that check nothing is left behind)."""
    return descendants_of
