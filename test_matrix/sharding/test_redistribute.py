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
from porting.matrix.params import BACKENDS, GLOO_ONLY

# The backend is chosen per case: the 1-D pairs holding every collective the 1-D paths issue
# run over NCCL/RCCL too (NCCL_1D), the no-op and refusal cases (no communication) and most
# 2-D plans on gloo only.
pytestmark = [pytest.mark.component("sharding")]

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


# The NCCL/RCCL twins kept of the 1-D pairs. What the device mesh adds to a pair is each of
# its collectives on a device communicator (propagation and planning are device-independent,
# params.GLOO_ONLY); porting.matrix.pathsets recorded every gloo pair's collectives (name,
# reduce op, dtype, mesh dim; 2026-12-07) and collective_cover picked these 37 so that each
# collective the 77 recorded twins issue stays issued over NCCL on even and on padded
# (uneven) shards alike (docs/matrix.md, Balance). The Pavg int64 twins are kept too: gloo
# has no avg for integers (MX-001), so there is no recorded path to show they repeat.
NCCL_1D = {
    "1d-2-Pavg-S0-even-float32", "1d-2-Pavg-S0-uneven-float32", "1d-2-Pmax-S0-even-float32",
    "1d-2-Pmax-S0-even-int64", "1d-2-Pmax-S0-uneven-float32", "1d-2-Pmax-S0-uneven-int64",
    "1d-2-Psum-S0-even-float32", "1d-2-Psum-S0-even-int64", "1d-2-Psum-S0-uneven-float32",
    "1d-2-Psum-S0-uneven-int64", "1d-2-R-S0-even-float32+int64", "1d-2-R-S0-uneven-float32+int64",
    "1d-2-S0-Psum-even-float32+int64", "1d-2-S0-Psum-uneven-float32+int64", "1d-2-S0-S1-even-float32+int64",
    "1d-2-S0-S1-uneven-float32+int64", "1d-4-Pavg-R-even+uneven-float32", "1d-4-Pavg-S0-even-float32",
    "1d-4-Pavg-S0-uneven-float32", "1d-4-Pmax-R-even+uneven-float32", "1d-4-Pmax-R-even+uneven-int64",
    "1d-4-Pmax-S0-even-float32", "1d-4-Pmax-S0-even-int64", "1d-4-Pmax-S0-uneven-float32",
    "1d-4-Pmax-S0-uneven-int64", "1d-4-Psum-R-even+uneven-float32", "1d-4-Psum-R-even+uneven-int64",
    "1d-4-Psum-S0-even-float32", "1d-4-Psum-S0-even-int64", "1d-4-Psum-S0-uneven-float32",
    "1d-4-Psum-S0-uneven-int64", "1d-4-R-S0-even-float32+int64", "1d-4-R-S0-uneven-float32+int64",
    "1d-4-S0-Psum-even-float32+int64", "1d-4-S0-Psum-uneven-float32+int64", "1d-4-S0-S1-even-float32+int64",
    "1d-4-S0-S1-uneven-float32+int64",
}


def _nccl_twin(case_id: str) -> bool:
    return case_id in NCCL_1D or ("-Pavg-" in case_id and case_id.endswith("-int64"))


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
        world = pytest.mark.requires(world_size=helpers.MESH_WORLD[mesh])
        for shape, dtype in itertools.product(shapes, dtypes):
            case_id = f"{mesh}-{src}-{dst}-{'+'.join(shape)}-{'+'.join(dtype)}"
            out.append(pytest.param(mesh, src, dst, shape, dtype, "gloo", id=f"{case_id}-gloo", marks=world))
            if _nccl_twin(case_id):
                nccl = BACKENDS[1]
                out.append(pytest.param(mesh, src, dst, shape, dtype, nccl.values[0], id=f"{case_id}-nccl",
                                        marks=[world, *nccl.marks]))
    return out


# Distinct per (src, dst) path; shape and dtype split only where they change it (_one_d_params).
@pytest.mark.parametrize("mesh,src,dst,shape,dtype,backend", _one_d_params())
def test_redistribute_1d(rank_pool, mesh, src, dst, shape, dtype):
    out = rank_pool.run(cases.redistribute, ranks=helpers.mesh_ranks(mesh), mesh=mesh, src=[src], dst=[dst],
                        shapes=[SHAPES[s] for s in shape], dtypes=dtype)
    assert set(out) == {"ok"}, out


@pytest.mark.parametrize("backend", GLOO_ONLY)
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
@pytest.mark.parametrize("backend", GLOO_ONLY)
@pytest.mark.parametrize("mesh", [helpers.mesh_param("2d-2x2")])
def test_redistribute_to_partial_refused(rank_pool, mesh):
    out = rank_pool.run(cases.to_partial_rejected, ranks=helpers.mesh_ranks(mesh), pairs=REFUSED)
    assert set(out) == {"rejected"}, out


TWO_D_PAIRS = [(a, b) for a in itertools.product(TWO_D, TWO_D)
               for b in itertools.product(["S0", "S1", "R"], ["S0", "S1", "R"])]

