"""Case bodies run on every rank of the persistent rank pool (porting.matrix.rank_pool).

Each returns None on success and raises AssertionError (with what differed) otherwise.
References are built on every rank from the same seed, single-process, then compared with
``full_tensor()``: exact for integers, dtype tolerances otherwise.
"""

from __future__ import annotations

import torch
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor

DTYPES = {
    "float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16,
    "float16": torch.float16, "int32": torch.int32, "int64": torch.int64,
}
TOL = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-12, 1e-12), torch.bfloat16: (2e-2, 2e-2),
       torch.float16: (2e-3, 2e-3)}


def placement(name: str):
    """'S<k>' -> Shard(k), 'R' -> Replicate(), 'P<op>' -> Partial(op)."""
    if name.startswith("S"):
        return Shard(int(name[1:]))
    if name.startswith("P"):
        return Partial(name[1:])
    if name == "R":
        return Replicate()
    raise ValueError(f"unknown placement name {name!r}")


def reference(shape, dtype, device, seed=1234):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        t = torch.randn(shape, generator=g, dtype=torch.float64)
    else:
        t = torch.randint(-50, 50, shape, generator=g, dtype=torch.int64)
    return t.to(dtype).to(device)


def check_equal(got, want, what):
    got = got.cpu()
    want = want.cpu()
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)} != {tuple(want.shape)}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    if not want.dtype.is_floating_point:
        assert torch.equal(got, want), f"{what}: integer result differs in {(got != want).sum().item()} element(s)"
        return
    rtol, atol = TOL[want.dtype]
    scale = max(1.0, want.double().abs().max().item()) if want.numel() else 1.0
    if not torch.allclose(got.double(), want.double(), rtol=rtol, atol=atol * scale):
        diff = (got.double() - want.double()).abs().max().item()
        raise AssertionError(f"{what}: max abs difference {diff} beyond rtol={rtol} atol={atol}")


def partial_locals(full, kind, rank, world, seed=99):
    """Per-rank local tensors whose sum/avg/max over ranks is exactly ``full``."""
    g = torch.Generator().manual_seed(seed)
    noise = torch.randint(0, 7, (world,) + tuple(full.shape), generator=g).to(full.dtype).to(full.device)
    if kind == "sum":  # parts: noise_r for r>0, full - sum(others) on rank 0
        return full - noise[1:].sum(0) if rank == 0 else noise[rank]
    if kind == "avg":  # full + delta_r with sum(delta) == 0
        floating = full.dtype.is_floating_point
        delta = noise - noise.mean(0) if floating else noise - noise.sum(0, keepdim=True) // world
        if not full.dtype.is_floating_point:
            delta[0] -= delta.sum(0)
        return full + delta[rank]
    if kind == "max":  # every rank at or below full; rank (i % world) holds it exactly
        owner = torch.arange(full.numel(), device=full.device).reshape(full.shape) % world
        return torch.where(owner == rank, full, full - noise[rank] - 1)
    raise ValueError(kind)


def make_dtensor(ctx, mesh_name, names, full):
    mesh = ctx.mesh(mesh_name)
    placements = [placement(n) for n in names]
    partial = [(i, n) for i, n in enumerate(names) if n.startswith("P")]
    if not partial:
        return distribute_tensor(full, mesh, placements)
    # Build the local tensor: shard over non-partial dims, split the value over partial dims.
    coord = mesh.get_coordinate()
    local = full
    for dim, n in enumerate(names):
        if n.startswith("P"):
            local = partial_locals(local, n[1:], coord[dim], mesh.size(dim), seed=99 + dim)
    for dim, n in enumerate(names):
        if n.startswith("S"):
            d = int(n[1:])
            chunks = torch.chunk(local, mesh.size(dim), dim=d)
            local = chunks[coord[dim]] if coord[dim] < len(chunks) else local.narrow(d, 0, 0)
    return DTensor.from_local(local.contiguous(), mesh, placements, run_check=False,
                              shape=full.shape, stride=full.stride())


