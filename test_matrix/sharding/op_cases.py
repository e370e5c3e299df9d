"""Op sharding strategies: one table entry per op, one generic case body (runs on every rank).

torch registers a sharding strategy per aten op (torch/distributed/tensor/_ops/). Where the
strategy depends on where the input is sharded relative to the op's dim, each placement class
takes another branch of it:

* ``on``: sharded on the op's dim (the strategy redistributes, or reduces into a Partial),
* ``other``: sharded on another dim (the op runs on the local shard, no communication; the
  output keeps the input's sharding, which the case asserts where ``keeps`` is set),
* ``rep``: replicated (the op runs on the full local tensor),
* ``partial``: a Partial(sum) input, only for ops linear in it (the strategy propagates the
  pending sum or reduces it first),
* ``2d``: on the 2x2 mesh, sharded on the other dim over ``dp`` and on the op's dim over ``tp``
  (one mesh dim keeps its shard while the other is redistributed).

The inputs are built on every rank from fixed seeds, the op runs once on the full tensors and
once on DTensors, and every output's ``full_tensor()`` is compared with the reference.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch.distributed.tensor import DTensor, Shard

from porting.matrix.monarch_util import load_file

dc = load_file(Path(__file__).resolve().parent / "dtensor_cases.py", "port_matrix_dtensor_cases")

# (5, 7) over 4 ranks: dim 0 splits 2/2/1/0 (rank 3 holds an empty shard), dim 1 splits 2/2/2/1
# (uneven); over the 2x2 mesh both split unevenly.
X = (5, 7)


class In(NamedTuple):
    """One input: its shape, how it is made, and whether it follows the class's placement."""

    shape: tuple[int, ...] = X
    kind: str = "float"  # float | pos (> 0) | sorted (bucket bounds) | bool | index:<bound> | target:<bound>
    placed: bool = True  # False: always replicated (indices, weights, targets)
    on: int | None = None  # this input's tensor dim for the ``on`` class (default: the op's dim)
    other: int | None = None  # and for the ``other`` class (default: the op's other dim)


class Op(NamedTuple):
    """One table entry: the op (applied alike to full tensors and DTensors) and its classes."""

    fn: Callable[..., object]
    inputs: tuple[In, ...] = (In(),)
    dim: int | None = 1  # the op's dim (None: the op has none; ``on`` then shards dim 0)
    other: int = 0
    partial: bool = False  # linear in input 0: a Partial(sum) input is a distinct strategy
    keeps: bool = True  # sharding on ``other`` propagates unchanged (asserted)
    tol: tuple[float, float] | None = None
    classes: tuple[str, ...] = ()
    rejects: str = ""  # sharded on the op's dim (``on``/``2d``): DTensor refuses with this message

    def declared_classes(self) -> tuple[str, ...]:
        if self.classes:
            return self.classes
        base = ("on", "other", "rep", "2d") if self.dim is not None else ("on", "rep", "2d")
        return base + (("partial",) if self.partial else ())

    def placement_classes(self) -> tuple[str, ...]:
        """The forward classes that are cases of their own. ``rep`` is one only where the op
        has no ``other``: a replicated input and one sharded off the op's dim take the same
        path (the strategy has an entry the input already satisfies, no redistribution, the
        local op, the output placement read off that entry), so such ops run replicated
        inside one case instead (test_op_strategy_replicated_inputs)."""
        return tuple(c for c in self.declared_classes() if c != "rep" or not self.folds_rep())

    def folds_rep(self) -> bool:
        declared = self.declared_classes()
        return "rep" in declared and "other" in declared


def _make(spec: In, seed: int, device: str) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    if spec.kind == "float":
        t = torch.randn(spec.shape, generator=g, dtype=torch.float64).float()
    elif spec.kind == "pos":
        t = torch.rand(spec.shape, generator=g, dtype=torch.float64).float() + 0.5
    elif spec.kind == "sorted":  # boundaries for bucketize
        t = torch.linspace(-1.5, 1.5, spec.shape[0])
    elif spec.kind == "bool":
        t = torch.rand(spec.shape, generator=g) > 0.5
    else:  # index:<bound> / target:<bound>: int64 in [0, bound)
        t = torch.randint(0, int(spec.kind.split(":")[1]), spec.shape, generator=g)
    return t.to(device)