# The 2-D pairs whose plan torch 2.14.1 makes differently from every other pair's: of the
# 135 pairs whose source differs from the target, 33 repeat another pair's plan (the same
# steps in the same order, each step the same branch of redistribute_local_tensor on the same
# mesh dim, over an even or uneven, nested or whole logical shape: e.g. S0S0->S0R and
# S0S1->S0R both all-gather an even nested shard on mesh dim 1 only) and are not kept.
# tests/matrix/test_redistribute_plans.py recomputes the plans with torch's planner and
# fails when a kept pair repeats another or a plan of the 135 has no kept pair.
TWO_D_KEPT = [
    "S0S0-S0S1", "S0S0-S0R", "S0S0-S1S0", "S0S0-S1R", "S0S0-RS0", "S0S0-RS1", "S0S0-RR", "S0S1-RS1",
    "S0R-S0S0", "S0R-S1S0", "S0R-S1R", "S0R-RS0", "S0R-RS1",
    "S0Psum-S0S0", "S0Psum-S0R", "S0Psum-S1S0", "S0Psum-S1R", "S0Psum-RS0", "S0Psum-RS1", "S0Psum-RR",
    "S1S0-S0S0", "S1S0-S0R", "S1S0-S1S1", "S1S0-S1R", "S1S0-RS0", "S1S0-RS1", "S1S0-RR", "S1S1-RS0",
    "S1R-S0S0", "S1R-S0R", "S1R-S1S0", "S1R-RS0", "S1R-RS1",
    "S1Psum-S0S0", "S1Psum-S0R", "S1Psum-S1S0", "S1Psum-RS0", "S1Psum-RS1", "S1Psum-RR",
    "RS0-S0S0", "RS0-S0S1", "RS0-S0R", "RS0-S1S0", "RS0-S1S1", "RS0-S1R", "RS0-RS1", "RS0-RR",
    "RS1-S0S0", "RS1-S0S1", "RS1-S0R", "RS1-S1S0", "RS1-S1S1", "RS1-S1R", "RS1-RS0", "RS1-RR",
    "RR-S0S0", "RR-S0S1", "RR-S1S0", "RR-S1S1", "RR-RS0", "RR-RS1",
    "RPsum-S0S0", "RPsum-S0S1", "RPsum-S0R", "RPsum-S1S0", "RPsum-S1S1", "RPsum-S1R", "RPsum-RS0",
    "RPsum-RS1", "RPsum-RR",
    "PsumS0-S0S0", "PsumS0-S0S1", "PsumS0-S0R", "PsumS0-S1S0", "PsumS0-S1S1", "PsumS0-S1R", "PsumS0-RS0",
    "PsumS0-RS1", "PsumS0-RR",
    "PsumS1-S0S0", "PsumS1-S0S1", "PsumS1-S0R", "PsumS1-S1S0", "PsumS1-S1S1", "PsumS1-S1R", "PsumS1-RS0",
    "PsumS1-RR",
    "PsumR-S0S0", "PsumR-S0S1", "PsumR-S1S0", "PsumR-S1S1", "PsumR-RS0", "PsumR-RS1",
    "PsumPsum-S0S0", "PsumPsum-S0S1", "PsumPsum-S0R", "PsumPsum-S1S0", "PsumPsum-S1S1", "PsumPsum-S1R",
    "PsumPsum-RS0", "PsumPsum-RS1", "PsumPsum-RR",
]
# Over NCCL/RCCL a plan's order is the planner's (device-independent, held by the gloo
# cases); what the device mesh adds is each step's collective on a mesh dim's communicator.
# These 14 pairs hold the 27 distinct steps (branch, mesh dim, even/uneven, nested or whole
# logical shape) of the kept plans, each pair at least one step no other of them has
# (checked by the same test).
TWO_D_NCCL = {
    "PsumPsum-RS0", "PsumS0-S0S1", "PsumS1-S1S0", "RPsum-S0R", "RPsum-S0S1", "RS0-S0S0", "RS1-S1S1",
    "S0Psum-S0R", "S0Psum-S0S0", "S0S0-RS1", "S0S0-S1S0", "S1Psum-S1S0", "S1S0-S0S0", "S1S1-RS0",
}


def _names(layout: str) -> list[str]:
    """'PsumS0' -> ['Psum', 'S0'] (placement names as in TWO_D)."""
    out, rest = [], layout
    while rest:
        name = next(n for n in TWO_D if rest.startswith(n))
        out.append(name)
        rest = rest[len(name):]
    return out


def _two_d_params():
    nccl = BACKENDS[1]
    out = []
    for pair in TWO_D_KEPT:
        src, dst = pair.split("-")
        out.append(pytest.param(_names(src), _names(dst), "gloo", id=f"{src}-{dst}-gloo"))
        if pair in TWO_D_NCCL:
            out.append(pytest.param(_names(src), _names(dst), nccl.values[0], marks=nccl.marks,
                                    id=f"{src}-{dst}-nccl"))
    return out


# Distinct per kept pair: each is another multi-step plan over the two mesh dims (per-dim
# transforms and their order, nested sharding of one tensor dim); the pairs whose source
# equals the target are all the same no-op path and share one case.
@pytest.mark.parametrize("src,dst,backend", _two_d_params())
@pytest.mark.parametrize("mesh", [helpers.mesh_param("2d-2x2")])
def test_redistribute_2d(rank_pool, mesh, src, dst):
    out = rank_pool.run(cases.redistribute, ranks=helpers.mesh_ranks(mesh), mesh=mesh, src=list(src),
                        dst=list(dst), shapes=[(7, 6)], dtypes=["float32"])
    assert set(out) == {"ok"}, out


@pytest.mark.parametrize("backend", GLOO_ONLY)
@pytest.mark.parametrize("mesh", [helpers.mesh_param("2d-2x2")])
def test_redistribute_2d_noop(rank_pool, mesh):
    """Source == target on both mesh dims: the local tensor is reused, the value unchanged."""
    same = [list(p[0]) for p in TWO_D_PAIRS if p[0] == p[1]]
    out = rank_pool.run(cases.redistribute_same, ranks=helpers.mesh_ranks(mesh), mesh=mesh, layouts=same)
    assert set(out) == {"ok"}, out
