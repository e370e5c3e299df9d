"""Actors of the actor pack (shipped to proc processes by value)."""

from __future__ import annotations

import os

from monarch.actor import Actor, Port, current_rank, endpoint


class Probe(Actor):
    def __init__(self) -> None:
        self.count = 0
        self.log: list[tuple[str, int]] = []

    @endpoint
    def rank(self) -> int:
        return current_rank().rank

    @endpoint
    def point(self) -> dict[str, int]:
        r = current_rank()
        return {k: r[k] for k in r}

    @endpoint
    def echo(self, value):
        return value

    @endpoint
    def echo_tensor_meta(self, t):
        return (tuple(t.shape), str(t.dtype), t.is_contiguous(), t, t.device.type)

    @endpoint
    def bump(self) -> int:
        self.count += 1
        return self.count

    @endpoint
    def count_now(self) -> int:
        return self.count

    @endpoint
    def record(self, sender: str, seq: int) -> None:
        self.log.append((sender, seq))

    @endpoint
    def take_log(self) -> list[tuple[str, int]]:
        out, self.log = self.log, []
        return out

    @endpoint
    def pid(self) -> int:
        return os.getpid()

    @endpoint
    def numbers(self, n: int):
        for i in range(n):  # a generator: Monarch endpoints return values, not generators
            yield i

    @endpoint
    def produce(self, port: Port, n: int) -> int:
        for i in range(n):
            port.send((current_rank().rank, i))
        return n

    @endpoint
    def visibility(self, names: list[str]) -> dict:
        import torch

        return {"env": {n: os.environ.get(n) for n in names},
                "device_count": torch.cuda.device_count() if torch.cuda.is_available() else 0}


class Relay(Actor):
    """Sends ordered sequences to a Probe mesh from inside a proc (a second sender)."""

    def __init__(self, target) -> None:
        self.target = target

    @endpoint
    def send_seq(self, sender: str, n: int) -> int:
        for i in range(n):
            self.target.record.broadcast(sender, i)
        # Same sender, so this call is handled after every record above on every actor.
        self.target.count_now.call().get()
        return n


def visibility_bootstrap(var: str):
    """A bootstrap that exposes one device per proc (rank r sees device r) through ``var``."""

    def boot() -> None:
        os.environ[var] = str(current_rank().rank)

    return boot