def placements_for(op: Op, klass: str, index: int) -> list[str]:
    """Placement names (dtensor_cases.placement) of input ``index`` under ``klass``."""
    spec = op.inputs[index]
    if not spec.placed or klass == "rep":
        return ["R", "R"] if klass == "2d" else ["R"]
    on = spec.on if spec.on is not None else (op.dim if op.dim is not None else 0)
    other = spec.other if spec.other is not None else op.other
    if klass == "on":
        return [f"S{on}"]
    if klass == "other":
        return [f"S{other}"]
    if klass == "partial":
        return ["Psum"] if index == 0 else ["R"]
    if klass == "2d":
        return [f"S{other}", f"S{on}"] if op.dim is not None else ["S0", "S1"]
    raise ValueError(klass)


def _outputs(value) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    return [v for v in value if isinstance(v, torch.Tensor)]


def run_op(ctx, mesh, name, klass):
    op = OPS[name]
    fulls = [_make(spec, 100 + i, ctx.device) for i, spec in enumerate(op.inputs)]
    want = _outputs(op.fn(*[t.clone() for t in fulls]))
    dts = [_place(ctx, mesh, placements_for(op, klass, i), t) for i, t in enumerate(fulls)]
    if op.rejects and klass in ("on", "2d"):
        return _expect_rejection(op, dts, name)
    got = _outputs(op.fn(*dts))
    gathered = [g.full_tensor() if isinstance(g, DTensor) else g for g in got]  # collectives first
    assert len(got) == len(want), f"{name}: {len(got)} outputs, expected {len(want)}"
    for i, (g, w) in enumerate(zip(gathered, want)):
        _compare(g, w, op.tol, f"{name} [{klass}] output {i}")
    if klass == "other" and op.keeps:
        for i, g in enumerate(got):
            assert isinstance(g, DTensor) and list(g.placements) == [Shard(op.other)], \
                f"{name}: sharded on dim {op.other} (not the op's dim), output {i} is " \
                f"{getattr(g, 'placements', type(g).__name__)}, expected it kept as Shard({op.other})"
    return [str(list(g.placements)) if isinstance(g, DTensor) else type(g).__name__ for g in got]


def run_replicated(ctx, mesh, names):
    """Every op in ``names`` on replicated inputs, the values of one path folded into one
    case: each failing op is named (dtensor_cases.collect)."""
    dc.collect("op", list(names), lambda name: run_op(ctx, mesh, name, "rep"))
    return "ok"


def _expect_rejection(op, dts, name):
    """The op's strategy cannot run without redistributing its input and the op forbids that:
    a RuntimeError naming the reason, raised on every rank before any collective."""
    try:
        op.fn(*dts)
    except RuntimeError as exc:
        assert op.rejects in str(exc), f"{name}: rejected with {str(exc)[:300]!r}, expected {op.rejects!r}"
        return ["rejected"]
    raise AssertionError(f"{name}: sharded on the op's dim ran; expected the rejection {op.rejects!r}")


def _place(ctx, mesh, names, full):
    if not full.dtype.is_floating_point and any(n.startswith("P") for n in names):
        raise ValueError("Partial inputs are float in this table")
    return dc.make_dtensor(ctx, mesh, names, full)


def _compare(got, want, tol, what):
    if tol is None or not want.dtype.is_floating_point:
        dc.check_equal(got, want, what)
        return
    got, want = got.cpu(), want.cpu()
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)} != {tuple(want.shape)}"
    assert torch.allclose(got, want, rtol=tol[0], atol=tol[1]), \
        f"{what}: max abs difference {(got - want).abs().max().item()} beyond rtol={tol[0]} atol={tol[1]}"


def _idx(bound, shape=(4,)):
    return In(shape=shape, kind=f"index:{bound}", placed=False)


def _w(shape):
    return In(shape=shape, placed=False)


# 3-D input for batched/normalisation ops: (batch 5, rows 6, features 7).
B = (5, 6, 7)