def _torch_version() -> tuple[int, int]:
    major, minor = torch.__version__.split("+")[0].split(".")[:2]
    return int(major), int(minor)


def to_partial_supported(src, dst) -> bool:
    """Whether DTensor redistributes ``src`` to the Partial placements in ``dst`` (1-D).

    torch 2.14 added Shard -> Partial(sum): each rank keeps its shard in place inside a
    zero tensor of the full shape (the sum over ranks is the full tensor). Replicate ->
    Partial and every other Partial kind are still rejected ('only Shard to Partial(sum)').
    torch 2.13 and older reject every redistribution to a Partial placement.
    """
    return (_torch_version() >= (2, 14) and len(src) == 1 and src[0] in ("S0", "S1")
            and list(dst) == ["Psum"])


def collect(label, values, check):
    """Run ``check(value)`` for every value; one AssertionError naming each failing value.

    Every rank runs the same values in the same order (their collectives pair up); a failed
    check is recorded, not raised, so no rank leaves the loop early and strands the others.
    """
    failures = []
    for value in values:
        try:
            check(value)
        except AssertionError as exc:
            failures.append(f"{label}={value}: {exc}")
    if failures:
        raise AssertionError(f"{len(failures)} of {len(values)} failed:\n" + "\n".join(failures))


def redistribute(ctx, mesh, src, dst, shapes, dtypes):
    """``src`` -> ``dst`` for every (shape, dtype) given: the values folded into one case."""
    combos = [(tuple(shape), dtype) for shape in shapes for dtype in dtypes]
    collect("shape,dtype", combos, lambda c: _redistribute_one(ctx, mesh, src, dst, c[0], c[1]))
    return "ok"


def _redistribute_one(ctx, mesh, src, dst, shape, dtype):
    full = reference(shape, DTYPES[dtype], ctx.device)
    d = make_dtensor(ctx, mesh, src, full)
    as_built = d.full_tensor()
    if to_partial_supported(src, dst):
        check_equal(as_built, full, f"{src} as built")
        return _shard_to_partial_sum(ctx, mesh, d, src, full)
    r = d.redistribute(ctx.mesh(mesh), [placement(n) for n in dst])
    gathered = r.full_tensor()  # collectives first: a local assertion must not strand the other ranks
    check_equal(as_built, full, f"{src} as built")
    local = r.to_local()
    assert [str(p) for p in r.placements] == [str(placement(n)) for n in dst], f"placements {r.placements}"
    if len(dst) == 1 and dst[0] == "R":
        check_equal(local, full, "replicated local tensor")
    if len(dst) == 1 and dst[0] in ("S0", "S1"):  # the local shard is this coordinate's torch.chunk piece
        d_ = int(dst[0][1])
        chunks = torch.chunk(full, ctx.mesh(mesh).size(0), dim=d_)
        c = ctx.mesh(mesh).get_coordinate()[0]
        if c < len(chunks):
            check_equal(local, chunks[c], f"local shard of {dst[0]}")
        else:
            assert local.numel() == 0, f"rank past the last chunk holds {tuple(local.shape)}, expected empty"
    check_equal(gathered, full, f"{src} -> {dst}")


def redistribute_same(ctx, mesh, layouts):
    """Redistribute to the placements a DTensor already has: the short cut reuses the local
    tensor (same storage, no collective) and the value is unchanged."""
    def check(names):
        full = reference((7, 6), torch.float32, ctx.device)
        d = make_dtensor(ctx, mesh, names, full)
        r = d.redistribute(ctx.mesh(mesh), [placement(n) for n in names])
        gathered = r.full_tensor()
        assert r.to_local().data_ptr() == d.to_local().data_ptr(), "no-op redistribute copied the local tensor"
        check_equal(gathered, full, f"{names} -> {names}")

    collect("layout", layouts, check)
    return "ok"


