"""DTensor beyond single ops (case bodies, run on every rank of the pool): autograd through
DTensor, tensor parallel styles, distributed checkpoint resharding, the DeviceMesh API and
DTensor API edges. References are single-process, built on every rank from fixed seeds.

Collectives come first in every body and assertions after, so a rank that fails does not
leave the others waiting in a collective it never joins.
"""

from __future__ import annotations

from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor

from porting.matrix.monarch_util import load_file

_here = Path(__file__).resolve().parent
dc = load_file(_here / "dtensor_cases.py", "port_matrix_dtensor_cases")
oc = load_file(_here / "op_cases.py", "port_matrix_op_cases")

# ---------------------------------------------------------------------------------------
# Backward: an op table entry (op_cases.OPS, plus the few below that the forward table
# leaves to test_ops) differentiated through DTensor; each input's grad against autograd on
# the full tensors.

BACKWARD_EXTRA = {
    "sum_dim": oc.Op(lambda x: torch.sum(x, dim=1)),
    "mean_dim": oc.Op(lambda x: torch.mean(x, dim=1)),
    "mm": oc.Op(lambda a, b: a @ b, inputs=(oc.In(on=1, other=0), oc.In(shape=(7, 4), on=0, other=1))),
    "reshape": oc.Op(lambda x: x.reshape(4, 12), inputs=(oc.In(shape=(8, 6)),), dim=None),
    "transpose": oc.Op(lambda x: x.t()),
}
# Each name's backward is another aten backward op (or composition) with its own strategy:
# e.g. _softmax_backward_data, native_layer_norm_backward, embedding_dense_backward,
# nll_loss_backward, index_put for index/index_select, gather for scatter_add, slice_backward
# for narrow/pad, select_backward, sum over the repeated dim for repeat/expand.
BACKWARD = ["softmax", "layer_norm", "rms_norm", "embedding", "addmm", "bmm", "cumsum", "scan", "max_dim",
            "logsumexp", "prod", "var_std", "norm_2", "index_select", "index_tensor", "index_put", "gather",
            "scatter_add", "cat", "split", "narrow", "select", "expand", "repeat", "constant_pad", "roll", "flip",
            "masked_fill", "nll_loss", "cross_entropy", "mse_loss_sum", *BACKWARD_EXTRA]


# prod's backward formula fails the same way under every placement (MX-008): one case.
BACKWARD_CLASSES = {"prod": ("rep",)}


def backward_op(name: str):
    return BACKWARD_EXTRA.get(name) or oc.OPS[name]


def backward_classes(name: str) -> tuple[str, ...]:
    """The forward classes of the op (a Partial input has no leaf gradient to compare)."""
    # The declared classes: a replicated forward's backward is kept as its own case here.
    classes = BACKWARD_CLASSES.get(name) or backward_op(name).declared_classes()
    return tuple(k for k in classes if k != "partial")


def _grad_layout(out):
    return [Replicate() if p.is_partial() else p for p in out.placements]


def backward(ctx, mesh, name, klass):
    op = backward_op(name)
    fulls = [oc._make(spec, 100 + i, ctx.device) for i, spec in enumerate(op.inputs)]
    leaves = [t.clone().requires_grad_(t.dtype.is_floating_point) for t in fulls]
    want_out = oc._outputs(op.fn(*leaves))
    weights = [oc._make(oc.In(shape=tuple(w.shape)), 300 + i, ctx.device) for i, w in enumerate(want_out)]
    sum(((w * g).sum() for w, g in zip(weights, want_out) if g.dtype.is_floating_point),
        torch.zeros(())).backward()
    dts = [oc._place(ctx, mesh, oc.placements_for(op, klass, i), t).detach().requires_grad_(t.dtype.is_floating_point)
           for i, t in enumerate(fulls)]
    pairs = [(w, g) for w, g in zip(weights, oc._outputs(op.fn(*dts))) if g.dtype.is_floating_point]
    # Each output's gradient is laid out like the output (a pending sum's as Replicate), so
    # the grads below come from the op's backward strategy, not from a loss reduction.
    torch.autograd.backward([g for _, g in pairs],
                            [distribute_tensor(w, g.device_mesh, _grad_layout(g)) for w, g in pairs])
    grads = [d.grad.full_tensor() if d.grad is not None else None for d in dts]  # collectives first
    for i, (d, leaf, g) in enumerate(zip(dts, leaves, grads)):
        if leaf.grad is None:
            continue
        assert g is not None, f"{name} [{klass}]: input {i} got no gradient"
        assert d.grad.device_mesh == d.device_mesh, f"{name}: grad {i} on another mesh"
        oc._compare(g, leaf.grad, (1e-4, 1e-4), f"{name} [{klass}] grad of input {i}")
    if klass == "other":  # the backward stays local too: the first placed input's grad keeps its shard
        i, spec = next((i, s) for i, s in enumerate(op.inputs) if s.placed)
        want = [Shard(spec.other if spec.other is not None else op.other)]
        assert list(dts[i].grad.placements) == want, \
            f"{name}: grad of input {i} is {dts[i].grad.placements}, expected {want} (sharded off the op's dim)"
    return [str(list(d.grad.placements)) for d in dts if d.grad is not None]


