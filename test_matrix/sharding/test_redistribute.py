"""DTensor redistribute between placements, 1-D and 2-D meshes, full_tensor() == reference.

Redistributing *to* a Partial placement is refused by DTensor.redistribute's argument check
(Partial is a pending reduction, normally produced by ops), except Shard -> Partial(sum) from
torch 2.14 on: the refused pairs share one case that checks each refusal's message, the
accepted one checks each rank's local tensor and the sum over ranks.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_file
from porting.matrix.params import BACKENDS

pytestmark = [pytest.mark.component("sharding"), pytest.mark.parametrize("backend", BACKENDS)]

_here = Path(__file__).resolve().parent
cases = load_file(_here / "dtensor_cases.py", "port_matrix_dtensor_cases")
helpers = load_file(_here / "conftest.py", "port_matrix_sharding_helpers")

ONE_D = ["S0", "S1", "R", "Psum", "Pavg", "Pmax"]
TWO_D = ["S0", "S1", "R", "Psum"]
SHAPES = {"even": (8, 12), "uneven": (7, 5)}
DTYPES = ["float32", "int64"]
MESHES_1D = ["1d-2", "1d-4"]


def _refused(src, dst) -> bool:
    return any(d.startswith("P") and d != s for s, d in zip(src, dst)) and not cases.to_partial_supported(src, dst)


def _one_d_params():
    """The accepted 1-D pairs, with the axes split only where they change the path.

    Each (src, dst) is another redistribute path (all-gather, all-to-all, reduce-scatter,
    all-reduce, local chunk, local zero-fill, no-op). The mesh and the shape are split where a
    Shard is on either side (2 or 4 chunks; uneven shards pad the collectives, and on 1d-4 the
    uneven shape leaves a rank empty) and folded otherwise (pairs without a Shard run on 1d-4
    with both shapes); the dtype is split where a Partial source is reduced (a float and an
    exact integer reduction) and folded otherwise.
    """
    out = []
    for mesh, src, dst in itertools.product(MESHES_1D, ONE_D, ONE_D):
        sharded = "S" in src[0] + dst[0]
        if _refused([src], [dst]) or (not sharded and mesh != "1d-4") or src == dst:
            continue  # src == dst: torch's one no-op branch for every placement (test_redistribute_1d_noop)
        shapes = [[name] for name in SHAPES] if sharded else [list(SHAPES)]
        dtypes = [[dt] for dt in DTYPES] if src.startswith("P") else [DTYPES]
        for shape, dtype in itertools.product(shapes, dtypes):
            case_id = f"{mesh}-{src}-{dst}-{'+'.join(shape)}-{'+'.join(dtype)}"
            out.append(pytest.param(mesh, src, dst, shape, dtype, id=case_id,
                                    marks=pytest.mark.requires(world_size=helpers.MESH_WORLD[mesh])))
    return out


# Distinct per (src, dst) path; shape and dtype split only where they change it (_one_d_params).
@pytest.mark.parametrize("mesh,src,dst,shape,dtype", _one_d_params())
def test_redistribute_1d(rank_pool, mesh, src, dst, shape, dtype):
    out = rank_pool.run(cases.redistribute, ranks=helpers.mesh_ranks(mesh), mesh=mesh, src=[src], dst=[dst],
                        shapes=[SHAPES[s] for s in shape], dtypes=dtype)
    assert set(out) == {"ok"}, out


@pytest.mark.parametrize("mesh", [helpers.mesh_param("1d-4")])
def test_redistribute_1d_noop(rank_pool, mesh):
    """Source == target for every 1-D placement: DTensor.redistribute returns before planning
    (the local tensor is reused, no collective); one case holds all six, with uneven shards."""
    out = rank_pool.run(cases.redistribute_same, ranks=helpers.mesh_ranks(mesh), mesh=mesh,
                        layouts=[[p] for p in ONE_D])
    assert set(out) == {"ok"}, out


REFUSED = ([("1d-4", [s], [d]) for s, d in itertools.product(ONE_D, ONE_D) if _refused([s], [d])]
           + [("2d-2x2", ["S0", "R"], ["S0", "Psum"]), ("2d-2x2", ["R", "S1"], ["Pmax", "S1"]),
              ("2d-2x2", ["Psum", "R"], ["Pavg", "R"])])


# One case: every refused pair (13 on the 1-D mesh, and 2-D pairs asking one mesh dim for a
# Partial) stops at the same argument check before any communication.
@pytest.mark.parametrize("mesh", [helpers.mesh_param("2d-2x2")])
def test_redistribute_to_partial_refused(rank_pool, mesh):
    out = rank_pool.run(cases.to_partial_rejected, ranks=helpers.mesh_ranks(mesh), pairs=REFUSED)
    assert set(out) == {"rejected"}, out


TWO_D_PAIRS = [(a, b) for a in itertools.product(TWO_D, TWO_D)
               for b in itertools.product(["S0", "S1", "R"], ["S0", "S1", "R"])]


# Distinct per pair: each is another multi-step plan over the two mesh dims (per-dim
# transforms and their order, nested sharding of one tensor dim); the pairs whose source
# equals the target are all the same no-op path and share one case.
@pytest.mark.parametrize("src,dst", [p for p in TWO_D_PAIRS if p[0] != p[1]],
                         ids=lambda p: "".join(p) if isinstance(p, tuple) else p)
@pytest.mark.parametrize("mesh", [helpers.mesh_param("2d-2x2")])
def test_redistribute_2d(rank_pool, mesh, src, dst):
    out = rank_pool.run(cases.redistribute, ranks=helpers.mesh_ranks(mesh), mesh=mesh, src=list(src),
                        dst=list(dst), shapes=[(7, 6)], dtypes=["float32"])
    assert set(out) == {"ok"}, out


@pytest.mark.parametrize("mesh", [helpers.mesh_param("2d-2x2")])
def test_redistribute_2d_noop(rank_pool, mesh):
    """Source == target on both mesh dims: the local tensor is reused, the value unchanged."""
    same = [list(p[0]) for p in TWO_D_PAIRS if p[0] == p[1]]
    out = rank_pool.run(cases.redistribute_same, ranks=helpers.mesh_ranks(mesh), mesh=mesh, layouts=same)
    assert set(out) == {"ok"}, out