def to_partial_rejected(ctx, pairs):
    """Every (mesh, src, dst) in ``pairs`` is refused by DTensor.redistribute's argument check
    (before any communication), with the message naming both placements."""
    def check(pair):
        mesh, src, dst = pair
        d = make_dtensor(ctx, mesh, src, reference((8, 12), torch.float32, ctx.device))
        try:
            d.redistribute(ctx.mesh(mesh), [placement(n) for n in dst])
        except RuntimeError as exc:
            assert _rejection_matches(src, dst, str(exc)), f"unexpected error text: {exc}"
            return
        raise AssertionError("accepted; expected the to-Partial rejection")

    collect("mesh,src,dst", [tuple(p) for p in pairs], check)
    return "rejected"


def _rejection_matches(src, dst, message):
    if _torch_version() < (2, 14):
        return "redistribute" in message.lower()
    i = next(i for i, n in enumerate(dst) if n.startswith("P") and n != src[i])
    return message == (f"Can not redistribute from {placement(src[i])} to {placement(dst[i])}, "
                       "only Shard to Partial(sum) redistribution is supported!")


def _shard_to_partial_sum(ctx, mesh, d, src, full):
    """Shard(k) -> Partial(sum): a full-shape local tensor holding this rank's chunk in
    place and zeros elsewhere; full_tensor() (the sum over ranks) is the reference."""
    r = d.redistribute(ctx.mesh(mesh), [Partial("sum")])
    gathered = r.full_tensor()  # collective first: a local assertion must not strand the other ranks
    local = r.to_local()
    assert [str(p) for p in r.placements] == ["P(sum)"], f"placements {r.placements}"
    k = int(src[0][1])
    m = ctx.mesh(mesh)
    c = m.get_coordinate()[0]
    expect = torch.zeros_like(full)
    chunks = torch.chunk(full, m.size(0), dim=k)
    if c < len(chunks):
        start = sum(ch.shape[k] for ch in chunks[:c])
        expect.narrow(k, start, chunks[c].shape[k]).copy_(chunks[c])
    check_equal(local, expect, f"local tensor of {src} -> Partial(sum)")
    check_equal(gathered, full, f"{src} -> ['Psum']")
    return "ok"


ELEMENTWISE = {  # one pointwise strategy for all of them on Shard/Replicate inputs
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "neg_abs": lambda a, b: (-a).abs(),
    "maximum": lambda a, b: torch.maximum(a, b),
}


def elementwise(ctx, mesh, names, shape):
    """Every ELEMENTWISE op x every dtype on one layout (the values only change data)."""
    combos = [(op, dtype) for op in ELEMENTWISE for dtype in DTYPES]
    collect("op,dtype", combos, lambda c: _elementwise_one(ctx, mesh, names, c[0], c[1], shape))


def _elementwise_one(ctx, mesh, names, op, dtype, shape):
    dt = DTYPES[dtype]
    a = reference(shape, dt, ctx.device, seed=1)
    b = reference(shape, dt, ctx.device, seed=2)
    want = ELEMENTWISE[op](a, b)
    da, db = make_dtensor(ctx, mesh, names, a), make_dtensor(ctx, mesh, names, b)
    got = ELEMENTWISE[op](da, db)
    gathered = got.full_tensor()
    assert [str(p) for p in got.placements] == [str(placement(n)) for n in names], \
        f"elementwise {op} changed placements to {got.placements}"
    check_equal(gathered, want, f"{op} on {names}")


PARTIAL_POINTWISE = {  # name -> (op, whether the pending sum survives: linear in the Partial input)
    "add": (lambda a, b: a + b, True),
    "sub": (lambda a, b: a - b, True),
    "neg": (lambda a, b: -a, True),
    "mul_scalar": (lambda a, b: a * 3.0, True),
    "div_scalar": (lambda a, b: a / 4.0, True),
    "mul": (lambda a, b: a * b, True),  # linear in each factor: one is replicated, the other stays pending
    "abs": (lambda a, b: a.abs(), False),
    "maximum": (lambda a, b: torch.maximum(a, b), False),
}


