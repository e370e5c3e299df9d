"""A persistent pool of torch.distributed ranks for the matrix's DTensor cases.

One pool (default world size 4) lives per pytest process; each case is a function in a
test-pack file that every participating rank runs with a ``RankContext`` (rank, world size,
device, prebuilt DeviceMeshes). Spawning ranks once and reusing them keeps the sharding pack
to milliseconds per case instead of seconds.

Nothing listens on a routable address: the rendezvous is a ``FileStore`` (no socket) and
gloo/NCCL are pinned to the loopback interface.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing import connection as mp_connection
from typing import Any

LOOPBACK_ENV = {"GLOO_SOCKET_IFNAME": "lo", "NCCL_SOCKET_IFNAME": "lo", "MASTER_ADDR": "127.0.0.1"}


class RankFailure(AssertionError):
    """A case raised on a rank (the message carries that rank's traceback)."""


class PoolBroken(RuntimeError):
    """A rank died or stopped answering; the pool must be rebuilt."""


@dataclass
class RankContext:
    rank: int
    world_size: int
    device: str  # "cpu" or "cuda" (ROCm torch calls its devices "cuda" too)
    backend: str
    meshes: dict[str, Any] = field(default_factory=dict)
    scratch: dict[str, Any] = field(default_factory=dict)

    def mesh(self, name: str) -> Any:
        return self.meshes[name]


def mesh_layouts(world_size: int) -> dict[str, tuple[list[int], tuple[str, ...]]]:
    """name -> (ranks as a flat list, dim names) of the meshes every pool builds."""
    out: dict[str, tuple[list[int], tuple[str, ...]]] = {}
    if world_size >= 2:
        out["1d-2"] = ([0, 1], ("x",))
    if world_size >= 4:
        out["1d-4"] = ([0, 1, 2, 3], ("x",))
        out["2d-2x2"] = ([0, 1, 2, 3], ("dp", "tp"))
    return out


def _load(path: str, cache: dict[str, Any]) -> Any:
    module = cache.get(path)
    if module is None:
        name = "port_matrix_case_" + str(abs(hash(path)))
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"{path}: cannot load case module")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        cache[path] = module
    return module


def _rank_main(rank: int, world_size: int, store_path: str, backend: str, device: str, conn: Any) -> None:
    os.environ.update(LOOPBACK_ENV)
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import DeviceMesh

    torch.set_num_threads(1)
    if device == "cuda":
        torch.cuda.set_device(rank % torch.cuda.device_count())
    store = dist.FileStore(store_path, world_size)
    dist.init_process_group(backend, store=store, rank=rank, world_size=world_size)
    ctx = RankContext(rank=rank, world_size=world_size, device=device, backend=backend)
    for name, (ranks, dims) in mesh_layouts(world_size).items():
        shape = (2, 2) if len(dims) == 2 else (len(ranks),)
        mesh_tensor = torch.tensor(ranks).reshape(shape)
        # new_group is collective over the whole world: every rank builds every mesh.
        mesh = DeviceMesh(device, mesh_tensor, mesh_dim_names=dims)
        if rank in ranks:
            ctx.meshes[name] = mesh
    cache: dict[str, Any] = {}
    conn.send(("ready", rank))
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            break
        if msg is None:
            break
        path, func, kwargs = msg
        try:
            result = getattr(_load(path, cache), func)(ctx, **kwargs)
            conn.send(("ok", result))
        except BaseException:  # report everything; the rank stays usable
            conn.send(("err", traceback.format_exc()))
    try:
        dist.destroy_process_group()
    except Exception:
        pass


