"""Actors of the RDMA pack (shipped to proc processes by value)."""

from __future__ import annotations

import gc
import os

import torch
from monarch.actor import Actor, current_rank, endpoint
from monarch.rdma import RDMABuffer


def pattern(n: int, seed: int) -> torch.Tensor:
    """n bytes that differ at every offset for a given seed (uint8, deterministic)."""
    idx = torch.arange(n, dtype=torch.int64)
    return ((idx * 131 + seed * 17 + (idx >> 8)) % 251).to(torch.uint8)


def chunk_mb() -> int:
    """The TCP transport's chunk size (MiB) as this process's Monarch configuration has it."""
    from monarch.config import get_global_config

    return int(get_global_config()["rdma_max_chunk_size_mb"])


class Owner(Actor):
    """Owns memory and hands out RDMABuffers over it."""

    def __init__(self) -> None:
        self.mem: dict[str, torch.Tensor] = {}
        self.kept: list[torch.Tensor] = []

    @endpoint
    def set_chunk_mb(self, mb: int) -> int:
        """Lower this proc's TCP chunk size (reads and writes this proc initiates chunk by it)."""
        import monarch.config

        monarch.config.configure(rdma_max_chunk_size_mb=mb)
        return chunk_mb()

    @endpoint
    def make(self, key: str, n: int, seed: int, dtype: str = "uint8", offset: int = 0,
             device: str = "cpu") -> RDMABuffer:
        base = pattern(n * torch.empty((), dtype=getattr(torch, dtype)).element_size() + offset, seed).to(device)
        self.mem[key] = base
        view = base[offset:]
        if dtype != "uint8":
            view = view.view(getattr(torch, dtype))
        return RDMABuffer(view)

    @endpoint
    def make_views(self, key: str, n: int, seed: int, ranges: list[tuple[int, int]]) -> list[RDMABuffer]:
        """One tensor of n bytes and a buffer over each [start, stop) of it."""
        self.mem[key] = pattern(n, seed)
        return [RDMABuffer(self.mem[key][start:stop]) for start, stop in ranges]

    @endpoint
    def make_unreferenced_view(self, n: int, seed: int) -> RDMABuffer:
        """A buffer over a view of a tensor this actor keeps no reference to; then allocate and
        fill as much again, so freed memory would be reused and overwritten."""
        base = pattern(n + 64, seed)
        buf = RDMABuffer(base[32:32 + n])
        del base
        gc.collect()
        self.kept = [torch.full((n + 64,), 0xAB, dtype=torch.uint8) for _ in range(16)]
        return buf

    @endpoint
    def overwrite(self, key: str, seed: int) -> None:
        """Change the owned tensor in place (the buffer's memory), not through RDMA."""
        self.mem[key].copy_(pattern(self.mem[key].numel(), seed))

    @endpoint
    def digest(self, key: str, offset: int = 0) -> list[int]:
        t = self.mem[key][offset:]
        return t.tolist() if t.numel() <= 64 else [int(t.sum()), int(t[:7].sum()), int(t[-7:].sum()), t.numel()]

    @endpoint
    def equal_to(self, key: str, n: int, seed: int, offset: int = 0) -> bool:
        return bool(torch.equal(self.mem[key][offset:offset + n].cpu(), pattern(n, seed)))

    @endpoint
    def bytes_at(self, key: str, start: int, stop: int) -> list[int]:
        return self.mem[key][start:stop].tolist()

    @endpoint
    def drop(self, key: str) -> None:
        self.mem.pop(key, None)

    @endpoint
    def read_remote(self, buf: RDMABuffer, n: int, seed: int, device: str = "cpu") -> bool:
        dst = torch.zeros(n, dtype=torch.uint8, device=device)
        buf.read_into(dst).get()
        return bool(torch.equal(dst.cpu(), pattern(n, seed)))

    @endpoint
    def write_remote(self, buf: RDMABuffer, n: int, seed: int) -> None:
        buf.write_from(pattern(n, seed)).get()

    @endpoint
    def write_own_part(self, bufs: list[RDMABuffer], seeds: list[int]) -> int:
        """Rank r writes pattern(seeds[r]) into bufs[r] (several actors at once)."""
        rank = current_rank().rank
        bufs[rank].write_from(pattern(bufs[rank].size(), seeds[rank])).get()
        return rank

    @endpoint
    def read_whole(self, buf: RDMABuffer) -> list[int]:
        dst = torch.zeros(buf.size(), dtype=torch.uint8)
        buf.read_into(dst).get()
        return [int(dst.sum()), int((dst.to(torch.int64) * torch.arange(dst.numel())).sum())]

    @endpoint
    def chunk_mb(self) -> int:
        return chunk_mb()

    @endpoint
    def pid(self) -> int:
        return os.getpid()