OPS: dict[str, Op] = {
    # An entry whose fn returns several ops' results covers ops registered under one strategy
    # (the values only change which op runs): each output is compared and named by index.
    # _softmax/_log_softmax: one strategy (the softmax dim must be replicated).
    "softmax": Op(lambda x: (torch.softmax(x, dim=1), torch.log_softmax(x, dim=1))),
    # Scans: cumsum propagates a Partial (linear); cumprod/logcumsumexp share the rest of the
    # scan strategy; cummax/cummin have their own (values and indices).
    "cumsum": Op(lambda x: torch.cumsum(x, dim=1), partial=True),
    "scan": Op(lambda x: (torch.cumprod(x, dim=1), torch.logcumsumexp(x, dim=1))),
    "cummax": Op(lambda x: (*torch.cummax(x, dim=1), *torch.cummin(x, dim=1))),
    # Selection: topk/sort/kthvalue/max.dim/argmax: values and indices over the dim.
    "topk": Op(lambda x: torch.topk(x, 3, dim=1)),
    "sort": Op(lambda x: torch.sort(x, dim=1)),
    "kthvalue": Op(lambda x: torch.kthvalue(x, 2, dim=1)),
    "argmax": Op(lambda x: (torch.argmax(x, dim=1), torch.argmin(x, dim=1))),
    "max_dim": Op(lambda x: (*torch.max(x, dim=1), *torch.min(x, dim=1))),
    # median.dim and mode share one strategy (values and indices over the dim); small integers
    # give mode repeated values, the float input gives median distinct ones.
    "median_mode": Op(lambda x, y: (*torch.median(x, dim=1), *torch.mode(y, dim=1)),
                      inputs=(In(), In(kind="index:3"))),
    # Non-linear reductions: var/std (correction), norms, logsumexp, prod, any/all.
    "var_std": Op(lambda x: (torch.var(x, dim=1), torch.std(x, dim=1, keepdim=True), *torch.var_mean(x, dim=1))),
    "norm_2": Op(lambda x: torch.linalg.vector_norm(x, 2, dim=1)),
    "norm_inf": Op(lambda x: torch.linalg.vector_norm(x, float("inf"), dim=1)),
    "norm_all": Op(lambda x: torch.linalg.vector_norm(x), keeps=False),
    "logsumexp": Op(lambda x: torch.logsumexp(x, dim=1)),
    "prod": Op(lambda x: torch.prod(x, dim=1), inputs=(In(kind="pos"),)),
    "any_all": Op(lambda x: (torch.any(x, dim=1), torch.all(x, dim=1)), inputs=(In(kind="bool"),)),
    # Reductions of a Partial(sum) input (test_ops covers Shard/Replicate inputs): sum keeps
    # the pending sum, mean keeps it as a scaled sum, amax must reduce it first.
    "sum_of_partial": Op(lambda x: torch.sum(x, dim=1), classes=("partial",)),
    "mean_of_partial": Op(lambda x: torch.mean(x, dim=1), classes=("partial",)),
    "amax_of_partial": Op(lambda x: torch.amax(x, dim=1), classes=("partial",)),
    # Normalisation over the last dim of a 3-D input; the other dim is the batch.
    "layer_norm": Op(lambda x, w, b: F.layer_norm(x, (7,), w, b),
                            inputs=(In(shape=B), _w((7,)), _w((7,))), dim=2, other=0),
    "rms_norm": Op(lambda x, w: F.rms_norm(x, (7,), w), inputs=(In(shape=B), _w((7,))), dim=2, other=0),
    # Losses: nll_loss/cross_entropy over (N, C) with replicated targets; mse over both inputs.
    "nll_loss": Op(lambda x, t: F.nll_loss(torch.log_softmax(x, 1), t),
                   inputs=(In(), In(shape=(5,), kind="target:7", placed=False)), keeps=False),
    "cross_entropy": Op(lambda x, t: F.cross_entropy(x, t, reduction="none"),
                        inputs=(In(), In(shape=(5,), kind="target:7", placed=False)), keeps=False),
    "mse_loss": Op(lambda x, y: F.mse_loss(x, y), inputs=(In(), In()), dim=None, keeps=False),
    "mse_loss_sum": Op(lambda x, y: F.mse_loss(x, y, reduction="sum"), inputs=(In(), In()), dim=None, keeps=False),
    # Joining and splitting along the dim.
    "cat": Op(lambda x, y: torch.cat([x, y], dim=1), inputs=(In(), In())),
    "stack": Op(lambda x, y: torch.stack([x, y], dim=1), inputs=(In(), In()), keeps=False),
    "split": Op(lambda x: (*torch.split(x, 3, dim=1), *torch.chunk(x, 2, dim=1))),  # chunk is a split
    "unbind": Op(lambda x: torch.unbind(x, dim=1), rejects="Attempted to unbind along the sharded dimension 1"),
    # Indexing: index tensors replicated, the data input placed.
    "index_select": Op(lambda x, i: torch.index_select(x, 1, i), inputs=(In(), _idx(7)), partial=True),
    "gather": Op(lambda x, i: torch.gather(x, 1, i), inputs=(In(), _idx(7, X))),
    "scatter": Op(lambda x, i, s: x.clone().scatter(1, i, s), inputs=(In(), _idx(7, (5, 3)), _w((5, 3)))),
    "scatter_add": Op(lambda x, i, s: x.clone().scatter_add(1, i, s), inputs=(In(), _idx(7, (5, 3)), _w((5, 3)))),
    "index_put": Op(lambda x, i, v: x.index_put((i,), v, accumulate=True),
                    inputs=(In(), _idx(5, (3,)), _w((3, 7))), dim=0, other=1),
    "index_tensor": Op(lambda x, i: x[i], inputs=(In(), _idx(5, (6,))), dim=0, other=1),
    # Pointwise with a replicated second operand (test_ops' elementwise cases place both alike).
    "masked_fill": Op(lambda x, m: x.masked_fill(m, 0.5), inputs=(In(), In(kind="bool", placed=False)), dim=None),
    # tril/triu are replicate-only: a sharded input is gathered, a Partial one reduced first.
    "tril_triu": Op(lambda x: (torch.tril(x, 1), torch.triu(x, -1)), classes=("on", "partial")),
    # Shifting ops: the shifted dim matters.
    "roll": Op(lambda x: torch.roll(x, 2, dims=1)),
    "flip": Op(lambda x: torch.flip(x, dims=[1]), partial=True),
    # Shape ops.
    "repeat": Op(lambda x: x.repeat(1, 2), keeps=True),
    "expand": Op(lambda x: x.unsqueeze(0).expand(3, 5, 7), keeps=False),
    "narrow": Op(lambda x: torch.narrow(x, 1, 2, 4), partial=True),
    "select": Op(lambda x: torch.select(x, 1, 3)),
    "diagonal": Op(lambda x: torch.diagonal(x), dim=None, keeps=False),
    "constant_pad": Op(lambda x: F.pad(x, (1, 2)), keeps=True),
    # Embedding: the weight (vocab 7, features 5) row-/column-sharded, indices replicated.
    "embedding": Op(lambda w, i: F.embedding(i, w), inputs=(In(shape=(7, 5)), _idx(7, (3, 4))), dim=0, other=1,
                    keeps=False),
    # Matrix products beyond mm: the contraction / batch dims select the strategy.
    "addmm": Op(lambda c, a, b: torch.addmm(c, a, b),
                inputs=(_w((5, 4)), In(on=1, other=0), In(shape=(7, 4), on=0, other=1)), dim=1, keeps=False),
    "bmm": Op(lambda a, b: torch.bmm(a, b),
              inputs=(In(shape=B, on=2, other=0), In(shape=(5, 7, 3), on=1, other=0)), dim=2, other=0),
    "baddbmm": Op(lambda c, a, b: torch.baddbmm(c, a, b),
                  inputs=(_w((5, 6, 3)), In(shape=B, on=2, other=0), In(shape=(5, 7, 3), on=1, other=0)),
                  dim=2, other=0, keeps=False),
    "einsum": Op(lambda a, b: torch.einsum("bij,bjk->bik", a, b),
                 inputs=(In(shape=B, on=2, other=0), In(shape=(5, 7, 3), on=1, other=0)), dim=2, other=0),
    "dot": Op(lambda a, b: torch.dot(a, b), inputs=(In(shape=(7,), on=0), In(shape=(7,), on=0)), dim=0,
              classes=("on", "rep")),
    # Copies and factories: clone/fill_ share the default strategy; the *_like group, full_like
    # and the new_* group are three more registrations.
    "clone_fill_": Op(lambda x: (x.clone(), x.clone().fill_(1.5)), dim=None),
    # The default strategy propagates a Partial input: right for clone, not for fill_ (MX-007).
    "clone_of_partial": Op(lambda x: x.clone(), dim=None, classes=("partial",)),
    "fill_of_partial": Op(lambda x: x.clone().fill_(1.5), dim=None, classes=("partial",)),
    "zeros_like": Op(lambda x: (torch.zeros_like(x), torch.ones_like(x)), dim=None),
    "full_like": Op(lambda x: torch.full_like(x, 3.0), dim=None),
    "new_ones": Op(lambda x: x.new_ones((3, 4)), dim=None, keeps=False),
    # More registered strategies: scatter-like writes into a slice / a select / the diagonal,
    # index_fill, bucketize, histc, cross product, dtype conversion (linear: a Partial input
    # stays pending), FFT over the dim, pooling and upsampling over spatial dims.
    "index_fill": Op(lambda x, i: x.index_fill(1, i, -2.0), inputs=(In(), _idx(7, (3,)))),
    "slice_scatter": Op(lambda x, v: torch.slice_scatter(x, v, dim=1, start=1, end=4),
                        inputs=(In(), In(shape=(5, 3), on=1, other=0))),
    "select_scatter": Op(lambda x, v: torch.select_scatter(x, v, 1, 2), inputs=(In(), _w((5,)))),
    "diagonal_scatter": Op(lambda x, v: torch.diagonal_scatter(x, v), inputs=(In(), _w((5,))), dim=None,
                           keeps=False),
    "bucketize": Op(lambda x, b: torch.bucketize(x, b), inputs=(In(), In(shape=(4,), kind="sorted", placed=False)),
                    dim=None),
    "histc": Op(lambda x: torch.histc(x, bins=6, min=-2, max=2), dim=None, keeps=False),
    "linalg_cross": Op(lambda a, b: torch.linalg.cross(a, b, dim=1), inputs=(In(shape=(5, 3)), In(shape=(5, 3)))),
    # tol: the Partial parts are float32 roundings of the value, summed after the conversion
    "to_dtype": Op(lambda x: x.to(torch.float64), dim=None, partial=True, tol=(1e-6, 1e-6)),
    "rfft": Op(lambda x: torch.view_as_real(torch.fft.rfft(x, dim=1)), keeps=True),
    "pool2d": Op(lambda x: (F.avg_pool2d(x, 2), F.max_pool2d(x, 2)), inputs=(In(shape=(5, 3, 6, 8)),), dim=3,
                 other=0),  # avg and max pooling share one strategy
    "upsample_nearest2d": Op(lambda x: F.interpolate(x, scale_factor=2, mode="nearest"),
                             inputs=(In(shape=(5, 3, 6, 8)),), dim=3, other=0),
    # Convolution: the batch sharded (local conv) or the channels (the weight is replicated).
    "conv1d": Op(lambda x, w: F.conv1d(x, w, padding=1), inputs=(In(shape=(5, 3, 8)), _w((4, 3, 3))), dim=2, other=0,
                 classes=("on", "other", "rep")),
    "conv2d": Op(lambda x, w: F.conv2d(x, w, padding=1), inputs=(In(shape=(5, 3, 6, 8)), _w((2, 3, 3, 3))), dim=3,
                 other=0, classes=("on", "other", "rep")),
    "conv1d_channels": Op(lambda x, w: F.conv1d(x, w, padding=1), inputs=(In(shape=(5, 3, 8)), _w((4, 3, 3))), dim=1,
                          other=0, classes=("on",)),
}