class RankPool:
    """``world_size`` rank processes; ``run(path, func, ranks=..., **kwargs)`` runs a case."""

    def __init__(self, world_size: int = 4, backend: str = "gloo", device: str = "cpu",
                 reply_timeout_s: float = 300.0, straggler_grace_s: float = 5.0) -> None:
        import multiprocessing as mp

        self.world_size = world_size
        self.backend = backend
        self.device = device
        self.reply_timeout_s = reply_timeout_s
        self.straggler_grace_s = straggler_grace_s
        self._dir = tempfile.mkdtemp(prefix="port-rank-pool-")
        ctx = mp.get_context("spawn")
        self._conns: list[Any] = []
        self._procs: list[Any] = []
        store = os.path.join(self._dir, "store")
        for rank in range(world_size):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_rank_main, args=(rank, world_size, store, backend, device, child),
                               daemon=True, name=f"port-rank-{rank}")
            proc.start()
            child.close()
            self._conns.append(parent)
            self._procs.append(proc)
        self.broken: str | None = None
        for rank in range(world_size):
            self._recv(rank)

    def _recv(self, rank: int) -> tuple[str, Any]:
        conn = self._conns[rank]
        if not conn.poll(self.reply_timeout_s):
            self.broken = f"rank {rank} did not answer within {self.reply_timeout_s:.0f}s"
            raise PoolBroken(self.broken)
        try:
            return conn.recv()
        except (EOFError, OSError):
            code = self._procs[rank].exitcode
            self.broken = f"rank {rank} died (exit code {code})"
            raise PoolBroken(self.broken) from None

    def run(self, path: str, func: str, ranks: Sequence[int] | None = None, **kwargs: Any) -> list[Any]:
        """Run ``func`` from the file ``path`` on ``ranks`` (default all); per-rank results."""
        if self.broken:
            raise PoolBroken(self.broken)
        ranks = list(range(self.world_size)) if ranks is None else list(ranks)
        for rank in ranks:
            self._conns[rank].send((path, func, kwargs))
        replies: dict[int, tuple[str, Any]] = {}
        deadline = time.monotonic() + self.reply_timeout_s
        while len(replies) < len(ranks):
            waiting = [r for r in ranks if r not in replies]
            ready = mp_connection.wait([self._conns[r] for r in waiting], timeout=max(0.0, deadline - time.monotonic()))
            if not ready:
                self.broken = (f"{func}: rank(s) {', '.join(map(str, waiting))} did not answer "
                               f"within {self.reply_timeout_s:.0f}s")
                break
            for rank in waiting:
                if self._conns[rank] in ready:
                    replies[rank] = self._recv(rank)
                    if replies[rank][0] == "err":
                        # The others may be stuck in a collective this rank never joined.
                        deadline = min(deadline, time.monotonic() + self.straggler_grace_s)
        errors = [(rank, body) for rank, (status, body) in sorted(replies.items()) if status == "err"]
        if errors:
            rank, body = errors[0]
            raise RankFailure(f"{func} failed on rank {rank} of {len(ranks)}:\n{body}")
        if self.broken:
            raise PoolBroken(self.broken)
        return [replies[rank][1] for rank in ranks]

    def close(self) -> None:
        for conn in self._conns:
            try:
                conn.send(None)
            except (OSError, BrokenPipeError):
                pass
        for proc in self._procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5)
        for conn in self._conns:
            conn.close()
        import shutil

        shutil.rmtree(self._dir, ignore_errors=True)
        _stop_resource_tracker()


def _stop_resource_tracker() -> None:
    """multiprocessing's spawn start method leaves a resource-tracker process behind until
    the interpreter exits; stop it so the session-end process check sees a clean slate."""
    try:
        from multiprocessing import resource_tracker

        resource_tracker._resource_tracker._stop()  # type: ignore[attr-defined]
    except Exception:
        pass


def run_case(pool: RankPool, fn: Callable[..., Any], ranks: Sequence[int] | None = None, **kwargs: Any) -> list[Any]:
    """Run a module-level case function (looked up by its file and name on the ranks)."""
    import inspect

    path = inspect.getsourcefile(fn)
    if path is None:
        raise ValueError(f"{fn!r}: not defined in a file")
    return pool.run(os.path.abspath(path), fn.__name__, ranks=ranks, **kwargs)
