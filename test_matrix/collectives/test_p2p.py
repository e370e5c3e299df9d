"""c10d point to point: send/recv, isend/irecv, receive from any source, tags,
batch_isend_irecv and object send/recv, over gloo and NCCL/RCCL.

gloo pairs each send with a tagged receive on a TCP pair (any-source receives are their own
path); NCCL/RCCL run point to point on a per-pair communicator, batched ones inside one
group call, so both backends run the ring and the all-pairs batch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_file

pytestmark = [pytest.mark.component("collectives")]

_here = Path(__file__).resolve().parent
cases = load_file(_here / "c10d_cases.py", "port_matrix_c10d_cases")
bk = load_file(_here / "conftest.py", "port_matrix_collectives_params")


def _ok(out):
    assert set(out) == {"ok"}, out


# Blocking send/recv around the ring; zero elements (NCCL/RCCL skip the transfer, gloo sends
# an empty message).
@pytest.mark.parametrize("backend", bk.BOTH)
@pytest.mark.parametrize("n", [pytest.param(6, id="six"), pytest.param(0, id="zero")])
def test_send_recv(rank_pool, n):
    _ok(rank_pool.run(cases.send_recv, n=n))


# 4 Mi elements: NCCL/RCCL split point to point into chunks (device only; gloo's pair sends
# one message whatever its size).
@pytest.mark.parametrize("backend", bk.NCCL_ONLY)
def test_send_recv_large_device(rank_pool):
    _ok(rank_pool.run(cases.send_recv, n=1 << 22))


@pytest.mark.parametrize("backend", bk.BOTH)
def test_isend_irecv_ring(rank_pool):
    _ok(rank_pool.run(cases.isend_irecv_ring))


# gloo only: recv without a source (recvAnysource) and tag matching out of order; NCCL has
# neither (no any-source receive, tags ignored).
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_recv_from_any_source(rank_pool):
    _ok(rank_pool.run(cases.recv_any_source))


@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_irecv_from_any_source_reports_the_sender(rank_pool):
    _ok(rank_pool.run(cases.irecv_any_source))


@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_tags_received_out_of_order(rank_pool):
    _ok(rank_pool.run(cases.tagged_out_of_order))


# One send and one receive per rank (ring), or a send and a receive with every peer in one
# batch (all_pairs).
@pytest.mark.parametrize("backend", bk.BOTH)
@pytest.mark.parametrize("pattern", ["ring", "all_pairs"])
def test_batch_isend_irecv(rank_pool, pattern):
    _ok(rank_pool.run(cases.batch_isend_irecv, pattern=pattern))


@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_p2p_argument_refusals(rank_pool):
    _ok(rank_pool.run(cases.p2p_refusals))


@pytest.mark.parametrize("backend", bk.BOTH)
def test_send_recv_object_list(rank_pool):
    _ok(rank_pool.run(cases.send_recv_object_list))