def pointwise_partial(ctx, mesh, names, op):
    """A pointwise op on Partial(sum) inputs: ops linear in an input keep its pending sum
    (a product reduces one factor and keeps the other pending), the others reduce it first;
    the value is the single-process one."""
    fn, linear = PARTIAL_POINTWISE[op]
    a = reference((6, 10), torch.float32, ctx.device, seed=1)
    b = reference((6, 10), torch.float32, ctx.device, seed=2)
    got = fn(make_dtensor(ctx, mesh, names, a), make_dtensor(ctx, mesh, names, b))
    gathered = got.full_tensor()
    partial_dims = [i for i, n in enumerate(names) if n.startswith("P")]
    kept = all(got.placements[i].is_partial() for i in partial_dims)
    assert kept == linear, f"{op}: output placements {got.placements}; pending sum kept={kept}, expected {linear}"
    check_equal(gathered, fn(a, b), f"{op} on {names}")


MATMUL = {  # name -> (placements of a, placements of b, expected placement of a @ b)
    "S0xR": (["S0"], ["R"], "S(0)"),
    "RxS1": (["R"], ["S1"], "S(1)"),
    "S1xS0": (["S1"], ["S0"], "P(sum)"),
    "RxR": (["R"], ["R"], "R"),
    "S0xS1": (["S0"], ["S1"], None),  # torch picks a strategy; only the value is checked
}


def matmul(ctx, mesh, pattern, mkn, dtypes=("float32", "float64", "bfloat16")):
    collect("dtype", list(dtypes), lambda dtype: _matmul_one(ctx, mesh, pattern, dtype, mkn))


def _matmul_one(ctx, mesh, pattern, dtype, mkn):
    m, k, n = mkn
    dt = DTYPES[dtype]
    a = reference((m, k), dt, ctx.device, seed=3)
    b = reference((k, n), dt, ctx.device, seed=4)
    want = (a.double() @ b.double()).to(dt) if dt in (torch.bfloat16, torch.float16) else a @ b
    pa, pb, expect = MATMUL[pattern]
    got = make_dtensor(ctx, mesh, pa, a) @ make_dtensor(ctx, mesh, pb, b)
    gathered = got.full_tensor()
    if expect is not None and m % 4 == 0 and n % 4 == 0:  # uneven: torch may pick another strategy
        assert str(got.placements[0]) == expect, f"{pattern}: propagated {got.placements[0]}, expected {expect}"
    check_equal(gathered, want, f"matmul {pattern}")


REDUCTION_DTYPES = {"sum": ("float32", "int64"), "mean": ("float32",),  # torch.mean has no integer form
                    "amax": ("float32", "int64"), "amin": ("float32", "int64")}


def reduction(ctx, mesh, names, op, dim, shape=(7, 11), dtypes=None):
    dtypes = list(dtypes or REDUCTION_DTYPES[op])
    collect("dtype", dtypes, lambda dtype: _reduction_one(ctx, mesh, names, op, dim, dtype, shape))


def reduction_replicated(ctx, mesh, ops, dims):
    """Every (op, dim) on a replicated input, folded into one case: a Replicate placement is
    kept whatever the op and the reduced dims (no Partial, no collective), so the pairs differ
    only in torch's local kernel; each failing pair is named."""
    pairs = [(op, dim) for op in ops for dim in dims]
    collect("op,dim", pairs, lambda pair: reduction(ctx, mesh, ["R"], pair[0], pair[1]))
    return "ok"


def _reduction_one(ctx, mesh, names, op, dim, dtype, shape):
    dt = DTYPES[dtype]
    full = reference(tuple(shape), dt, ctx.device, seed=5)
    d = make_dtensor(ctx, mesh, names, full)
    fn = {"sum": torch.sum, "mean": torch.mean, "amax": torch.amax, "amin": torch.amin}[op]
    want = fn(full) if dim is None else fn(full, dim=dim)
    got = fn(d) if dim is None else fn(d, dim=dim)
    check_equal(got.full_tensor(), want, f"{op}(dim={dim}) on {names}")


