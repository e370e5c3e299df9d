"""Actors of test_messages.py (shipped to proc processes by value): a journal of what arrived in
which order, payload echoes and sizes, self-calls, cancellation inside an actor and odd endpoint
shapes (an async generator, a raised CancelledError, keyword and variadic parameters)."""

from __future__ import annotations

import asyncio
import os

from monarch.actor import Actor, current_rank, endpoint


class Journal(Actor):
    """Records (tag, seq) in arrival order; echoes payloads."""

    def __init__(self) -> None:
        self.log: list[tuple[str, int]] = []
        self._self_mesh = None

    @endpoint
    def note(self, tag: str, seq: int) -> int:
        self.log.append((tag, seq))
        return len(self.log)

    @endpoint
    def take(self) -> list[tuple[str, int]]:
        out, self.log = self.log, []
        return out

    @endpoint
    def rank(self) -> int:
        return current_rank().rank

    @endpoint
    def echo(self, value):
        return value

    @endpoint
    def size_of(self, blob: bytes) -> int:
        return len(blob)

    @endpoint
    def make_bytes(self, n: int) -> bytes:
        return os.urandom(16) * (n // 16) + b"\x01" * (n % 16)

    @endpoint
    def shaped(self, a: int, b: int = 2, *rest: int, scale: int = 1, **named: int) -> list:
        return [a, b, list(rest), scale, sorted(named.items())]

    @endpoint
    def send_to(self, other, tag: str, count: int) -> int:
        """Note ``count`` messages on ``other`` in sequence, with broadcast (no reply awaited)."""
        for seq in range(count):
            other.note.broadcast(tag, seq)
        return count

    @endpoint
    def call_myself(self, timeout: float) -> str:
        """A sync actor calling its own endpoint and blocking for the reply."""
        try:
            return f"ok {self._self_mesh.rank.call_one().get(timeout=timeout)}"
        except Exception as exc:
            return f"error {type(exc).__name__}"

    @endpoint
    def keep_self(self, mesh) -> None:
        """The client hands the actor a mesh of itself (an actor has no handle to its own mesh)."""
        self._self_mesh = mesh


class Awaiter(Actor):
    """Async endpoints: cancellation and odd shapes."""

    def __init__(self) -> None:
        self.finished: list[str] = []

    @endpoint
    async def slow(self, tag: str, seconds: float) -> str:
        await asyncio.sleep(seconds)
        self.finished.append(tag)
        return tag

    @endpoint
    async def done(self) -> list[str]:
        return list(self.finished)

    @endpoint
    async def wait_for_other(self, other, seconds: float, timeout: float) -> str:
        """asyncio.wait_for around another actor's reply: the wait is cancelled at the timeout."""
        try:
            return f"ok {await asyncio.wait_for(other.slow.call_one('inner', seconds), timeout)}"
        except asyncio.TimeoutError:
            return "timeout"

    @endpoint
    async def raise_cancelled(self) -> None:
        raise asyncio.CancelledError("cancelled by the endpoint itself")

    @endpoint
    async def ping(self) -> int:
        return current_rank().rank


class AsyncGeneratorEndpoint(Actor):
    """Every endpoint is ``async def``, but one is an async generator (not a coroutine function)."""

    @endpoint
    async def ping(self) -> int:
        return 0

    @endpoint
    async def agen(self, n: int):
        for i in range(n):
            yield i


class Relay(Actor):
    """Calls another actor from places other than its endpoint's own thread."""

    @endpoint
    def from_a_thread(self, other) -> list:
        """A plain thread started by the endpoint calls ``other`` and waits for it."""
        import threading

        out: list = []

        def run() -> None:
            try:
                out.append(other.rank.call_one().get(timeout=60))
            except Exception as exc:
                out.append(f"{type(exc).__name__}: {exc}")

        t = threading.Thread(target=run)
        t.start()
        t.join()
        return out

    @endpoint
    def unawaited_future(self, other):
        """Returns the Future of a call to ``other`` without waiting for it."""
        return other.rank.call_one()

    @endpoint
    def many_tensors(self, n: int):
        import torch

        return [torch.full((3,), float(i)) for i in range(n)]
