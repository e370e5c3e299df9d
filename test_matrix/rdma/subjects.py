"""Actors of the RDMA pack (shipped to proc processes by value)."""

from __future__ import annotations

import os

import torch
from monarch.actor import Actor, endpoint
from monarch.rdma import RDMABuffer


def pattern(n: int, seed: int) -> torch.Tensor:
    """n bytes that differ at every offset for a given seed (uint8, deterministic)."""
    idx = torch.arange(n, dtype=torch.int64)
    return ((idx * 131 + seed * 17 + (idx >> 8)) % 251).to(torch.uint8)


class Owner(Actor):
    """Owns memory and hands out RDMABuffers over it."""

    def __init__(self) -> None:
        self.mem: dict[str, torch.Tensor] = {}

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
    def pid(self) -> int:
        return os.getpid()