VIEWS = {
    "flatten": lambda t: t.flatten(),
    "reshape": lambda t: t.reshape(4, -1),
    "transpose": lambda t: t.transpose(0, 1),
    "unsqueeze": lambda t: t.unsqueeze(1),
    "slice_rows": lambda t: t[1:5],
    "view_split_last": lambda t: t.view(8, 4, 3),
}


def view_replicated(ctx, mesh, ops):
    """Every view op on a replicated input, folded into one case (Replicate passes through
    each op's dim map unchanged); each failing op is named."""
    collect("op", list(ops), lambda op: view(ctx, mesh, ["R"], op))
    return "ok"


def view(ctx, mesh, names, op):
    full = reference((8, 12), torch.float32, ctx.device, seed=6)
    d = make_dtensor(ctx, mesh, names, full)
    check_equal(VIEWS[op](d).full_tensor(), VIEWS[op](full), f"{op} on {names}")


def _placed(memory, gpu_path):
    """(native library, torch device) for a placement: the cpu build on host tensors, the
    GPU build on device tensors (porting.native.load_for)."""
    from porting import native

    return native.load_for(memory, gpu_path), ("cuda" if memory == "device" else "cpu")


def native_shard(ctx, mesh, dim, shape, dtypes, memory="host", gpu_path=None):
    """gather_shard/scatter_shard against DTensor's local shard for each dtype (the kernels
    move bytes: the dtype only changes the element width, so the dtypes share one case)."""
    outcomes: set[str] = set()
    collect("dtype", list(dtypes), lambda dtype: outcomes.add(
        _native_shard_one(ctx, mesh, dim, shape, dtype, memory, gpu_path)))
    return "/".join(sorted(outcomes))


def _native_shard_one(ctx, mesh, dim, shape, dtype, memory, gpu_path):
    from porting import native

    lib, where = _placed(memory, gpu_path)
    full = reference(shape, DTYPES[dtype], ctx.device, seed=7)
    d = make_dtensor(ctx, mesh, [f"S{dim}"], full)
    full = full.to(where)
    m = ctx.mesh(mesh)
    index = m.get_coordinate()[0]
    chunks = len(torch.chunk(full, m.size(0), dim=dim))
    local = d.to_local().to(where)
    if index >= chunks:  # DTensor pads nothing: this rank's shard is empty
        assert local.numel() == 0, "rank past the last chunk should hold an empty shard"
        return "empty"
    staged = native.gather_shard(full, dim, m.size(0), index, lib=lib)
    assert staged.device.type == where, f"gather_shard returned a {staged.device} tensor for {memory} memory"
    check_equal(staged, local, f"native.gather_shard dim {dim} index {index}")
    out = torch.zeros_like(full)
    native.scatter_shard(local.contiguous(), out, dim, m.size(0), index, lib=lib)
    check_equal(torch.chunk(out, m.size(0), dim=dim)[index], local, "native.scatter_shard")
    return "ok"


def native_reduce(ctx, mesh, kind, memory="host", gpu_path=None):
    from porting import native

    lib, where = _placed(memory, gpu_path)
    full = reference((6, 5), torch.float32, ctx.device, seed=8)
    m = ctx.mesh(mesh)
    world = m.size(0)
    locals_ = [partial_locals(full, kind, r, world) for r in range(world)]
    d = DTensor.from_local(locals_[m.get_coordinate()[0]], m, [Partial(kind)], run_check=False)
    via_dtensor = d.full_tensor()
    via_native = native.reduce([t.to(where) for t in locals_], kind, lib=lib)
    check_equal(via_native, via_dtensor, f"native.reduce {kind} vs DTensor Partial({kind})")
