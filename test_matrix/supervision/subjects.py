"""Actors of the supervision pack (shipped to proc processes by value)."""

from __future__ import annotations

import os
import signal

from monarch.actor import Actor, current_rank, endpoint, this_host


class CustomError(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(f"custom failure {code}")
        self.code = code


def raise_named(kind: str) -> None:
    if kind == "ValueError":
        raise ValueError("bad value 42")
    if kind == "KeyError":
        {}["missing-key"]
    if kind == "ZeroDivisionError":
        1 / 0
    if kind == "AssertionError":
        assert 1 == 2, "invariant broken"
    if kind == "RuntimeError":
        raise RuntimeError("runtime trouble")
    if kind == "TypeError":
        len(5)  # type: ignore[arg-type]
    if kind == "CustomError":
        raise CustomError(7)
    if kind == "chained":
        try:
            raise KeyError("inner")
        except KeyError as exc:
            raise RuntimeError("outer") from exc
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
    def signal_self(self, sig: int) -> None:
        os.kill(os.getpid(), sig)

    @endpoint
    def poll_setting(self) -> str | None:
        return os.environ.get("HYPERACTOR_MESH_SUPERVISION_POLL_FREQUENCY")


class Supervisor(Actor):
    """Owns a child mesh and records the MeshFailures its __supervise__ receives."""

    def __init__(self, ranks: int) -> None:
        self.failures: list[dict] = []
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
        else:
            os.kill(child.pid.call_one().get(), signal.SIGKILL)

    @endpoint
    def ping_child(self, rank: int) -> str:
        try:
            return f"ok {self.children.slice(gpus=rank).ping.call_one().get()}"
        except Exception as exc:
            return f"error {type(exc).__name__}"

    @endpoint
    def seen(self) -> list[dict]:
        return list(self.failures)

    def __supervise__(self, failure) -> bool:
        self.failures.append({"type": type(failure).__name__, "report": failure.report(),
                              "mesh_name": str(failure.mesh_name)})
        return True  # handled: do not escalate to the client
