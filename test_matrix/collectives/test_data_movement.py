"""c10d data movement: broadcast, all_gather(_into_tensor), gather, scatter, all_to_all(_single)
and the object collectives, over gloo and NCCL/RCCL.

Moving bytes does not depend on the dtype (gloo and NCCL/RCCL copy elements of its width), so
each movement case loops the dtypes inside one case that names a failing dtype; complex is its
own case where torch's Python layer views it as real pairs. A device twin exists where the
device path is its own: NCCL/RCCL implement gather/scatter/uneven all_to_all as grouped
send/recv, uneven all_gather and the stacked all_gather_into_tensor where gloo refuses them,
and move pickled objects through device tensors.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_file

pytestmark = [pytest.mark.component("collectives")]

_here = Path(__file__).resolve().parent
cases = load_file(_here / "c10d_cases.py", "port_matrix_c10d_cases")
bk = load_file(_here / "conftest.py", "port_matrix_collectives_params")

F32 = ["float32"]


def _ok(out):
    assert set(out) == {"ok"}, out


# Root 0 and the last rank: the broadcast chain/tree starts at another rank (src translated).
@pytest.mark.parametrize("backend", bk.BOTH)
@pytest.mark.parametrize("src", [pytest.param(0, id="root0"), pytest.param(-1, id="rootlast")])
def test_broadcast(rank_pool, src):
    _ok(rank_pool.run(cases.broadcast, src=src, dtypes=F32))


# dtypes looped (element width only); complex64 through view_as_real; zero elements; a
# transposed (non-contiguous) tensor.
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
@pytest.mark.parametrize("dtypes,n,layout", [
    pytest.param(cases.MOVE_DTYPES, 8, "dense", id="dtypes"),
    pytest.param(["complex64"], 8, "dense", id="complex64"),
    pytest.param(F32, 0, "dense", id="zero"),
    pytest.param(F32, 8, "transposed", id="transposed")])
def test_broadcast_variant(rank_pool, dtypes, n, layout):
    _ok(rank_pool.run(cases.broadcast, src=1, dtypes=dtypes, n=n, layout=layout))


# 4 Mi elements: NCCL/RCCL pipeline the broadcast in chunks with the Simple protocol (gloo's
# broadcast has no size branch: device only).
@pytest.mark.parametrize("backend", bk.NCCL_ONLY)
def test_broadcast_large_device(rank_pool):
    _ok(rank_pool.run(cases.broadcast, src=1, dtypes=F32, n=1 << 22))


@pytest.mark.parametrize("backend", bk.BOTH)
def test_all_gather(rank_pool):
    _ok(rank_pool.run(cases.all_gather, dtypes=F32))


@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
@pytest.mark.parametrize("dtypes", [pytest.param(cases.MOVE_DTYPES, id="dtypes"),
                                    pytest.param(["complex64"], id="complex64")])
def test_all_gather_variant(rank_pool, dtypes):
    _ok(rank_pool.run(cases.all_gather, dtypes=dtypes))


# The flat output ([world * n]) is ncclAllGather into one buffer on the device; gloo's own
# allgather_into_tensor.
@pytest.mark.parametrize("backend", bk.BOTH)
def test_all_gather_into_tensor(rank_pool):
    _ok(rank_pool.run(cases.all_gather_into_tensor, stacked=False))


# Refused by gloo (its allgather checks each output slot's shape against the input's), run by
# NCCL/RCCL: a stacked [world, n] output; slots of different sizes per rank.
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
@pytest.mark.parametrize("what", ["stacked_output", "uneven_sizes"])
def test_all_gather_refused_by_gloo(rank_pool, what):
    _ok(rank_pool.run(cases.all_gather_gloo_refusal, what=what))


@pytest.mark.parametrize("backend", bk.NCCL_ONLY)
def test_all_gather_into_tensor_stacked_device(rank_pool):
    _ok(rank_pool.run(cases.all_gather_into_tensor, stacked=True))


# NCCL/RCCL gather uneven slots as one broadcast per rank inside a group call.
@pytest.mark.parametrize("backend", bk.NCCL_ONLY)
def test_all_gather_uneven_device(rank_pool):
    _ok(rank_pool.run(cases.all_gather_uneven))


# gather to a non-zero root (NCCL: grouped send/recv); scatter from a non-zero root.
@pytest.mark.parametrize("backend", bk.BOTH)
def test_gather(rank_pool):
    _ok(rank_pool.run(cases.gather, dst=-1))


@pytest.mark.parametrize("backend", bk.BOTH)
def test_scatter(rank_pool):
    _ok(rank_pool.run(cases.scatter, src=1))


# even splits (ncclAllToAll / gloo alltoall), uneven splits (alltoallv; NCCL grouped
# send/recv), zero-length splits to and from rank 0 (sends skipped).
@pytest.mark.parametrize("backend", bk.BOTH)
@pytest.mark.parametrize("splits", ["even", "uneven", "zero"])
def test_all_to_all_single(rank_pool, splits):
    _ok(rank_pool.run(cases.all_to_all_single, splits=splits, dtypes=F32))


@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_all_to_all_single_dtypes(rank_pool):
    _ok(rank_pool.run(cases.all_to_all_single, splits="uneven", dtypes=cases.MOVE_DTYPES))


# A 2-D input split by rows (split sizes in rows, scaled by the row length).
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_all_to_all_single_rows(rank_pool):
    _ok(rank_pool.run(cases.all_to_all_single_rows))


# The list form: even over both; uneven sizes per peer refused by gloo, run by NCCL/RCCL.
@pytest.mark.parametrize("backend", bk.BOTH)
def test_all_to_all_list(rank_pool):
    _ok(rank_pool.run(cases.all_to_all_list, uneven=False))


@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_all_to_all_list_uneven_refused_by_gloo(rank_pool):
    _ok(rank_pool.run(cases.all_to_all_list_uneven_refused))


@pytest.mark.parametrize("backend", bk.NCCL_ONLY)
def test_all_to_all_list_uneven_device(rank_pool):
    _ok(rank_pool.run(cases.all_to_all_list, uneven=True))


# Each object collective is its own exchange (sizes first, then the pickles; NCCL/RCCL through
# device tensors): broadcast from the last rank, all_gather, gather to rank 1, scatter from
# rank 2; an object holding a tensor (pickled with its storage) on gloo.
@pytest.mark.parametrize("backend", bk.BOTH)
@pytest.mark.parametrize("kind", ["broadcast", "all_gather", "gather", "scatter"])
def test_object_collective(rank_pool, kind):
    _ok(rank_pool.run(cases.object_collective, kind=kind))


@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_object_collective_with_tensor(rank_pool):
    _ok(rank_pool.run(cases.object_collective, kind="with_tensor"))


# Pickling fails on every rank before anything is sent.
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_object_collective_unpicklable(rank_pool):
    _ok(rank_pool.run(cases.object_unpicklable))
