"""Rank-side bodies of the c10d collective cases (run by every rank of the matrix's rank pool).

Each function takes the pool's RankContext and checks its own rank's result against values
computed here from every rank's input, with plain Python arithmetic (never a collective), so a
wrong reduction kernel, a wrong chunk offset or a lost message fails the rank that saw it. A
refusal is checked by its exception type and message. Inputs are small exact values (halves,
small integers, booleans) so that every reduction order gives the same bits.
"""

from __future__ import annotations

import datetime
import functools
import os
import re

import torch
import torch.distributed as dist

OPS = {"SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "AVG"}
INTEGRAL = ("int8", "uint8", "int16", "int32", "int64", "uint16", "uint32")


class CaseMismatch(AssertionError):
    pass


def _dtype(name: str) -> torch.dtype:
    return getattr(torch, name)


def rank_input(rank: int, dtype: str, n: int = 8, device: str = "cpu", bits: bool = False) -> torch.Tensor:
    """Rank ``rank``'s input: signed values for signed types (so MIN/MAX see the sign), halves
    for floats, a rank-dependent bit pattern for bitwise ops, a mix of True/False for bool."""
    i = torch.arange(n)
    if dtype == "bool":
        vals = ((rank * 3 + i) % 5) < 2
    elif bits:
        vals = (rank * 37 + i * 11) % 100 - (0 if dtype.startswith("uint") else 50)
    elif dtype.startswith("uint"):
        vals = (rank * 3 + i) % 4
    elif dtype in INTEGRAL:
        vals = (rank * 3 + i) % 7 - 3
    else:
        vals = ((rank * 3 + i) % 7 - 3) * 0.5
    return vals.to(_dtype(dtype)).to(device)


def _fold(op: str, values: list, world: int):
    if op == "AVG":
        total = sum(values)
        return total // world if isinstance(total, int) else total / world
    fns = {"SUM": lambda a, b: a + b, "PRODUCT": lambda a, b: a * b, "MIN": min, "MAX": max,
           "BAND": lambda a, b: a & b, "BOR": lambda a, b: a | b, "BXOR": lambda a, b: a ^ b}
    return functools.reduce(fns[op], values)


def expected_reduction(op: str, dtype: str, inputs: list[torch.Tensor], world: int) -> torch.Tensor:
    """Element-wise ``op`` over the ranks' inputs in Python ints/floats (exact for these
    values); bool follows torch's mapping (SUM/MAX/BOR: any, PRODUCT/MIN/BAND: all)."""
    cols = list(zip(*[t.cpu().tolist() for t in inputs]))
    if dtype == "bool":
        fold = {"SUM": any, "MAX": any, "BOR": any, "PRODUCT": all, "MIN": all, "BAND": all,
                "BXOR": lambda c: sum(c) % 2 == 1}[op]
        return torch.tensor([fold(c) for c in cols], dtype=torch.bool)
    out = [_fold(op, [int(v) if dtype in INTEGRAL else v for v in c], world) for c in cols]
    return torch.tensor(out, dtype=_dtype(dtype))


def check_equal(got: torch.Tensor, want: torch.Tensor, what: str, exact: bool = True) -> None:
    got = got.cpu()
    if got.dtype != want.dtype or got.shape != want.shape:
        raise CaseMismatch(f"{what}: got {got.dtype} {tuple(got.shape)}, want {want.dtype} {tuple(want.shape)}")
    if exact and not torch.equal(got, want):
        raise CaseMismatch(f"{what}: got {got.tolist()}, want {want.tolist()}")
    if not exact:
        # AVG: NCCL/RCCL pre-multiply each input by 1/world in the tensor's own precision
        # (inexact for 3 ranks), so allow a few ulps of that dtype
        eps = torch.finfo(want.dtype).eps if want.dtype.is_floating_point else 0.0
        torch.testing.assert_close(got, want, rtol=8 * eps, atol=8 * eps, msg=lambda m: f"{what}: {m}")


def expect_raise(fn, kind: type[BaseException] | tuple[type[BaseException], ...], pattern: str, what: str) -> str:
    """``fn()`` must raise ``kind`` whose message matches ``pattern``; returns the message."""
    try:
        fn()
    except kind as exc:
        if not re.search(pattern, str(exc)):
            raise CaseMismatch(f"{what}: raised {type(exc).__name__} {str(exc)[:300]!r}, "
                               f"message does not match {pattern!r}") from exc
        return str(exc)
    raise CaseMismatch(f"{what}: did not raise {kind!r} ({pattern!r})")


def _op(name: str):
    return getattr(dist.ReduceOp, name)


# ---------------------------------------------------------------------------------------
# Reductions


def all_reduce(ctx, op: str, dtype: str, n: int = 8) -> str:
    bits = op in ("BAND", "BOR", "BXOR")
    inputs = [rank_input(r, dtype, n, bits=bits) for r in range(ctx.world_size)]
    t = inputs[ctx.rank].clone().to(ctx.device)
    dist.all_reduce(t, op=_op(op))
    want = expected_reduction(op, dtype, inputs, ctx.world_size)
    check_equal(t, want, f"all_reduce {op} {dtype}", exact=op != "AVG" or dtype in INTEGRAL)
    return "ok"


def all_reduce_refused(ctx, ops: list[str], dtypes: list[str], kind: str, pattern: str) -> str:
    """Every (op, dtype) pair must be refused before anything is sent (all ranks raise);
    ``kind``: the accepted exception class names, separated by '|'."""
    known = {"RuntimeError": RuntimeError, "ValueError": ValueError, "TypeError": TypeError}
    exc = tuple(known[k] for k in kind.split("|"))
    for op in ops:
        for dtype in dtypes:
            t = rank_input(ctx.rank, dtype, 4).to(ctx.device)
            expect_raise(lambda t=t, op=op: dist.all_reduce(t, op=_op(op)), exc, pattern.format(op=op),
                         f"all_reduce {op} {dtype}")
    return "ok"


def all_reduce_premul_sum(ctx, factor: float) -> str:
    inputs = [rank_input(r, "float32") for r in range(ctx.world_size)]
    t = inputs[ctx.rank].clone().to(ctx.device)
    dist.all_reduce(t, op=dist._make_nccl_premul_sum(factor))
    want = expected_reduction("SUM", "float32", [x * factor for x in inputs], ctx.world_size)
    check_equal(t, want, f"PREMUL_SUM({factor})")
    return "ok"


def premul_sum_refused(ctx) -> str:
    t = torch.ones(2, device=ctx.device)
    expect_raise(lambda: dist.all_reduce(t, op=dist._make_nccl_premul_sum(2.0)), RuntimeError,
                 "PREMUL_SUM with Gloo", "PREMUL_SUM over gloo")
    check_equal(t, torch.ones(2), "tensor left alone by a refused PREMUL_SUM")
    return "ok"


def all_reduce_complex(ctx, op: str) -> str:
    """Complex tensors go through view_as_real (torch's Python layer): real and imaginary
    parts reduced as pairs of floats."""
    def make(r):
        return torch.complex(rank_input(r, "float32"), rank_input(r + 1, "float32"))
    inputs = [make(r) for r in range(ctx.world_size)]
    t = inputs[ctx.rank].clone().to(ctx.device)
    dist.all_reduce(t, op=_op(op))
    want = sum(inputs[1:], inputs[0].clone())
    if op == "AVG":
        want = want / ctx.world_size
    check_equal(t, want, f"all_reduce complex64 {op}", exact=op == "SUM")
    return "ok"


def all_reduce_shape(ctx, shape: str) -> str:
    """SUM over float32 tensors whose layout or size takes another branch."""
    w, r = ctx.world_size, ctx.rank
    sizes = {"zero": (0,), "fewer_than_ranks": (w - 1,), "large": (1 << 22,), "noncontig": (6, 8),
             "offset": (10,)}
    full = [torch.arange(torch.Size(sizes[shape]).numel(), dtype=torch.float32).reshape(sizes[shape]) % 17 + q
            for q in range(w)]
    t = full[r].clone().to(ctx.device)
    view = {"noncontig": lambda: t[:, ::2], "offset": lambda: t[3:]}.get(shape, lambda: t)()
    dist.all_reduce(view)
    want = sum(full[1:], full[0].clone())
    if shape == "noncontig":
        # only the strided view is reduced; the columns in between keep this rank's values
        want[:, 1::2] = full[r][:, 1::2]
    elif shape == "offset":
        # a contiguous view starting 3 elements into its storage: the head is left alone
        want[:3] = full[r][:3]
    check_equal(t, want, f"all_reduce shape {shape}")
    return "ok"


def all_reduce_sparse(ctx, layout: str) -> str:
    """gloo's sparse all-reduce (indices and values gathered, then summed): one nnz per rank
    (coalesced), or an uncoalesced tensor whose nnz differs per rank (rank r has r + 1)."""
    w, r = ctx.world_size, ctx.rank
    if layout == "coalesced":
        t = torch.sparse_coo_tensor([[r]], [float(r + 1)], (w,)).coalesce()
        want = torch.arange(1, w + 1, dtype=torch.float32)
    else:
        t = torch.sparse_coo_tensor([list(range(r + 1))], [1.0] * (r + 1), (w,))
        want = torch.tensor([float(w - i) for i in range(w)])
    dist.all_reduce(t)
    check_equal(t.to_dense(), want, f"sparse all_reduce {layout}")
    return "ok"


def reduce(ctx, op: str, dtype: str, dst: int) -> str:
    """The reduced value on the root only (other ranks' buffers are scratch)."""
    root = dst % ctx.world_size
    bits = op in ("BAND", "BOR", "BXOR")
    inputs = [rank_input(r, dtype, bits=bits) for r in range(ctx.world_size)]
    t = inputs[ctx.rank].clone().to(ctx.device)
    dist.reduce(t, root, op=_op(op))
    if ctx.rank == root:
        check_equal(t, expected_reduction(op, dtype, inputs, ctx.world_size), f"reduce {op} {dtype} to {root}",
                    exact=op != "AVG")
    return "ok"


def reduce_ops_looped(ctx, pairs: list[tuple[str, str]]) -> str:
    for op, dtype in pairs:
        reduce(ctx, op, dtype, dst=1)
    return "ok"


def reduce_scatter_tensor(ctx, op: str, dtype: str, chunk: int = 3) -> str:
    w, r = ctx.world_size, ctx.rank
    bits = op in ("BAND", "BOR", "BXOR")
    inputs = [rank_input(q, dtype, chunk * w, bits=bits) for q in range(w)]
    out = torch.zeros(chunk, dtype=_dtype(dtype), device=ctx.device)
    dist.reduce_scatter_tensor(out, inputs[r].to(ctx.device), op=_op(op))
    want = expected_reduction(op, dtype, [x[r * chunk:(r + 1) * chunk] for x in inputs], w)
    check_equal(out, want, f"reduce_scatter_tensor {op} {dtype}", exact=op != "AVG" or dtype in INTEGRAL)
    return "ok"


def reduce_scatter_looped(ctx, pairs: list[tuple[str, str]]) -> str:
    for op, dtype in pairs:
        reduce_scatter_tensor(ctx, op, dtype)
    return "ok"


def reduce_scatter_list(ctx) -> str:
    """The list form: rank q contributes inputs[q][i] to rank i (chunks of different sizes
    per destination are refused elsewhere; here each destination gets i + 1 elements)."""
    w, r = ctx.world_size, ctx.rank
    chunks = [[rank_input(q, "float32", i + 1) + i for i in range(w)] for q in range(w)]
    out = torch.zeros(r + 1, device=ctx.device)
    dist.reduce_scatter(out, [c.to(ctx.device) for c in chunks[r]])
    want = sum((chunks[q][r] for q in range(1, w)), chunks[0][r].clone())
    check_equal(out, want, "reduce_scatter list")
    return "ok"


# ---------------------------------------------------------------------------------------
# Data movement (dtype changes only the element width: dtypes are looped in one case)

MOVE_DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int32", "int64", "bool"]


def broadcast(ctx, src: int, dtypes: list[str], n: int = 8, layout: str = "dense") -> str:
    root = src % ctx.world_size
    for dtype in dtypes:
        want = rank_input(root, dtype, n)
        if dtype == "complex64":
            want = torch.complex(rank_input(root, "float32", n), rank_input(root + 5, "float32", n))
        base = want if ctx.rank == root else torch.zeros_like(want)
        if layout == "transposed":
            # a non-contiguous (transposed) tensor: torch broadcasts a contiguous copy and
            # writes the received values back through the strides
            want = want.reshape(2, n // 2)
            base = base.reshape(2, n // 2).t().contiguous().t()
        t = base.clone(memory_format=torch.preserve_format).to(ctx.device)
        if layout == "transposed" and t.is_contiguous():
            raise CaseMismatch("the transposed layout lost its strides before the broadcast")
        dist.broadcast(t, root)
        check_equal(t, want, f"broadcast {dtype} from {root} ({layout})")
    return "ok"


def all_gather(ctx, dtypes: list[str], n: int = 5) -> str:
    w = ctx.world_size
    for dtype in dtypes:
        if dtype == "complex64":
            mk = lambda q: torch.complex(rank_input(q, "float32", n), rank_input(q + 2, "float32", n))  # noqa: E731
        else:
            mk = functools.partial(rank_input, dtype=dtype, n=n)
        out = [torch.zeros(n, dtype=mk(0).dtype, device=ctx.device) for _ in range(w)]
        dist.all_gather(out, mk(ctx.rank).to(ctx.device))
        for q in range(w):
            check_equal(out[q], mk(q), f"all_gather {dtype} slot {q}")
    return "ok"


def all_gather_into_tensor(ctx, stacked: bool, dtype: str = "float32", n: int = 3) -> str:
    w = ctx.world_size
    out = torch.zeros((w, n) if stacked else (w * n,), dtype=_dtype(dtype), device=ctx.device)
    dist.all_gather_into_tensor(out, rank_input(ctx.rank, dtype, n).to(ctx.device))
    want = torch.stack([rank_input(q, dtype, n) for q in range(w)])
    check_equal(out, want if stacked else want.reshape(-1), f"all_gather_into_tensor stacked={stacked}")
    return "ok"


def all_gather_uneven(ctx) -> str:
    """Rank q sends q + 1 elements; the receiving list is sized accordingly."""
    w = ctx.world_size
    out = [torch.zeros(q + 1, device=ctx.device) for q in range(w)]
    dist.all_gather(out, rank_input(ctx.rank, "float32", ctx.rank + 1).to(ctx.device))
    for q in range(w):
        check_equal(out[q], rank_input(q, "float32", q + 1), f"uneven all_gather slot {q}")
    return "ok"


def all_gather_gloo_refusal(ctx, what: str) -> str:
    w, r = ctx.world_size, ctx.rank
    if what == "stacked_output":
        out = torch.zeros(w, 2)
        call = lambda: dist.all_gather_into_tensor(out, torch.ones(2))  # noqa: E731
    else:
        outs = [torch.zeros(q + 1) for q in range(w)]
        call = lambda: dist.all_gather(outs, torch.ones(r + 1))  # noqa: E731
    expect_raise(call, RuntimeError, r"ProcessGroupGloo::allgather: invalid tensor size", f"gloo {what}")
    return "ok"


def gather(ctx, dst: int) -> str:
    w, root = ctx.world_size, dst % ctx.world_size
    out = [torch.zeros(4, device=ctx.device) for _ in range(w)] if ctx.rank == root else None
    dist.gather(rank_input(ctx.rank, "float32", 4).to(ctx.device), out, dst=root)
    if out is not None:
        for q in range(w):
            check_equal(out[q], rank_input(q, "float32", 4), f"gather slot {q} on {root}")
    return "ok"


def scatter(ctx, src: int) -> str:
    w, root = ctx.world_size, src % ctx.world_size
    parts = [rank_input(q, "int64", 4) * 10 + q for q in range(w)]
    out = torch.zeros(4, dtype=torch.int64, device=ctx.device)
    dist.scatter(out, [p.to(ctx.device) for p in parts] if ctx.rank == root else None, src=root)
    check_equal(out, parts[ctx.rank], f"scatter from {root}")
    return "ok"


def _a2a_piece(src: int, dst: int, n: int, dtype: str = "float32") -> torch.Tensor:
    return (torch.arange(n) + 100 * src + 10 * dst).to(_dtype(dtype))


def all_to_all_single(ctx, splits: str, dtypes: list[str]) -> str:
    """even: n elements to each rank; uneven: rank r sends dst + r + 1 to dst; zero: nothing
    is sent to or from rank 0 (zero-length splits on every rank)."""
    w, r = ctx.world_size, ctx.rank
    size = {"even": lambda s, d: 2, "uneven": lambda s, d: d + s + 1,
            "zero": lambda s, d: 0 if 0 in (s, d) else 2}[splits]
    for dtype in dtypes:
        inp = torch.cat([_a2a_piece(r, d, size(r, d), dtype) for d in range(w)]).to(ctx.device)
        want = torch.cat([_a2a_piece(s, r, size(s, r), dtype) for s in range(w)])
        out = torch.zeros(want.numel(), dtype=want.dtype, device=ctx.device)
        if splits == "even":
            dist.all_to_all_single(out, inp)
        else:
            dist.all_to_all_single(out, inp, [size(s, r) for s in range(w)], [size(r, d) for d in range(w)])
        check_equal(out, want, f"all_to_all_single {splits} {dtype}")
    return "ok"


def all_to_all_single_rows(ctx) -> str:
    """A 2-D input split by rows: split sizes count rows, torch scales them by the row length
    (rank r sends d + 1 rows of 3 to rank d)."""
    w, r = ctx.world_size, ctx.rank

    def rows(s, d):
        return _a2a_piece(s, d, 3 * (d + 1)).reshape(d + 1, 3)
    inp = torch.cat([rows(r, d) for d in range(w)]).to(ctx.device)
    want = torch.cat([rows(s, r) for s in range(w)])
    out = torch.zeros(w * (r + 1), 3, device=ctx.device)
    dist.all_to_all_single(out, inp, [r + 1] * w, [d + 1 for d in range(w)])
    check_equal(out, want, "all_to_all_single by rows")
    return "ok"


def all_to_all_list_uneven_refused(ctx) -> str:
    w, r = ctx.world_size, ctx.rank
    out = [torch.zeros(s + r + 1) for s in range(w)]
    expect_raise(lambda: dist.all_to_all(out, [_a2a_piece(r, d, r + d + 1) for d in range(w)]), RuntimeError,
                 r"ProcessGroupGloo::alltoall: invalid tensor size", "gloo all_to_all of uneven tensors")
    return "ok"


def all_to_all_list(ctx, uneven: bool) -> str:
    w, r = ctx.world_size, ctx.rank
    n = (lambda s, d: s + d + 1) if uneven else (lambda s, d: 2)
    out = [torch.zeros(n(s, r), device=ctx.device) for s in range(w)]
    dist.all_to_all(out, [_a2a_piece(r, d, n(r, d)).to(ctx.device) for d in range(w)])
    for s in range(w):
        check_equal(out[s], _a2a_piece(s, r, n(s, r)), f"all_to_all slot {s}")
    return "ok"


# ---------------------------------------------------------------------------------------
# Object collectives (pickled, sizes exchanged first: objects of different sizes per rank)


def _obj(rank: int) -> dict:
    return {"rank": rank, "text": "x" * (rank * 300), "nested": [rank, (rank, "t"), {rank: None}]}


def object_collective(ctx, kind: str) -> str:
    w, r = ctx.world_size, ctx.rank
    if kind == "broadcast":
        src = w - 1
        objs = [_obj(src), "second"] if r == src else [None, None]
        dist.broadcast_object_list(objs, src=src)
        got, want = objs, [_obj(src), "second"]
    elif kind == "all_gather":
        got = [None] * w
        dist.all_gather_object(got, _obj(r))
        want = [_obj(q) for q in range(w)]
    elif kind == "gather":
        got = [None] * w if r == 1 else None
        dist.gather_object(_obj(r), got, dst=1)
        want = [_obj(q) for q in range(w)] if r == 1 else None
    elif kind == "scatter":
        got = [None]
        dist.scatter_object_list(got, [_obj(q) for q in range(w)] if r == 2 % w else None, src=2 % w)
        want = [_obj(r)]
    elif kind == "with_tensor":
        got = [None] * w
        dist.all_gather_object(got, {"t": rank_input(r, "int64", 3)})
        got = [g["t"].tolist() for g in got]
        want = [rank_input(q, "int64", 3).tolist() for q in range(w)]
    else:
        raise ValueError(kind)
    if got != want:
        raise CaseMismatch(f"{kind} objects: got {got!r:.300}, want {want!r:.300}")
    return "ok"


def object_unpicklable(ctx) -> str:
    """all_gather_object pickles on every rank before sending: a lambda fails locally everywhere."""
    import pickle

    got: list = [None] * ctx.world_size
    expect_raise(lambda: dist.all_gather_object(got, lambda: ctx.rank), (pickle.PicklingError, AttributeError),
                 "pickle|lambda", "all_gather_object of a lambda")
    return "ok"


def send_recv_object_list(ctx) -> str:
    if ctx.rank == 0:
        dist.send_object_list([_obj(0), {"k": 1}], dst=ctx.world_size - 1)
    elif ctx.rank == ctx.world_size - 1:
        got: list = [None, None]
        dist.recv_object_list(got, src=0)
        if got != [_obj(0), {"k": 1}]:
            raise CaseMismatch(f"recv_object_list: {got!r:.300}")
    return "ok"


# ---------------------------------------------------------------------------------------
# Point to point


def send_recv(ctx, n: int = 6, dtype: str = "float32") -> str:
    """Rank r sends to r + 1 (even ranks first, odd ranks receive first: no deadlock)."""
    w, r = ctx.world_size, ctx.rank
    out = torch.zeros(n, dtype=_dtype(dtype), device=ctx.device)
    mine = rank_input(r, dtype, n).to(ctx.device)
    if r % 2 == 0:
        dist.send(mine, (r + 1) % w)
        dist.recv(out, (r - 1) % w)
    else:
        dist.recv(out, (r - 1) % w)
        dist.send(mine, (r + 1) % w)
    check_equal(out, rank_input((r - 1) % w, dtype, n), f"recv from {(r - 1) % w} (n={n})")
    return "ok"


def isend_irecv_ring(ctx) -> str:
    w, r = ctx.world_size, ctx.rank
    out = torch.zeros(5, dtype=torch.int32, device=ctx.device)
    works = [dist.irecv(out, (r - 1) % w), dist.isend(rank_input(r, "int32", 5).to(ctx.device), (r + 1) % w)]
    for work in works:
        work.wait()
    check_equal(out, rank_input((r - 1) % w, "int32", 5), "irecv in a ring")
    return "ok"


def recv_any_source(ctx) -> str:
    """recv without src (gloo's recvAnysource): rank 0 learns each sender from the return value."""
    w, r = ctx.world_size, ctx.rank
    if r != 0:
        dist.send(torch.full((2,), float(r), device=ctx.device), 0)
        return "ok"
    seen = {}
    for _ in range(w - 1):
        t = torch.zeros(2)
        sender = dist.recv(t)
        seen[sender] = t.tolist()
    want = {q: [float(q)] * 2 for q in range(1, w)}
    if seen != want:
        raise CaseMismatch(f"recv from any source: {seen}, want {want}")
    return "ok"


def irecv_any_source(ctx) -> str:
    """irecv without src: the Work names the sender once it completes (_source_rank)."""
    w, r = ctx.world_size, ctx.rank
    if r == w - 1:
        dist.send(torch.tensor([42.0]), 0)
    elif r == 0:
        t = torch.zeros(1)
        work = dist.irecv(t)
        work.wait()
        if work._source_rank() != w - 1 or t.item() != 42.0:
            raise CaseMismatch(f"irecv from any source: sender {work._source_rank()}, value {t.item()}")
    return "ok"


def tagged_out_of_order(ctx) -> str:
    """Two messages with different tags, received in the opposite order: matched by tag."""
    if ctx.rank == 0:
        a = dist.isend(torch.tensor([1.0, 1.0]), 1, tag=7)
        b = dist.isend(torch.tensor([2.0, 2.0]), 1, tag=9)
        a.wait()
        b.wait()
    elif ctx.rank == 1:
        late, early = torch.zeros(2), torch.zeros(2)
        dist.recv(late, 0, tag=9)
        dist.recv(early, 0, tag=7)
        check_equal(late, torch.tensor([2.0, 2.0]), "tag 9")
        check_equal(early, torch.tensor([1.0, 1.0]), "tag 7")
    return "ok"


def batch_isend_irecv(ctx, pattern: str) -> str:
    """ring: one send and one receive per rank; all_pairs: every rank exchanges with every
    other rank in one batch (NCCL issues them inside one group call)."""
    w, r = ctx.world_size, ctx.rank
    peers = [(r + 1) % w] if pattern == "ring" else [q for q in range(w) if q != r]
    sources = [(r - 1) % w] if pattern == "ring" else peers
    recvs = {s: torch.zeros(3, device=ctx.device) for s in sources}
    ops = [dist.P2POp(dist.isend, _a2a_piece(r, d, 3).to(ctx.device), d) for d in peers]
    ops += [dist.P2POp(dist.irecv, recvs[s], s) for s in sources]
    for work in dist.batch_isend_irecv(ops):
        work.wait()
    for s in sources:
        check_equal(recvs[s], _a2a_piece(s, r, 3), f"batch_isend_irecv {pattern} from {s}")
    return "ok"


def p2p_refusals(ctx) -> str:
    """Local argument checks of send/recv/batch_isend_irecv (nothing reaches the wire)."""
    t = torch.zeros(1, device=ctx.device)
    expect_raise(lambda: dist.send(t, ctx.rank), ValueError, "same as", "send to self")
    # (a send to a rank outside the world is not checked by torch 2.14.1: gloo ends the process,
    # which a case on the shared pool cannot take; not tested here)
    expect_raise(lambda: dist.batch_isend_irecv([t]), (ValueError, TypeError, AttributeError), "P2POp|op",
                 "batch_isend_irecv of a tensor")
    expect_raise(lambda: dist.P2POp(dist.all_reduce, t, 0), ValueError, "isend|irecv", "P2POp of all_reduce")
    return "ok"


# ---------------------------------------------------------------------------------------
# Groups, coalescing, async work, barriers


def _group(ctx, ranks: list[int], **kwargs):
    """A new group; new_group is collective over the whole world, so every rank calls it."""
    return dist.new_group(ranks, **kwargs)


def subgroup(ctx, kind: str) -> str:
    w, r = ctx.world_size, ctx.rank
    if kind == "pairs":
        # two disjoint groups of the same size, each reducing its own members only
        groups = [_group(ctx, [0, 1]), _group(ctx, [2, 3])]
        mine = groups[r // 2]
        t = torch.tensor([float(r + 1)], device=ctx.device)
        dist.all_reduce(t, group=mine)
        check_equal(t, torch.tensor([float(2 * (r // 2) * 2 + 3)]), "all_reduce in a pair group")
    elif kind == "strided_group_src":
        # global ranks [1, 3]: group rank 1 is global rank 3 (translation both ways)
        g = _group(ctx, [1, 3])
        t = torch.tensor([float(r)], device=ctx.device)
        if r in (1, 3):
            dist.broadcast(t, group=g, group_src=1)
            check_equal(t, torch.tensor([3.0]), "broadcast from group rank 1")
            if dist.get_global_rank(g, 1) != 3 or dist.get_group_rank(g, r) != (r - 1) // 2:
                raise CaseMismatch("group rank translation")
    elif kind == "not_member":
        # a rank outside the group returns at once and leaves its tensor alone
        g = _group(ctx, [0, 1])
        t = torch.tensor([float(r + 1)], device=ctx.device)
        work = dist.all_reduce(t, group=g)
        want = 3.0 if r < 2 else float(r + 1)
        if (r >= 2 and work is not None) or t.item() != want:
            raise CaseMismatch(f"rank {r}: all_reduce over a group: {t.item()} (work {work!r})")
    elif kind == "new_subgroups":
        mine, _all = dist.new_subgroups(group_size=2)
        t = torch.tensor([1 << r], device=ctx.device)
        dist.all_reduce(t, group=mine)
        base = (r // 2) * 2
        check_equal(t, torch.tensor([(1 << base) + (1 << (base + 1))]), "new_subgroups(2)")
    elif kind == "by_enumeration":
        mine, _all = dist.new_subgroups_by_enumeration([[0, 3], [1, 2]])
        t = torch.tensor([r], device=ctx.device)
        dist.all_reduce(t, op=dist.ReduceOp.MAX, group=mine)
        check_equal(t, torch.tensor([3 if r in (0, 3) else 2]), "new_subgroups_by_enumeration")
    elif kind == "object_group_src":
        # an object collective on group [1, 3]: the source given as a group rank
        g = _group(ctx, [1, 3])
        if r in (1, 3):
            objs = [_obj(3)] if r == 3 else [None]
            dist.broadcast_object_list(objs, group=g, group_src=1)
            if objs != [_obj(3)]:
                raise CaseMismatch(f"broadcast_object_list on group [1, 3]: {objs!r:.200}")
    elif kind == "send_group_dst":
        g = _group(ctx, [2, 3])
        if r == 2:
            dist.send(torch.tensor([5.0], device=ctx.device), group=g, group_dst=1)
        elif r == 3:
            t = torch.zeros(1, device=ctx.device)
            dist.recv(t, group=g, group_src=0)
            check_equal(t, torch.tensor([5.0]), "recv from group rank 0")
    else:
        raise ValueError(kind)
    del w
    return "ok"


def all_reduce_coalesced(ctx) -> str:
    w, r = ctx.world_size, ctx.rank
    ins = [[rank_input(q, "float32", 3), rank_input(q + 1, "float32", 5)] for q in range(w)]
    ts = [t.clone().to(ctx.device) for t in ins[r]]
    dist.all_reduce_coalesced(ts)
    for i, t in enumerate(ts):
        check_equal(t, sum((x[i] for x in ins[1:]), ins[0][i].clone()), f"coalesced tensor {i}")
    mixed = [torch.zeros(2, device=ctx.device), torch.zeros(2, dtype=torch.int64, device=ctx.device)]
    expect_raise(lambda: dist.all_reduce_coalesced(mixed), ValueError, "different dtypes",
                 "all_reduce_coalesced of mixed dtypes")
    return "ok"


def all_gather_coalesced(ctx) -> str:
    w, r = ctx.world_size, ctx.rank
    out = [[torch.zeros(2, device=ctx.device), torch.zeros(3, device=ctx.device)] for _ in range(w)]
    dist.all_gather_coalesced(out, [rank_input(r, "float32", 2).to(ctx.device),
                                    rank_input(r + 7, "float32", 3).to(ctx.device)])
    for q in range(w):
        check_equal(out[q][0], rank_input(q, "float32", 2), f"slot {q} tensor 0")
        check_equal(out[q][1], rank_input(q + 7, "float32", 3), f"slot {q} tensor 1")
    return "ok"


def coalescing_manager(ctx, kind: str) -> str:
    """Ops issued inside _coalescing_manager become one coalesced call of the backend
    (allreduce_coalesced, allgather_into_tensor_coalesced, reduce_scatter_tensor_coalesced)."""
    from torch.distributed.distributed_c10d import _coalescing_manager

    try:
        return _coalesced(ctx, kind, _coalescing_manager)
    finally:
        _leave_coalescing()


def _leave_coalescing() -> bool:
    """A coalescing block that raised leaves the world group in coalescing mode (every later
    collective on it is recorded and does nothing): clear it so the shared pool stays usable.
    Returns whether it had been left so."""
    from torch.distributed.distributed_c10d import _get_default_group, _world

    return _world.pg_coalesce_state.pop(_get_default_group(), None) is not None


def _coalesced(ctx, kind: str, _coalescing_manager) -> str:
    w, r = ctx.world_size, ctx.rank
    if kind == "all_reduce":
        ins = [[rank_input(q, "float32", 2), rank_input(q, "float32", 6) * 2] for q in range(w)]
        ts = [t.clone().to(ctx.device) for t in ins[r]]
        with _coalescing_manager(async_ops=True) as cm:
            for t in ts:
                dist.all_reduce(t)
        cm.wait()
        wants = [sum((x[i] for x in ins[1:]), ins[0][i].clone()) for i in range(2)]
    elif kind == "all_gather_into_tensor":
        ts = [torch.zeros(w * 2, device=ctx.device), torch.zeros(w * 3, device=ctx.device)]
        with _coalescing_manager(async_ops=True) as cm:
            dist.all_gather_into_tensor(ts[0], rank_input(r, "float32", 2).to(ctx.device))
            dist.all_gather_into_tensor(ts[1], rank_input(r + 3, "float32", 3).to(ctx.device))
        cm.wait()
        wants = [torch.cat([rank_input(q, "float32", 2) for q in range(w)]),
                 torch.cat([rank_input(q + 3, "float32", 3) for q in range(w)])]
    else:
        ins = [rank_input(q, "float32", 2 * w) for q in range(w)]
        ts = [torch.zeros(2, device=ctx.device), torch.zeros(2, device=ctx.device)]
        with _coalescing_manager(async_ops=True) as cm:
            dist.reduce_scatter_tensor(ts[0], ins[r].to(ctx.device))
            dist.reduce_scatter_tensor(ts[1], (ins[r] * 3).to(ctx.device))
        cm.wait()
        part = sum((x[2 * r:2 * r + 2] for x in ins[1:]), ins[0][2 * r:2 * r + 2].clone())
        wants = [part, part * 3]
    for i, (t, want) in enumerate(zip(ts, wants)):
        check_equal(t, want, f"coalesced {kind} tensor {i}")
    return "ok"


def coalescing_with_device_on_gloo(ctx) -> str:
    """_coalescing_manager(device=cpu) asks the backend to start coalescing, which gloo does
    not implement: refused, and the group must stay usable afterwards."""
    from torch.distributed.distributed_c10d import _coalescing_manager

    def block():
        with _coalescing_manager(device=torch.device("cpu")):
            pass

    expect_raise(block, RuntimeError, "does not implement startCoalescing", "coalescing with a device on gloo")
    if _leave_coalescing():
        raise CaseMismatch("the refused coalescing block left the world group in coalescing mode "
                           "(later collectives on it would be recorded and silently do nothing)")
    return "ok"


def async_work(ctx, kind: str) -> str:
    """async_op=True: the Work's wait(), is_completed() and its future's value."""
    w, r = ctx.world_size, ctx.rank
    if kind == "wait":
        t = torch.full((4,), float(r), device=ctx.device)
        work = dist.all_reduce(t, async_op=True)
        work.wait()
        if not work.is_completed():
            raise CaseMismatch("is_completed() after wait()")
        check_equal(t, torch.full((4,), float(sum(range(w)))), "async all_reduce")
    elif kind == "future":
        t = torch.full((3,), float(r + 1), device=ctx.device)
        fut = dist.all_reduce(t, op=dist.ReduceOp.MAX, async_op=True).get_future()
        value = fut.wait()
        check_equal(value[0], torch.full((3,), float(w)), "future value of async all_reduce")
    elif kind == "several_in_flight":
        # three collectives in flight on one group, waited in reverse order
        ts = [torch.full((2,), float(r * k), device=ctx.device) for k in (1, 2, 3)]
        works = [dist.all_reduce(t, async_op=True) for t in ts]
        for work in reversed(works):
            work.wait()
        for k, t in zip((1, 2, 3), ts):
            check_equal(t, torch.full((2,), float(k * sum(range(w)))), f"in-flight all_reduce x{k}")
    else:
        raise ValueError(kind)
    return "ok"


def barrier(ctx, directory: str, group_kind: str) -> str:
    """Every member's marker exists once barrier() returns (a member that returned early
    would miss a later writer's marker)."""
    import time

    members = list(range(ctx.world_size)) if group_kind == "world" else [1, 2]
    g = None if group_kind == "world" else _group(ctx, members)
    if ctx.rank not in members:
        return "ok"
    if ctx.rank == members[-1]:
        time.sleep(0.2)  # the last member arrives late: a barrier that does not wait is seen
    with open(os.path.join(directory, f"rank{ctx.rank}"), "w") as f:
        f.write("x")
    dist.barrier(group=g)
    missing = [q for q in members if not os.path.exists(os.path.join(directory, f"rank{q}"))]
    if missing:
        raise CaseMismatch(f"barrier returned before rank(s) {missing} arrived")
    return "ok"


def monitored_barrier(ctx, present: list[int], wait_all: bool) -> str:
    """Run only on ``present`` ranks of a fresh world-sized group: rank 0 reports the ranks
    that never arrived (the first, or all of them with wait_all_ranks); others pass or learn
    rank 0 failed."""
    g = ctx.scratch.pop("monitored_group")
    absent = [q for q in range(ctx.world_size) if q not in present]
    call = functools.partial(dist.monitored_barrier, g, timeout=datetime.timedelta(seconds=1),
                             wait_all_ranks=wait_all)
    if not absent:
        call()
        return "ok"
    if ctx.rank == 0:
        named = ", ".join(map(str, absent if wait_all else absent[:1]))
        expect_raise(call, RuntimeError, rf"Ranks? {re.escape(named)} failed to pass monitoredBarrier",
                     "monitored_barrier with absent ranks")
    else:
        expect_raise(call, RuntimeError, "received errors while waiting", "monitored_barrier on rank != 0")
    return "ok"


def make_group(ctx, key: str, members: list[int], timeout_s: float | None = None, detail: bool = False) -> str:
    """A group for one failure case (it is unusable afterwards); built on every rank.
    ``detail``: built under TORCH_DISTRIBUTED_DEBUG=DETAIL semantics (the ProcessGroupWrapper
    that checks every collective's fingerprint across ranks before running it)."""
    kwargs = {} if timeout_s is None else {"timeout": datetime.timedelta(seconds=timeout_s)}
    old = dist.get_debug_level()
    if detail:
        dist.set_debug_level(dist.DebugLevel.DETAIL)
    try:
        ctx.scratch[key] = dist.new_group(members, **kwargs)
    finally:
        dist.set_debug_level(old)
    return "ok"


def timeout_absent_peer(ctx) -> str:
    """A collective whose peer never joins fails after the group's timeout, it does not hang."""
    g = ctx.scratch.pop("timeout_group")
    t = torch.ones(3, device=ctx.device)
    expect_raise(lambda: dist.all_reduce(t, group=g), RuntimeError, "[Tt]imed out|[Tt]imeout",
                 "all_reduce with an absent peer")
    return "ok"


def mismatch_detected(ctx, what: str) -> str:
    """Under the DETAIL wrapper, rank 1 issuing another shape / dtype / collective than the
    others is refused on every rank with the fingerprints named."""
    g = ctx.scratch.pop("detail_group")
    r = ctx.rank
    t = torch.ones(3 if (what == "shape" and r == 1) else 2,
                   dtype=torch.float64 if (what == "dtype" and r == 1) else torch.float32, device=ctx.device)
    if what == "collective" and r == 1:
        call = functools.partial(dist.broadcast, t, 0, group=g)
    else:
        call = functools.partial(dist.all_reduce, t, group=g)
    field = {"shape": "TensorShape", "dtype": "TensorDtypes", "collective": "OpType"}[what]
    msg = expect_raise(call, RuntimeError, "Detected mismatch between collectives", f"{what} mismatch")
    if field not in msg:
        raise CaseMismatch(f"{what} mismatch: {field} not named in {msg[:300]!r}")
    return "ok"


def local_refusal(ctx, check: str) -> str:
    """Argument checks that raise on the calling rank before anything is sent."""
    w, r, dev = ctx.world_size, ctx.rank, ctx.device
    x = torch.zeros(2, device=dev)
    calls = {
        "all_gather_list_length": (lambda: dist.all_gather([torch.zeros(2, device=dev)] * (w - 1), x),
                                   (RuntimeError, ValueError), "world size|size|list"),
        "all_gather_list_dtype": (lambda: dist.all_gather([torch.zeros(2, dtype=torch.float64, device=dev)] * w, x),
                                  (ValueError, RuntimeError), "different dtypes|type"),
        "all_gather_into_tensor_size": (lambda: dist.all_gather_into_tensor(torch.zeros(w * 2 - 1, device=dev), x),
                                        (RuntimeError, ValueError), "invalid tensor size|size"),
        "broadcast_src_range": (lambda: dist.broadcast(x, w + 2), (ValueError, RuntimeError), "rank|Rank|range"),
        "gather_list_on_non_dst": (lambda: dist.gather(x, [torch.zeros(2)] * w, dst=(r + 1) % w), ValueError,
                                   "gather_list"),
        "scatter_list_on_non_src": (lambda: dist.scatter(x, [torch.zeros(2)] * w, src=(r + 1) % w), ValueError,
                                    "scatter_list"),
        "all_to_all_single_splits": (lambda: dist.all_to_all_single(torch.zeros(w, device=dev),
                                                                    torch.zeros(w, device=dev),
                                                                    [1] * w, [2] * w),
                                     (RuntimeError, ValueError), "split|size"),
        "reduce_scatter_list_length": (lambda: dist.reduce_scatter(x, [x] * (w + 1)),
                                       (RuntimeError, ValueError), "size|world|list"),
    }
    fn, kind, pattern = calls[check]
    expect_raise(fn, kind, pattern, check)
    return "ok"


# ---------------------------------------------------------------------------------------
# Functional collectives (the c10d_functional ops DTensor and torch.compile issue)


def functional(ctx, kind: str) -> str:
    import torch.distributed._functional_collectives as fc

    w, r = ctx.world_size, ctx.rank
    group = dist.group.WORLD
    ins = [rank_input(q, "float32", 2 * w) for q in range(w)]
    x = ins[r].to(ctx.device)
    if kind == "all_reduce":
        got, want = fc.all_reduce(x, "sum", group), sum(ins[1:], ins[0].clone())
    elif kind == "all_gather_tensor":
        got, want = fc.all_gather_tensor(x, 0, group), torch.cat(ins)
    elif kind == "reduce_scatter_tensor":
        got = fc.reduce_scatter_tensor(x, "sum", 0, group)
        want = sum((q[2 * r:2 * r + 2] for q in ins[1:]), ins[0][2 * r:2 * r + 2].clone())
    elif kind == "all_to_all_single":
        got = fc.all_to_all_single(x, None, None, group)
        want = torch.cat([ins[s][2 * r:2 * r + 2] for s in range(w)])
    elif kind == "broadcast":
        got, want = fc.broadcast(x, 1, group), ins[1]
    elif kind == "all_reduce_coalesced":
        got = torch.cat([fc.wait_tensor(t) for t in fc.all_reduce_coalesced([x, x * 2], "max", group)])
        m = functools.reduce(torch.maximum, ins)
        want = torch.cat([m, m * 2])
    elif kind == "all_gather_into_tensor_coalesced":
        outs = fc.all_gather_into_tensor_coalesced([x, x[:3] + 1], group)
        got = torch.cat([fc.wait_tensor(t) for t in outs])
        want = torch.cat([torch.cat(ins), torch.cat([q[:3] + 1 for q in ins])])
    elif kind == "reduce_scatter_tensor_coalesced":
        outs = fc.reduce_scatter_tensor_coalesced([x, x * 3], "sum", [0, 0], group)
        got = torch.cat([fc.wait_tensor(t) for t in outs])
        part = sum((q[2 * r:2 * r + 2] for q in ins[1:]), ins[0][2 * r:2 * r + 2].clone())
        want = torch.cat([part, part * 3])
    elif kind == "permute_tensor":
        # rank s sends its tensor to rank (s + 1) % w (all_to_all_single with one non-zero split)
        got = fc.permute_tensor(x, [(s + 1) % w for s in range(w)], group)
        want = ins[(r - 1) % w]
    else:
        raise ValueError(kind)
    got = fc.wait_tensor(got) if isinstance(got, torch.Tensor) else got
    check_equal(torch.as_tensor(got), want, f"functional {kind}")
    return "ok"


def autograd_collective(ctx, kind: str) -> str:
    """torch.distributed.nn.functional: the backward of all_reduce is an all_reduce of the
    grads; the backward of all_gather is a reduce-scatter of the slot grads."""
    import torch.distributed.nn.functional as dnn

    w, r = ctx.world_size, ctx.rank
    x = torch.full((3,), float(r + 1), device=ctx.device, requires_grad=True)
    weights = sum(q + 1 for q in range(w))
    if kind == "all_reduce":
        y = dnn.all_reduce(x)
        (y * (r + 1)).sum().backward()
        # d/dx_r of sum_q (q + 1) * sum_p x_p = sum_q (q + 1)
        want = torch.full((3,), float(weights))
    elif kind == "all_gather":
        slots = dnn.all_gather(x)
        sum(s * (k + 1) * (r + 1) for k, s in enumerate(slots)).sum().backward()
        # slot r on rank q carries weight (r + 1) * (q + 1)
        want = torch.full((3,), float((r + 1) * weights))
    elif kind == "broadcast":
        y = dnn.broadcast(x, src=1)
        (y * (r + 1)).sum().backward()
        # only the source's input reaches the outputs: its grad sums every rank's weight
        want = torch.full((3,), float(weights if r == 1 else 0))
    elif kind == "reduce_scatter":
        xs = [torch.full((3,), float(r + d), device=ctx.device, requires_grad=True) for d in range(w)]
        out = torch.zeros(3, device=ctx.device)
        y = dnn.reduce_scatter(out, xs)
        (y * (r + 1)).sum().backward()
        # xs[d] on every rank feeds rank d's output, weighted d + 1
        for d, xd in enumerate(xs):
            check_equal(xd.grad, torch.full((3,), float(d + 1)), f"grad of reduce_scatter input {d}")
        return "ok"
    elif kind == "all_to_all_single":
        x = torch.full((w,), float(r), device=ctx.device, requires_grad=True)
        y = dnn.all_to_all_single(torch.zeros(w, device=ctx.device), x)
        (y * (r + 1)).sum().backward()
        # element d of every rank's input lands on rank d, weighted d + 1 (reverse all-to-all)
        want = torch.arange(1, w + 1, dtype=torch.float32)
    else:
        raise ValueError(kind)
    check_equal(x.grad, want, f"grad through {kind}")
    return "ok"
