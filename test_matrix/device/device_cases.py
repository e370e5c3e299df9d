"""Functions the device pack runs on the ranks of an NCCL/RCCL rank pool (porting.matrix.rank_pool):
each takes the rank context, runs one collective or cross-device operation on this rank's GPU
and returns what the test compares on the controller."""

from __future__ import annotations


def _dist():
    import torch
    import torch.distributed as dist

    return torch, dist


def backend_name(ctx):
    """The process group's backend and the collective library torch reports (RCCL on ROCm)."""
    torch, dist = _dist()
    version = torch.cuda.nccl.version()
    return {"backend": dist.get_backend(), "hip": torch.version.hip, "nccl_version": list(version)
            if isinstance(version, tuple) else [version]}


def all_reduce(ctx, n):
    torch, dist = _dist()
    t = torch.arange(n, dtype=torch.float32, device="cuda") * (ctx.rank + 1)
    dist.all_reduce(t)
    torch.cuda.synchronize()
    return t.cpu().tolist()


def all_gather(ctx, n):
    torch, dist = _dist()
    t = torch.full((n,), float(ctx.rank), device="cuda")
    out = [torch.empty_like(t) for _ in range(ctx.world_size)]
    dist.all_gather(out, t)
    return [o.cpu().tolist() for o in out]


def reduce_scatter(ctx, n):
    torch, dist = _dist()
    chunks = [torch.full((n,), float(ctx.rank + r), device="cuda") for r in range(ctx.world_size)]
    out = torch.empty(n, device="cuda")
    dist.reduce_scatter(out, chunks)
    return out.cpu().tolist()


def broadcast(ctx, n):
    torch, dist = _dist()
    t = torch.arange(n, device="cuda", dtype=torch.int64) if ctx.rank == 0 else torch.zeros(n, device="cuda",
                                                                                             dtype=torch.int64)
    dist.broadcast(t, src=0)
    return t.cpu().tolist()


def all_to_all(ctx, n):
    torch, dist = _dist()
    inp = torch.arange(ctx.world_size * n, device="cuda", dtype=torch.float32) + 100 * ctx.rank
    out = torch.empty_like(inp)
    dist.all_to_all_single(out, inp)
    return out.cpu().tolist()


def send_recv_ring(ctx, n):
    torch, dist = _dist()
    t = torch.full((n,), float(ctx.rank), device="cuda")
    got = torch.empty_like(t)
    right, left = (ctx.rank + 1) % ctx.world_size, (ctx.rank - 1) % ctx.world_size
    ops = [dist.P2POp(dist.isend, t, right), dist.P2POp(dist.irecv, got, left)]
    for work in dist.batch_isend_irecv(ops):
        work.wait()
    torch.cuda.synchronize()
    return got.cpu().tolist()
