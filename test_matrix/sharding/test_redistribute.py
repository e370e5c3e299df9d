"""DTensor redistribute between every pair of placements, 1-D and 2-D meshes, full_tensor() == reference.

Redistributing *to* a Partial placement is rejected by DTensor (Partial is a pending
reduction, normally produced by ops), except Shard -> Partial(sum) from torch 2.14 on: the
rejected pairs check that the rejection is a clear RuntimeError rather than a wrong value,
the accepted one checks each rank's local tensor and the sum over ranks.
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


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("src,dst", list(itertools.product(ONE_D, ONE_D)), ids=lambda p: p)
@pytest.mark.parametrize("mesh", [helpers.mesh_param("1d-2"), helpers.mesh_param("1d-4")])
def test_redistribute_1d(rank_pool, mesh, src, dst, shape, dtype):
    out = rank_pool.run(cases.redistribute, ranks=helpers.mesh_ranks(mesh), mesh=mesh, src=[src],
                        dst=[dst], shape=SHAPES[shape], dtype=dtype)
    rejected = dst.startswith("P") and src != dst and not cases.to_partial_supported([src], [dst])
    expect = "rejected" if rejected else "ok"
    assert set(out) == {expect}, out


TWO_D_PAIRS = [(a, b) for a in itertools.product(TWO_D, TWO_D) for b in itertools.product(["S0", "S1", "R"], ["S0", "S1", "R"])]


@pytest.mark.parametrize("src,dst", TWO_D_PAIRS, ids=lambda p: "".join(p) if isinstance(p, tuple) else p)
@pytest.mark.parametrize("mesh", [helpers.mesh_param("2d-2x2")])
def test_redistribute_2d(rank_pool, mesh, src, dst):
    out = rank_pool.run(cases.redistribute, ranks=helpers.mesh_ranks(mesh), mesh=mesh, src=list(src),
                        dst=list(dst), shape=(7, 6), dtype="float32")
    assert set(out) == {"ok"}, out
