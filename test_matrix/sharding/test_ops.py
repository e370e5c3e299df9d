"""DTensor ops under sharding propagation: elementwise (incl. on Partial inputs), matmul,
reductions, views; and our
native shard kernels against DTensor's local shards. full_tensor() is compared with the
single-process reference (exact for integers, dtype tolerances otherwise)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_file
from porting.matrix.params import BACKENDS, GLOO_ONLY, MEMORY

# The backend is chosen per case: the native kernels run over device memory on the NCCL
# twin, the op cases are gloo only (params.GLOO_ONLY says why).
pytestmark = [pytest.mark.component("sharding")]

_here = Path(__file__).resolve().parent
cases = load_file(_here / "dtensor_cases.py", "port_matrix_dtensor_cases")
helpers = load_file(_here / "conftest.py", "port_matrix_sharding_helpers")

MESHES_1D = [helpers.mesh_param("1d-2"), helpers.mesh_param("1d-4")]
LAYOUTS = {  # mesh -> placements tried for ops
    # Replicate only once on a 1-D mesh: a replicated input runs the op locally on any mesh.
    "1d-2": [["S0"], ["S1"]],
    "1d-4": [["S0"], ["S1"], ["R"]],
    "2d-2x2": [["S0", "S1"], ["R", "S0"], ["S1", "R"]],
}
ALL_MESH_LAYOUTS = [pytest.param(m, lay, marks=pytest.mark.requires(world_size=helpers.MESH_WORLD[m]),
                                 id=f"{m}-{'.'.join(lay)}") for m, lays in LAYOUTS.items() for lay in lays]


# Distinct per layout: each (mesh, placements) is another input sharding of the pointwise
# strategy; the ops and dtypes share that strategy, so they are looped inside the case.
@pytest.mark.parametrize("backend", GLOO_ONLY)
@pytest.mark.parametrize("mesh,names", ALL_MESH_LAYOUTS)
def test_elementwise(rank_pool, mesh, names):
    rank_pool.run(cases.elementwise, ranks=helpers.mesh_ranks(mesh), mesh=mesh, names=names, shape=(6, 10))


FOUR = pytest.mark.requires(world_size=4)
PARTIAL_LAYOUTS = [pytest.param("1d-4", ["Psum"], marks=FOUR, id="1d-4-Psum"),
                   pytest.param("2d-2x2", ["Psum", "S0"], marks=FOUR, id="2d-2x2-Psum.S0")]


# Distinct per op on a Partial(sum) input: add (both pending), neg, scalar mul and mul (one
# factor reduced) take linear-pointwise strategies that keep the pending sum; abs and maximum
# reduce it first. sub and div_scalar run inside add and mul_scalar: porting.matrix.pathsets
# recorded the same lines in torch.distributed and the same collectives for each pair, on both
# layouts (their table rows' lambdas are the only lines that differ; docs/matrix.md, Balance).
PARTIAL_FOLDS = {"add": ["sub"], "mul_scalar": ["div_scalar"]}


@pytest.mark.parametrize("backend", GLOO_ONLY)
@pytest.mark.parametrize("op", [o for o in cases.PARTIAL_POINTWISE if o not in {"sub", "div_scalar"}])
@pytest.mark.parametrize("mesh,names", PARTIAL_LAYOUTS)
def test_pointwise_partial(rank_pool, mesh, names, op):
    variants = [(o, {"mesh": mesh, "names": names, "op": o}) for o in [op, *PARTIAL_FOLDS.get(op, [])]]
    helpers.run_folded(rank_pool, cases.pointwise_partial, helpers.mesh_ranks(mesh), variants)


def _matmul_params():
    """Distinct per pattern (another mm strategy), per mesh and per mkn where a Shard is
    involved (uneven shards change the strategy torch picks). RxR has no shard: every mesh and
    shape takes the same replicated local mm, so it runs once."""
    out = []
    for mesh, pattern, (mkn_id, mkn) in itertools.product(MESHES_1D, cases.MATMUL, MATMUL_MKN.items()):
        if pattern == "RxR" and (mesh.id != "1d-4" or mkn_id != "even"):
            continue
        out.append(pytest.param(mesh.values[0], pattern, mkn, id=f"{mesh.id}-{pattern}-{mkn_id}", marks=mesh.marks))
    return out


MATMUL_MKN = {"even": (8, 6, 4), "uneven": (7, 5, 3)}


# The dtypes only change data and are looped inside the case.
@pytest.mark.parametrize("backend", GLOO_ONLY)
@pytest.mark.parametrize("mesh,pattern,mkn", _matmul_params())
def test_matmul(rank_pool, mesh, pattern, mkn):
    rank_pool.run(cases.matmul, ranks=helpers.mesh_ranks(mesh), mesh=mesh, pattern=pattern, mkn=mkn)


REDUCTION_OPS = ["sum", "mean", "amax", "amin"]
REDUCTION_DIMS = [(0, "dim0"), (1, "dim1"), (None, "all")]


def _sharded_tensor_dims(names) -> set[int]:
    return {int(n[1:]) for n in names if n.startswith("S")}


# Reductions whose paths porting.matrix.pathsets recorded as identical on every rank (lines in
# torch.distributed and this pack's helpers, and the collective sequence; 2026-12-07, see
# docs/matrix.md, Balance): reducing a dim the layout does not shard runs the op locally
# whatever the op and the sharded dim, and on 1d-2 both sharded dims take one path. The first
# id of each row is kept and runs the others' inputs after its own (run_folded names each
# failure); the folded ids and their NCCL twins are not cases of their own.
REDUCTION_FOLDS = {
    "1d-2-S0-amax-dim1": ["1d-2-S0-amin-dim1", "1d-2-S1-sum-dim0", "1d-2-S1-amax-dim0", "1d-2-S1-amin-dim0"],
    "1d-4-S0-amax-dim1": ["1d-4-S0-amin-dim1", "1d-4-S1-sum-dim0", "1d-4-S1-amax-dim0", "1d-4-S1-amin-dim0"],
    "2d-2x2-R.S0-sum-dim1": ["2d-2x2-R.S0-amax-dim1", "2d-2x2-R.S0-amin-dim1"],
    "1d-2-S0-amax-dim0": ["1d-2-S1-amax-dim1"],
    "1d-2-S0-amin-dim0": ["1d-2-S1-amin-dim1"],
    "1d-2-S0-mean-dim1": ["1d-2-S1-mean-dim0"],
    "1d-2-S0-sum-dim0": ["1d-2-S1-sum-dim1"],
    "1d-4-S0-amin-dim0": ["1d-4-S1-amin-dim1"],
    # Split in the first run only by DTensorSpec.__eq__ lines on rank 0 (a cache lookup meeting
    # an equal hash), identical in the second run (docs/matrix.md, Balance).
    "1d-4-S0-amax-dim0": ["1d-4-S1-amax-dim1"],
    "1d-4-S0-mean-dim1": ["1d-4-S1-mean-dim0"],
    "1d-4-S0-sum-dim0": ["1d-4-S1-sum-dim1"],
    "2d-2x2-S1.R-sum-dim0": ["2d-2x2-S1.R-amax-dim0"],
}
_FOLDED = {f for folds in REDUCTION_FOLDS.values() for f in folds}


def _reduction_params():
    """gloo for every (layout, op, dim) but three kinds of repeat: a replicated layout keeps
    Replicate whatever the op and dims (torch's map_placements_after_reduction;
    test_reduction_replicated runs its pairs in one case); reducing all dims of a layout that
    shards one tensor dim makes the same Partial on the same mesh dim as reducing that dim (the
    'all' case is kept where two tensor dims are sharded); and the measured repeats of
    REDUCTION_FOLDS, run inside the case they repeat. The NCCL twin only for amin: Partial(min)
    is the one Partial reduce op no redistribute case sends through NCCL/RCCL's all-reduce (sum,
    avg and max are test_redistribute_1d's Psum/Pavg/Pmax); it reduces every sharded tensor dim,
    so each sharded mesh dim of the layout is a Partial(min)."""
    out = []
    for (mesh, names), op, (dim, dim_id) in itertools.product(REDUCTION_LAYOUTS, REDUCTION_OPS, REDUCTION_DIMS):
        sharded = _sharded_tensor_dims(names)
        lid, world = f"{mesh}-{'.'.join(names)}", pytest.mark.requires(world_size=helpers.MESH_WORLD[mesh])
        if (dim is None and len(sharded) == 1) or f"{lid}-{op}-{dim_id}" in _FOLDED:
            continue
        out.append(pytest.param(mesh, names, op, dim, "gloo", id=f"{lid}-{op}-{dim_id}-gloo", marks=world))
        every_sharded_dim = dim is None or sharded == {dim}
        if op == "amin" and every_sharded_dim:
            out.append(pytest.param(mesh, names, op, dim, BACKENDS[1].values[0], id=f"{lid}-{op}-{dim_id}-nccl",
                                    marks=[world, *BACKENDS[1].marks]))
    return out


def _reduction_variant(case_id: str) -> dict:
    """'1d-4-S1-amax-dim0' -> the kwargs of cases.reduction."""
    mesh, layout, op, dim_id = case_id.rsplit("-", 3)
    dim = {d_id: d for d, d_id in REDUCTION_DIMS}[dim_id]
    return {"mesh": mesh, "names": layout.split("."), "op": op, "dim": dim}


REDUCTION_LAYOUTS = [(m, lay) for m, lays in LAYOUTS.items() for lay in lays if lay != ["R"]]


# Distinct per op (sum/mean reduce through Partial sum/avg, amax/amin through Partial
# max/min), per dim (reducing the sharded dim or another; all where two dims are sharded) and
# per sharded layout; the dtypes (float32, and int64 where torch has it) are looped inside.
@pytest.mark.parametrize("mesh,names,op,dim,backend", _reduction_params())
def test_reduction(rank_pool, mesh, names, op, dim):
    own = f"{mesh}-{'.'.join(names)}-{op}-{dict((d, i) for d, i in REDUCTION_DIMS)[dim]}"
    variants = [(own, {"mesh": mesh, "names": names, "op": op, "dim": dim})]
    variants += [(f, _reduction_variant(f)) for f in REDUCTION_FOLDS.get(own, [])]
    helpers.run_folded(rank_pool, cases.reduction, helpers.mesh_ranks(mesh), variants)


@pytest.mark.parametrize("backend", GLOO_ONLY)
@pytest.mark.parametrize("mesh", [helpers.mesh_param("1d-4")])
def test_reduction_replicated(rank_pool, mesh):
    out = rank_pool.run(cases.reduction_replicated, ranks=helpers.mesh_ranks(mesh), mesh=mesh,
                        ops=REDUCTION_OPS, dims=[d for d, _ in REDUCTION_DIMS])
    assert set(out) == {"ok"}, out


# Distinct per op (amax fails on the empty local shard, sum does not: MX-002), per sharded
# dim and per reduced dim, but where the reduced dim is not the sharded one: there sum and
# amax run locally on one recorded path (porting.matrix.pathsets, docs/matrix.md Balance), so
# amax runs inside the sum case.
EMPTY_SHARD_FOLDS = {"S0-sum-dim1": ["S0-amax-dim1"], "S1-sum-dim0": ["S1-amax-dim0"]}
EMPTY_SHARD_CASES = [
    pytest.param(names, op, dim, id=f"{names[0]}-{op}-{dim_id}")
    for names in (["S0"], ["S1"]) for op in ("sum", "amax") for dim, dim_id in REDUCTION_DIMS
    if f"{names[0]}-{op}-{dim_id}" not in {f for folds in EMPTY_SHARD_FOLDS.values() for f in folds}]


@pytest.mark.parametrize("backend", GLOO_ONLY)
@pytest.mark.parametrize("names,op,dim", EMPTY_SHARD_CASES)
@pytest.mark.parametrize("mesh", [helpers.mesh_param("1d-4")])
def test_reduction_empty_shard(rank_pool, mesh, names, op, dim):
    """(3, 2) over 4 ranks: the last rank(s) hold an empty shard."""
    own = f"{names[0]}-{op}-{dict((d, i) for d, i in REDUCTION_DIMS)[dim]}"
    variants = [(own, {"names": names, "op": op, "dim": dim})]
    variants += [(f, {k: v for k, v in _reduction_variant(f"{mesh}-{f}").items() if k != "mesh"})
                 for f in EMPTY_SHARD_FOLDS.get(own, [])]
    helpers.run_folded(rank_pool, cases.reduction, helpers.mesh_ranks(mesh),
                       [(label, dict(kw, mesh=mesh, dtypes=["float32"], shape=(3, 2))) for label, kw in variants])


# Distinct per view op (each has its own view-op dim map in _view_ops.py) and per sharded
# layout. A replicated layout keeps Replicate through every view op (propagate_shape_and_sharding
# maps only Shard placements through the dim map): its ops run in one case, each failure named.
SHARDED_MESH_LAYOUTS = [p for p in ALL_MESH_LAYOUTS if p.values[1] != ["R"]]


@pytest.mark.parametrize("backend", GLOO_ONLY)
@pytest.mark.parametrize("op", list(cases.VIEWS))
@pytest.mark.parametrize("mesh,names", SHARDED_MESH_LAYOUTS)
def test_view(rank_pool, mesh, names, op):
    rank_pool.run(cases.view, ranks=helpers.mesh_ranks(mesh), mesh=mesh, names=names, op=op)


@pytest.mark.parametrize("backend", GLOO_ONLY)
@pytest.mark.parametrize("mesh", [helpers.mesh_param("1d-4")])
def test_view_replicated(rank_pool, mesh):
    out = rank_pool.run(cases.view_replicated, ranks=helpers.mesh_ranks(mesh), mesh=mesh, ops=list(cases.VIEWS))
    assert set(out) == {"ok"}, out


def _gpu_path(facts):
    return facts.properties.get("port.path") if facts.platform in ("cuda", "rocm") else None


def _native_shard_params():
    """Distinct per shard dim (another stride walk in the kernels) and per shape: even,
    uneven, and tiny where a rank past the last chunk holds an empty shard, which needs more
    ranks than rows (1d-4; on 1d-2 "tiny" is one more uneven split and is not kept)."""
    out = []
    for mesh, dim, (shape_id, shape) in itertools.product(MESHES_1D, [0, 1], NATIVE_SHAPES.items()):
        if shape_id == "tiny" and mesh.id != "1d-4":
            continue
        out.append(pytest.param(mesh.values[0], dim, shape, id=f"{mesh.id}-{dim}-{shape_id}", marks=mesh.marks))
    return out


NATIVE_SHAPES = {"even": (8, 12), "uneven": (7, 5), "tiny": (3, 2)}


# Distinct per memory kind too; the dtypes only change the element width the kernels copy
# and are looped inside the case.
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.component("native")
@pytest.mark.parametrize("memory", MEMORY)
@pytest.mark.parametrize("mesh,dim,shape", _native_shard_params())
def test_native_shard_matches_dtensor(native_libs, facts, rank_pool, mesh, dim, shape, memory):
    native_libs(memory)  # skips with the reason if the build for this placement is absent
    out = rank_pool.run(cases.native_shard, ranks=helpers.mesh_ranks(mesh), mesh=mesh, dim=dim, shape=shape,
                        dtypes=["float32", "int64", "bfloat16"], memory=memory, gpu_path=_gpu_path(facts))
    assert "ok" in out, out


# Distinct per reduce kind (another native reduction and another Partial reduce op).
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.component("native")
@pytest.mark.parametrize("memory", MEMORY)
@pytest.mark.parametrize("kind", ["sum", "avg", "max"])
@pytest.mark.parametrize("mesh", MESHES_1D)
def test_native_reduce_matches_partial(native_libs, facts, rank_pool, mesh, kind, memory):
    native_libs(memory)
    rank_pool.run(cases.native_reduce, ranks=helpers.mesh_ranks(mesh), mesh=mesh, kind=kind, memory=memory,
                  gpu_path=_gpu_path(facts))
