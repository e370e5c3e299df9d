"""Actors of the supervision pack (shipped to proc processes by value)."""

from __future__ import annotations

import os
import signal
import threading
import time

from monarch.actor import Actor, current_rank, endpoint, this_host


class CustomError(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(f"custom failure {code}")
        self.code = code


class UnpicklableError(Exception):
    """An exception that cannot travel back to the caller (it holds a lock)."""

    def __init__(self) -> None:
        super().__init__("holds a lock")
        self.lock = threading.Lock()


# Built-in Exception subclasses: all reach the caller through the same pickle of the exception.
BUILTIN_KINDS = {
    "ValueError": "bad value 42", "KeyError": "missing-key", "ZeroDivisionError": "division by zero",
    "AssertionError": "invariant broken", "RuntimeError": "runtime trouble", "TypeError": "has no len",
}


def raise_named(kind: str) -> None:
    if kind == "ValueError":
        raise ValueError("bad value 42")
    if kind == "KeyError":
        raise KeyError("missing-key")
    if kind == "ZeroDivisionError":
        raise ZeroDivisionError("division by zero")
    if kind == "AssertionError":
        raise AssertionError("invariant broken")
    if kind == "RuntimeError":
        raise RuntimeError("runtime trouble")
    if kind == "TypeError":
        raise TypeError("object of type 'int' has no len()")
    if kind == "CustomError":
        raise CustomError(7)
    if kind == "chained":
        try:
            raise KeyError("inner")
        except KeyError as exc:
            raise RuntimeError("outer") from exc
    if kind == "SystemExit":
        raise SystemExit(4)
    if kind == "KeyboardInterrupt":
        raise KeyboardInterrupt("interrupted in an endpoint")
    if kind == "unpicklable":
        raise UnpicklableError()
    raise NotImplementedError(kind)


class Worker(Actor):
    @endpoint
    def ping(self) -> int:
        return current_rank().rank

    @endpoint
    def pid(self) -> int:
        return os.getpid()

    @endpoint
    def fail(self, kind: str, only_rank: int | None = None) -> int:
        if only_rank is None or current_rank().rank == only_rank:
            raise_named(kind)
        return current_rank().rank

    @endpoint
    def exit_now(self, code: int) -> None:
        os._exit(code)

    @endpoint
    def sleep(self, seconds: float) -> str:
        time.sleep(seconds)
        return "slept"

    @endpoint
    def signal_self(self, sig: int) -> None:
        os.kill(os.getpid(), sig)

    @endpoint
    def poll_setting(self) -> str | None:
        return os.environ.get("HYPERACTOR_MESH_SUPERVISION_POLL_FREQUENCY")


class AsyncWorker(Actor):
    """Async endpoints run on the actor's event loop (another dispatch path than sync ones; an
    actor cannot mix the two)."""

    @endpoint
    async def fail(self, kind: str) -> int:
        raise_named(kind)
        return current_rank().rank

    @endpoint
    async def ping(self) -> int:
        return current_rank().rank


class BadInit(Actor):
    def __init__(self, value: int) -> None:
        raise ValueError(f"constructor refused {value}")

    @endpoint
    def ping(self) -> int:
        return 0


class DiesInInit(Actor):
    """Rank ``rank``'s process exits with ``code`` inside the constructor: the actor never
    finishes spawning there (BadInit raises instead, which Monarch catches)."""

    def __init__(self, rank: int, code: int) -> None:
        self.rank = current_rank().rank  # its rank in the spawned mesh (a slice's call sees 0)
        if self.rank == rank:
            os._exit(code)

    @endpoint
    def ping(self) -> int:
        return self.rank


class Supervisor(Actor):
    """Owns a child mesh and records the MeshFailures its __supervise__ receives. ``verdict``:
    "handle" (return True: handled here), "escalate" (return False: up to its own supervisor) or
    "raise" (__supervise__ itself raises)."""

    def __init__(self, ranks: int, verdict: str = "handle") -> None:
        self.failures: list[dict] = []
        self.verdict = verdict
        self.procs = this_host().spawn_procs(per_host={"gpus": ranks})
        self.children = self.procs.spawn("child", Worker)

    @endpoint
    def child_pids(self) -> list[int]:
        return list(self.children.pid.call().get().values())

    @endpoint
    def kill_child(self, rank: int, how: str) -> None:
        child = self.children.slice(gpus=rank)
        if how == "exit":
            child.exit_now.broadcast(5)
        elif how == "exit0":
            child.exit_now.broadcast(0)
        elif how == "raise":
            child.fail.broadcast("ValueError")  # no caller to receive it: the child actor fails
        else:
            os.kill(child.pid.call_one().get(), signal.SIGKILL)

    @endpoint
    def ping_child(self, rank: int) -> str:
        try:
            return f"ok {self.children.slice(gpus=rank).ping.call_one().get()}"
        except Exception as exc:
            return f"error {type(exc).__name__}"

    @endpoint
    def call_child_while_it_dies(self, rank: int, delay: float) -> str:
        """A call from this actor to child ``rank`` still running when the child's proc is
        SIGKILLed: how the pending reply resolves inside this actor (bounded: 120 s)."""
        child = self.children.slice(gpus=rank)
        pid = child.pid.call_one().get()
        pending = child.sleep.call_one(600)
        killer = threading.Timer(delay, os.kill, (pid, signal.SIGKILL))
        killer.start()
        try:
            return f"ok {pending.get(timeout=120)}"
        except Exception as exc:
            return f"error {type(exc).__name__}: {exc}"
        finally:
            killer.join()

    @endpoint
    def seen(self) -> list[dict]:
        return list(self.failures)

    def __supervise__(self, failure) -> bool:
        self.failures.append({"type": type(failure).__name__, "report": failure.report(),
                              "mesh_name": str(failure.mesh_name)})
        if self.verdict == "raise":
            raise RuntimeError("__supervise__ itself failed")
        return self.verdict == "handle"