# ---------------------------------------------------------------------------------------
# Tensor parallel (torch.distributed.tensor.parallel) on small modules, against the same
# module run single-process.


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(8)
        self.up = nn.Linear(8, 16)
        self.down = nn.Linear(16, 8)

    def forward(self, x):
        return self.down(F.relu(self.up(self.norm(x))))


class Embed(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(12, 8)
        self.proj = nn.Linear(8, 4)

    def forward(self, i):
        return self.proj(self.emb(i))


def _tp_plan(style: str):
    from torch.distributed.tensor.parallel import (
        ColwiseParallel,
        PrepareModuleInput,
        PrepareModuleOutput,
        RowwiseParallel,
        SequenceParallel,
    )

    return {
        "colwise": (MLP, {"up": ColwiseParallel(output_layouts=Replicate())}),
        "rowwise": (MLP, {"down": RowwiseParallel(input_layouts=Replicate())}),
        "mlp": (MLP, {"up": ColwiseParallel(), "down": RowwiseParallel()}),
        "colwise_local_output_false": (MLP, {"up": ColwiseParallel(use_local_output=False),
                                             "down": RowwiseParallel()}),
        "sequence_parallel": (MLP, {"norm": SequenceParallel(), "up": ColwiseParallel(input_layouts=Replicate()),
                                    "down": RowwiseParallel(output_layouts=Shard(1))}),
        "prepare_input_output": (MLP, {"norm": PrepareModuleInput(input_layouts=Shard(1),
                                                                   desired_input_layouts=Replicate(),
                                                                   use_local_output=True),
                                       "down": PrepareModuleOutput(output_layouts=Replicate(),
                                                                   desired_output_layouts=Shard(0))}),
        "embedding_rowwise": (Embed, {"emb": RowwiseParallel(input_layouts=Replicate())}),
        "embedding_colwise": (Embed, {"emb": ColwiseParallel(output_layouts=Replicate())}),
    }[style]


def _tp_input(style: str, device: str):
    g = torch.Generator().manual_seed(11)
    if style.startswith("embedding"):
        return torch.randint(0, 12, (4, 6), generator=g).to(device)
    return torch.randn(4, 8, 8, generator=g).to(device)


def _tp_feed(style, mesh, x):
    """What the parallelized module is called with: sequence-sharded for the styles whose
    first module expects Shard(1) (SequenceParallel, PrepareModuleInput(Shard(1)))."""
    if style in ("sequence_parallel", "prepare_input_output"):
        return distribute_tensor(x, mesh, [Shard(1)]).to_local()
    return x


def tensor_parallel(ctx, mesh, style):
    from torch.distributed.tensor.parallel import parallelize_module

    m = ctx.mesh(mesh)
    kind, plan = _tp_plan(style)
    torch.manual_seed(5)
    ref = kind().to(ctx.device)
    tp = kind().to(ctx.device)
    tp.load_state_dict(ref.state_dict())
    parallelize_module(tp, m, plan)
    x = _tp_input(style, ctx.device)
    want = ref(x)
    want.float().pow(2).sum().backward()
    out = tp(_tp_feed(style, m, x))
    full = _as_full(out, style, m)
    full.float().pow(2).sum().backward()
    grads = {n: (p.grad.full_tensor() if isinstance(p.grad, DTensor) else p.grad) for n, p in tp.named_parameters()}
    dc.check_equal(full.detach(), want.detach(), f"{style}: forward")
    ref_grads = dict(ref.named_parameters())
    bad = [n for n, g in grads.items() if g is None or not torch.allclose(g, ref_grads[n].grad, rtol=1e-4, atol=1e-5)]
    assert not bad, f"{style}: parameter grads differ from the single-process module: {bad}"
    sharded = sorted(n for n, p in tp.named_parameters() if isinstance(p, DTensor) and p.placements[0].is_shard())
    # PrepareModuleInput/Output only convert activations; every other style shards parameters
    assert bool(sharded) == (style != "prepare_input_output"), f"{style}: sharded parameters {sharded}"
    return sharded


def _as_full(out, style, mesh):
    """The module output as the full tensor, differentiable back into the module."""
    if isinstance(out, DTensor):
        return out.full_tensor()
    if style == "prepare_input_output":  # desired_output_layouts=Shard(0): a local batch shard
        return DTensor.from_local(out, mesh, [Shard(0)]).full_tensor()
    if style == "sequence_parallel":  # RowwiseParallel(output_layouts=Shard(1)) returns the local shard
        return DTensor.from_local(out, mesh, [Shard(1)]).full_tensor()
    return out


def loss_parallel(ctx, mesh):
    """cross_entropy on logits sharded on the class dim (on the 2x2 mesh also on the batch
    dim) inside loss_parallel(): the loss and the logits' grad, kept in the logits'
    placements, against the single-process ones."""
    from torch.distributed.tensor.parallel import loss_parallel as ctx_loss_parallel

    m = ctx.mesh(mesh)
    logits = dc.reference((6, 8), torch.float32, ctx.device, seed=21)
    target = torch.randint(0, 8, (6,), generator=torch.Generator().manual_seed(22)).to(ctx.device)
    leaf = logits.clone().requires_grad_()
    # loss_parallel supports reduction='mean' on 1-D meshes only; the 2x2 mesh sums
    reduction = "mean" if m.ndim == 1 else "sum"
    want = F.cross_entropy(leaf, target, reduction=reduction)
    want.backward()
    placements = [Shard(1)] if m.ndim == 1 else [Shard(0), Shard(1)]
    d = distribute_tensor(logits, m, placements).requires_grad_()
    # on the 2x2 mesh the target must be a DTensor sharded like the logits' batch dim
    t = target if m.ndim == 1 else distribute_tensor(target, m, [Shard(0), Replicate()])
    if m.ndim == 2:
        _expect_mean_refused(d, t)
    with ctx_loss_parallel():
        loss = F.cross_entropy(d, t, reduction=reduction)
        loss.backward()
    got = loss.full_tensor()
    grad = d.grad.full_tensor()
    dc.check_equal(got, want.detach(), "loss_parallel cross_entropy")
    assert d.grad.placements == tuple(placements), f"logits grad placements {d.grad.placements}, expected {placements}"
    dc.check_equal(grad, leaf.grad, "loss_parallel logits grad")


def _expect_mean_refused(d, t):
    """loss_parallel refuses reduction='mean' on a 2-D mesh (before any collective)."""
    from torch.distributed.tensor.parallel import loss_parallel as ctx_loss_parallel

    try:
        with ctx_loss_parallel():
            F.cross_entropy(d, t)
    except NotImplementedError as exc:
        assert "only supported on one-dimensional DeviceMesh" in str(exc), str(exc)
        return
    finally:
        _drop_loss_parallel_handlers()
    raise AssertionError("loss_parallel accepted reduction='mean' on a 2-D mesh")


def _drop_loss_parallel_handlers():
    """loss_parallel() (torch 2.14.1) registers its loss handlers on DTensor's dispatcher and
    removes them after the body without a try/finally: a body that raises leaves them for
    every later op on this rank. Remove them so the pool's next cases see plain DTensor."""
    from torch.distributed.tensor.parallel import loss as tp_loss

    handlers = DTensor._op_dispatcher._custom_op_handlers
    for op in tp_loss.customized_loss_ops:
        handlers.pop(op, None)


# ---------------------------------------------------------------------------------------
# Distributed checkpoint: save under one placement, load into another, values equal.


def checkpoint_reshard(ctx, directory, save, load):
    """``save``/``load``: (mesh name, placement names). A (7, 10) float tensor and a (5,)
    int64 one are saved from the first layout and loaded into DTensors of the second."""
    import torch.distributed.checkpoint as dcp

    full = dc.reference((7, 10), torch.float32, ctx.device, seed=31)
    ints = torch.arange(5, device=ctx.device) * 7
    state = {"w": dc.make_dtensor(ctx, save[0], save[1], full), "n": ints}
    dcp.save(state, storage_writer=dcp.FileSystemWriter(directory))
    target = {"w": dc.make_dtensor(ctx, load[0], load[1], torch.zeros_like(full)), "n": torch.zeros_like(ints)}
    dcp.load(target, storage_reader=dcp.FileSystemReader(directory))
    got = target["w"].full_tensor()
    assert [str(p) for p in target["w"].placements] == [str(dc.placement(n)) for n in load[1]], \
        f"load changed the target placements to {target['w'].placements}"
    dc.check_equal(got, full, f"saved as {save}, loaded as {load}")
    dc.check_equal(target["n"], ints, "plain tensor entry")


# ---------------------------------------------------------------------------------------
# DeviceMesh API on the 2x2 mesh (dims "dp", "tp"; rank = 2 * dp + tp).


def mesh_api(ctx, check):
    m = ctx.mesh("2d-2x2")
    dp, tp = divmod(ctx.rank, 2)
    return MESH_CHECKS[check](ctx, m, dp, tp)


def _mesh_names(ctx, m, dp, tp):
    assert m.mesh_dim_names == ("dp", "tp"), m.mesh_dim_names
    assert (m.ndim, tuple(m.shape), m.size(), m.size(0), m.size(1)) == (2, (2, 2), 4, 2, 2), \
        f"ndim/shape/sizes {(m.ndim, tuple(m.shape), m.size(), m.size(0), m.size(1))}"


def _mesh_submesh(ctx, m, dp, tp):
    rows, cols = m["tp"].mesh.tolist(), m["dp"].mesh.tolist()
    assert rows == [2 * dp, 2 * dp + 1], f"mesh['tp'] on rank {ctx.rank}: {rows}"
    assert cols == [tp, tp + 2], f"mesh['dp'] on rank {ctx.rank}: {cols}"
    assert m["tp"].mesh_dim_names == ("tp",) and m["tp"].ndim == 1


def _mesh_local_rank(ctx, m, dp, tp):
    got = (m.get_local_rank("dp"), m.get_local_rank("tp"), m.get_local_rank(0), m.get_local_rank(1))
    assert got == (dp, tp, dp, tp), f"get_local_rank on rank {ctx.rank}: {got}"


def _mesh_coordinate(ctx, m, dp, tp):
    assert list(m.get_coordinate()) == [dp, tp], f"get_coordinate on rank {ctx.rank}: {m.get_coordinate()}"
    assert list(m["tp"].get_coordinate()) == [tp], m["tp"].get_coordinate()


def _mesh_groups(ctx, m, dp, tp):
    """An all_reduce over each mesh dim's group sums the ranks of this rank's row / column."""
    sums = []
    for dim in ("dp", "tp"):
        t = torch.tensor([float(ctx.rank)], device=ctx.device)
        dist.all_reduce(t, group=m.get_group(dim))
        sums.append(int(t.item()))
    sizes = [dist.get_world_size(m.get_group(d)) for d in ("dp", "tp")]
    assert sizes == [2, 2], f"group sizes {sizes}"
    assert sums == [tp + (tp + 2), 2 * dp + (2 * dp + 1)], f"rank {ctx.rank}: dp/tp group sums {sums}"


def _mesh_dtensor_on_submesh(ctx, m, dp, tp):
    """A DTensor on mesh['tp']: two independent 2-rank groups shard the same tensor."""
    full = dc.reference((5, 6), torch.float32, ctx.device, seed=41 + dp)
    d = distribute_tensor(full, m["tp"], [Shard(1)])
    total = d.sum()
    gathered, s = d.full_tensor(), total.full_tensor()
    assert d.device_mesh == m["tp"]
    dc.check_equal(d.to_local(), torch.chunk(full, 2, dim=1)[tp], "local shard on the sub-mesh")
    dc.check_equal(gathered, full, "full_tensor on the sub-mesh")
    dc.check_equal(s, full.sum(), "sum over the sub-mesh")


def _private_2x2(ctx):
    """A fresh 2x2 mesh for checks that change mesh state (flattening registers a flattened
    mesh on its root, which later redistributions use): the pool's shared meshes stay as
    they are for the other cases. Built on every rank (new_group is collective)."""
    from torch.distributed.device_mesh import DeviceMesh

    return DeviceMesh(ctx.device, torch.arange(4).reshape(2, 2), mesh_dim_names=("dp", "tp"))


def _mesh_flatten(ctx, m, dp, tp):
    """Flattening both dims gives one 4-rank dim whose local rank is the global rank."""
    flat = _private_2x2(ctx)["dp", "tp"]._flatten("dp_tp")
    t = torch.tensor([1.0], device=ctx.device)
    dist.all_reduce(t, group=flat.get_group())
    assert flat.size() == 4 and flat.get_local_rank() == ctx.rank, (flat.size(), flat.get_local_rank())
    assert t.item() == 4.0, f"all_reduce over the flattened group: {t.item()}"


def _mesh_flatten_nested_uneven(ctx, m, dp, tp):
    """After flattening, a tensor dim sharded over both mesh dims unevenly ([Shard(1),
    Shard(1)], 6 columns -> 3/3 -> 2/1) still gathers to the original (MX-009)."""
    mesh = _private_2x2(ctx)
    full = torch.arange(42.0, device=ctx.device).reshape(7, 6)
    before = distribute_tensor(full, mesh, [Shard(1), Shard(1)]).full_tensor()
    mesh["dp", "tp"]._flatten("dp_tp")
    after = distribute_tensor(full, mesh, [Shard(1), Shard(1)]).full_tensor()
    dc.check_equal(before, full, "[Shard(1), Shard(1)] before flattening")
    dc.check_equal(after, full, "[Shard(1), Shard(1)] after flattening the mesh")


MESH_CHECKS = {"names_sizes": _mesh_names, "submesh": _mesh_submesh, "local_rank": _mesh_local_rank,
               "coordinate": _mesh_coordinate, "groups": _mesh_groups, "dtensor_on_submesh": _mesh_dtensor_on_submesh,
               "flatten": _mesh_flatten, "flatten_nested_uneven": _mesh_flatten_nested_uneven}


# ---------------------------------------------------------------------------------------
# DTensor API edges on the 4-rank 1-D mesh (every rank takes part: run_check gathers over
# the whole world).


def api_edge(ctx, check):
    return API_CHECKS[check](ctx, ctx.mesh("1d-4"))


def _from_local_run_check_broadcasts(ctx, m):
    """run_check=True with Replicate: differing replicas are replaced by rank 0's data."""
    local = torch.full((3, 4), float(ctx.rank), device=ctx.device)
    d = DTensor.from_local(local, m, [Replicate()], run_check=True)
    mine = torch.full((3, 4), float(ctx.rank), device=ctx.device)
    unchecked = DTensor.from_local(mine, m, [Replicate()], run_check=False)
    assert torch.equal(d.to_local().cpu(), torch.zeros(3, 4)), f"rank {ctx.rank}: replica {d.to_local()[0, 0].item()}"
    assert unchecked.to_local()[0, 0].item() == ctx.rank, "run_check=False changed the local data"


def _from_local_run_check_meta(ctx, m):
    """run_check=True refuses local tensors whose dtype differs across ranks."""
    local = torch.zeros(2, 4, dtype=torch.float64 if ctx.rank == 1 else torch.float32, device=ctx.device)
    try:
        DTensor.from_local(local, m, [Shard(0)], run_check=True)
    except ValueError as exc:
        assert "Inconsistent tensor metadata" in str(exc), str(exc)
        return
    raise AssertionError("mismatched dtypes across ranks were accepted")


def _to_local_grad_placements(ctx, m):
    """to_local(grad_placements=[Partial()]): the plain-tensor grad is taken as a pending sum,
    so the replicated input's grad is the sum of every rank's contribution."""
    x = distribute_tensor(torch.ones(4, 3, device=ctx.device), m, [Replicate()]).requires_grad_()
    local = x.to_local(grad_placements=[Partial()])
    (local * (ctx.rank + 1)).sum().backward()
    grad = x.grad.full_tensor()
    dc.check_equal(grad, torch.full((4, 3), float(1 + 2 + 3 + 4)), "grad through to_local(grad_placements=Partial)")


def _redistribute_async(ctx, m):
    """redistribute(async_op=True) returns before the all-gather completes; the value, once
    used, equals the synchronous one."""
    full = dc.reference((7, 5), torch.float32, ctx.device, seed=51)
    d = distribute_tensor(full, m, [Shard(0)])
    r = d.redistribute(m, [Replicate()], async_op=True)
    local = r.to_local()
    value = local * 1  # waits on the collective
    dc.check_equal(value, full, "async redistribute Shard(0) -> Replicate")


def _local_map(ctx, m):
    """local_map runs a plain-tensor function per shard and rewraps with out_placements."""
    from torch.distributed.tensor.experimental import local_map

    full = dc.reference((8, 6), torch.float32, ctx.device, seed=52)
    row_norm = local_map(lambda t: t.pow(2).sum(1), out_placements=[Shard(0)], in_placements=([Shard(0)],),
                         device_mesh=m)
    out = row_norm(distribute_tensor(full, m, [Shard(0)]))
    got = out.full_tensor()
    assert out.placements == (Shard(0),), out.placements
    dc.check_equal(got, full.pow(2).sum(1), "local_map row norms")


def _distribute_module(ctx, m):
    """distribute_module with a partition_fn: Linear weight sharded on dim 0, bias
    replicated, inputs replicated by input_fn; the output equals the plain module's."""
    from torch.distributed.tensor import distribute_module

    torch.manual_seed(6)
    ref = nn.Linear(6, 8).to(ctx.device)
    mod = nn.Linear(6, 8).to(ctx.device)
    mod.load_state_dict(ref.state_dict())

    def partition(name, module, mesh):
        module.weight = nn.Parameter(distribute_tensor(module.weight.detach(), mesh, [Shard(0)]))
        module.bias = nn.Parameter(distribute_tensor(module.bias.detach(), mesh, [Replicate()]))

    def replicate_inputs(module, inputs, mesh):
        return tuple(distribute_tensor(i, mesh, [Replicate()]) for i in inputs)

    distribute_module(mod, m, partition, input_fn=replicate_inputs)
    x = dc.reference((3, 6), torch.float32, ctx.device, seed=53)
    out = mod(x)
    got = out.full_tensor()
    assert mod.weight.placements == (Shard(0),), mod.weight.placements
    dc.check_equal(got, ref(x).detach(), "distribute_module Linear")


def _factories(ctx, m):
    """DTensor factories (ones/zeros/full) build each rank's shard of the global shape."""
    from torch.distributed.tensor import full, ones, zeros

    made = {"ones": ones(5, 7, device_mesh=m, placements=[Shard(0)]),
            "zeros": zeros(5, 7, device_mesh=m, placements=[Shard(1)]),
            "full": full((5, 7), 2.5, device_mesh=m, placements=[Replicate()])}
    gathered = {k: v.full_tensor() for k, v in made.items()}
    dc.check_equal(gathered["ones"], torch.ones(5, 7), "ones")
    dc.check_equal(gathered["zeros"], torch.zeros(5, 7), "zeros")
    dc.check_equal(gathered["full"], torch.full((5, 7), 2.5), "full")
    want_local = torch.chunk(torch.empty(5, 7), 4, dim=0)
    c = m.get_coordinate()[0]
    local_rows = want_local[c].shape[0] if c < len(want_local) else 0
    assert made["ones"].to_local().shape == (local_rows, 7), f"ones local shape {made['ones'].to_local().shape}"


def _distribute_src_data_rank(ctx, m):
    """distribute_tensor takes the data from src_data_rank (default 0): other ranks' data is
    ignored; src_data_rank=None uses each rank's own local chunk without communication."""
    mine = torch.full((4, 3), float(ctx.rank), device=ctx.device)
    from_zero = distribute_tensor(mine, m, [Shard(0)]).full_tensor()
    local_only = distribute_tensor(mine, m, [Shard(0)], src_data_rank=None).full_tensor()
    dc.check_equal(from_zero, torch.zeros(4, 3), "src_data_rank=0")
    dc.check_equal(local_only, torch.arange(4.0).repeat_interleave(3).reshape(4, 3), "src_data_rank=None")


def _inplace_needs_redistribute(ctx, m):
    """An in-place op whose strategy needs the input replicated is refused: DTensor does not
    change an in-place argument's placement."""
    d = distribute_tensor(dc.reference((5, 7), torch.float32, ctx.device, seed=54), m, [Shard(0)])
    idx = distribute_tensor(torch.tensor([0, 2], device=ctx.device), m, [Replicate()])
    values = distribute_tensor(torch.ones(2, 7, device=ctx.device), m, [Replicate()])
    try:
        d.index_put_((idx,), values, accumulate=True)
    except RuntimeError as exc:
        assert "Sharding propagation failed" in str(exc) and "index_put_" in str(exc), str(exc)[:400]
        return
    raise AssertionError("in-place index_put_ on the sharded dim ran")


def _cross_mesh_refused(ctx, m):
    """Redistributing onto another mesh is refused before any communication."""
    d = distribute_tensor(torch.ones(4, 4, device=ctx.device), m, [Shard(0)])
    other = ctx.mesh("2d-2x2")["tp"]
    try:
        d.redistribute(other, [Replicate()])
    except NotImplementedError as exc:
        assert "Cross device mesh comm not supported" in str(exc), str(exc)
        return
    raise AssertionError("redistribute onto another mesh ran")


def _random_replicated(ctx, m):
    """Random ops on a replicated DTensor after the same manual_seed on every rank: identical
    replicas (checked by gathering every rank's local tensor). On a CPU mesh DTensor has no
    RNG tracker (is_rng_supported_mesh is False), on GPU meshes it has one."""
    from torch.distributed.tensor._random import is_rng_supported_mesh

    draws = {}
    for name, fn in {"uniform_": lambda t: t.uniform_(-1, 1), "normal_": lambda t: t.normal_(),
                     "rand_like": torch.rand_like, "dropout": lambda t: F.dropout(t + 1, 0.5)}.items():
        torch.manual_seed(61)
        d = distribute_tensor(torch.zeros(6, 5, device=ctx.device), m, [Replicate()])
        draws[name] = fn(d).to_local()
    stacked = torch.stack(list(draws.values()))
    gathered = [torch.empty_like(stacked) for _ in range(m.size())]
    dist.all_gather(gathered, stacked, group=m.get_group())
    supported = is_rng_supported_mesh(m)
    assert supported == (m.device_type == "cuda"), f"is_rng_supported_mesh={supported} on a {m.device_type} mesh"
    differ = [r for r in range(m.size()) if not torch.equal(gathered[r], gathered[0])]
    assert not differ, f"replicated random draws differ on ranks {differ}"


def _random_sharded(ctx, m):
    """Random ops on a sharded DTensor keep the placement and the global shape; every value
    lies in the op's support (uniform in [a, b), dropout's output is 0 or x / (1 - p))."""
    torch.manual_seed(62)
    d = distribute_tensor(torch.zeros(7, 6, device=ctx.device), m, [Shard(0)])
    u = d.uniform_(2.0, 3.0)
    drop = F.dropout(distribute_tensor(torch.ones(7, 6, device=ctx.device), m, [Shard(0)]), 0.25)
    full_u, full_drop = u.full_tensor(), drop.full_tensor()
    assert u.placements == (Shard(0),) and drop.placements == (Shard(0),), (u.placements, drop.placements)
    assert full_u.shape == (7, 6) and bool(((full_u >= 2) & (full_u < 3)).all()), "uniform_ outside [2, 3)"
    values = set(full_drop.unique().tolist())
    kept = torch.tensor(1 / 0.75, dtype=torch.float32).item()  # 1 / (1 - p) in float32
    assert values <= {0.0, kept}, f"dropout values {sorted(values)}"


def _random_factory(ctx, m):
    """torch.distributed.tensor.randn builds each rank's shard of the global shape."""
    from torch.distributed.tensor import randn

    d = randn(5, 7, device_mesh=m, placements=[Shard(0)])
    full = d.full_tensor()
    assert full.shape == (5, 7) and d.placements == (Shard(0),), (full.shape, d.placements)


API_CHECKS = {
    "from_local_run_check_broadcasts": _from_local_run_check_broadcasts,
    "from_local_run_check_meta": _from_local_run_check_meta,
    "to_local_grad_placements": _to_local_grad_placements,
    "redistribute_async": _redistribute_async,
    "local_map": _local_map,
    "distribute_module": _distribute_module,
    "factories": _factories,
    "distribute_src_data_rank": _distribute_src_data_rank,
    "inplace_needs_redistribute": _inplace_needs_redistribute,
    "cross_mesh_refused": _cross_mesh_refused,
    "random_replicated": _random_replicated,
    "random_sharded": _random_sharded,
    "random_factory": _random_factory,
}
