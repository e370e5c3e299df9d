"""Actors of the supervision fault grid (test_fault_grid.py; shipped to proc processes by value):
a victim that fails in each way, an observer that calls a mesh it does not own, and an owner
whose child fails in its constructor or hangs."""

from __future__ import annotations

import os
import signal
import time

from monarch.actor import Actor, current_rank, endpoint, this_host


class Victim(Actor):
    """Fails when told: ``mode`` at construction picks a constructor fault for one rank."""

    def __init__(self, mode: str = "", rank: int = -1, seconds: float = 0.0) -> None:
        me = current_rank().rank
        if me == rank and mode == "raise":
            raise ValueError(f"constructor of rank {me} refused")
        if me == rank and mode == "exit":
            os._exit(7)
        if me == rank and mode == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
        if mode == "hang":
            time.sleep(seconds)
        self.rank = me

    @endpoint
    def ping(self) -> int:
        return self.rank

    @endpoint
    def pid(self) -> int:
        return os.getpid()

    @endpoint
    def sleep(self, seconds: float) -> str:
        time.sleep(seconds)
        return f"slept {self.rank}"

    @endpoint
    def fail(self) -> None:
        raise ValueError(f"rank {self.rank} failed")

    @endpoint
    def exit_now(self, code: int) -> None:
        os._exit(code)

    @endpoint
    def send_then(self, port, count: int, then: str) -> None:
        """Send ``count`` values to ``port``, then fail as ``then`` says (exit, raise, kill)."""
        for i in range(count):
            port.send(i)
        if then == "exit":
            os._exit(9)
        if then == "raise":
            raise ValueError("failed after sending")
        if then == "kill":
            os.kill(os.getpid(), signal.SIGKILL)


class Observer(Actor):
    """Calls a mesh it was given (a sibling's: it does not own it) and reports what it saw."""

    @endpoint
    def call(self, mesh, what: str = "ping", timeout: float = 60.0) -> str:
        try:
            if what == "sleep":
                return f"ok {mesh.sleep.call_one(5).get(timeout=timeout)}"
            return f"ok {list(mesh.ping.call().get(timeout=timeout).values())}"
        except Exception as exc:
            return f"error {type(exc).__name__}: {exc}"


class Owner(Actor):
    """Spawns a Victim child mesh (``mode``/``rank`` passed to its constructor) and records the
    MeshFailures its __supervise__ receives (handled: True)."""

    def __init__(self, ranks: int, mode: str = "", rank: int = -1, seconds: float = 0.0) -> None:
        self.failures: list[str] = []
        self.procs = this_host().spawn_procs(per_host={"gpus": ranks})
        self.children = self.procs.spawn("child", Victim, mode, rank, seconds)

    @endpoint
    def children_mesh(self):
        return self.children

    @endpoint
    def call_children(self, timeout: float = 60.0) -> str:
        try:
            return f"ok {sorted(self.children.ping.call().get(timeout=timeout).values())}"
        except Exception as exc:
            return f"error {type(exc).__name__}: {exc}"

    @endpoint
    def child_sleep(self, seconds: float, timeout: float) -> str:
        try:
            return f"ok {self.children.slice(gpus=0).sleep.call_one(seconds).get(timeout=timeout)}"
        except Exception as exc:
            return f"error {type(exc).__name__}"

    @endpoint
    def seen(self) -> list[str]:
        return list(self.failures)

    def __supervise__(self, failure) -> bool:
        self.failures.append(failure.report())
        return True
