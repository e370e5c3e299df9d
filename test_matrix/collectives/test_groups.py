"""c10d beyond single collectives: subgroups, coalesced calls, async work, barriers, failure
detection (monitored barrier, time-outs, the DETAIL-mode fingerprint check), local argument
refusals, functional collectives and autograd through collectives.

Subgroups are built on every rank (new_group is collective over the world). A case that
leaves its group unusable (a time-out, a failed monitored barrier) builds a fresh one first,
so the shared rank pool stays healthy for the cases after it.
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


# Each kind is another group path: two disjoint pair groups; a strided group [1, 3] with
# group_src and rank translation; a non-member's call returning at once; new_subgroups;
# new_subgroups_by_enumeration; an object collective with group_src; send/recv by
# group_dst/group_src. The device twins are the
# first two (each group is its own NCCL/RCCL communicator).
SUBGROUPS = [pytest.param(k, b, id=f"{b}-{k}", marks=m) for k in ("pairs", "strided_group_src")
             for b, m in (("gloo", ()), ("nccl", bk.NCCL4.marks))]
SUBGROUPS += [pytest.param(k, "gloo", id=f"gloo-{k}")
              for k in ("not_member", "new_subgroups", "by_enumeration", "object_group_src", "send_group_dst")]


@pytest.mark.parametrize("kind,backend", SUBGROUPS)
def test_subgroup(rank_pool, kind):
    _ok(rank_pool.run(cases.subgroup, kind=kind))


# all_reduce_coalesced: one allreduce_coalesced call (gloo's own work; NCCL inside a group),
# and its refusal of mixed dtypes.
@pytest.mark.parametrize("backend", bk.BOTH)
def test_all_reduce_coalesced(rank_pool):
    _ok(rank_pool.run(cases.all_reduce_coalesced))


@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_all_gather_coalesced(rank_pool):
    _ok(rank_pool.run(cases.all_gather_coalesced))


# _coalescing_manager turns the ops inside it into one backend call per kind.
@pytest.mark.parametrize("backend", bk.BOTH)
@pytest.mark.parametrize("kind", ["all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor"])
def test_coalescing_manager(rank_pool, kind):
    _ok(rank_pool.run(cases.coalescing_manager, kind=kind))


# gloo has no startCoalescing: the old-style block (with a device) is refused, and the
# group must stay usable.
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_coalescing_with_device_refused_by_gloo(rank_pool):
    _ok(rank_pool.run(cases.coalescing_with_device_on_gloo))


# async_op=True: Work.wait()/is_completed(), the Work's future value, three in flight waited
# in reverse order (NCCL/RCCL: events on the collective stream).
@pytest.mark.parametrize("backend", bk.BOTH)
@pytest.mark.parametrize("kind", ["wait", "future", "several_in_flight"])
def test_async_work(rank_pool, kind):
    _ok(rank_pool.run(cases.async_work, kind=kind))


# barrier over the world (NCCL/RCCL: an all-reduce on a device tensor) and over a subgroup.
@pytest.mark.parametrize("group_kind,backend", [
    pytest.param("world", "gloo", id="gloo-world"), pytest.param("world", "nccl", id="nccl-world", marks=bk.NCCL.marks),
    pytest.param("subgroup", "gloo", id="gloo-subgroup")])
def test_barrier(rank_pool, tmp_path, group_kind):
    _ok(rank_pool.run(cases.barrier, directory=str(tmp_path), group_kind=group_kind))


# gloo's monitored_barrier: everyone present; rank 3 absent (named by rank 0, the others told
# rank 0 failed); ranks 2 and 3 absent with wait_all_ranks=True (both named).
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
@pytest.mark.parametrize("present,wait_all", [
    pytest.param([0, 1, 2, 3], False, id="all_present"),
    pytest.param([0, 1, 2], False, id="one_absent"),
    pytest.param([0, 1], True, id="two_absent_wait_all")])
def test_monitored_barrier(rank_pool, present, wait_all):
    _ok(rank_pool.run(cases.make_group, key="monitored_group", members=[0, 1, 2, 3]))
    _ok(rank_pool.run(cases.monitored_barrier, ranks=present, present=present, wait_all=wait_all))


# A peer that never joins: the collective fails after the group's time-out instead of hanging.
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_collective_times_out_without_its_peer(rank_pool):
    _ok(rank_pool.run(cases.make_group, key="timeout_group", members=[0, 1], timeout_s=2.0))
    _ok(rank_pool.run(cases.timeout_absent_peer, ranks=[0]))


# DETAIL debug mode wraps the group (ProcessGroupWrapper): rank 1 issuing another shape,
# dtype or collective is refused on every rank, naming the differing field.
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
@pytest.mark.parametrize("what", ["shape", "dtype", "collective"])
def test_mismatch_detected_in_detail_mode(rank_pool, what):
    _ok(rank_pool.run(cases.make_group, key="detail_group", members=[0, 1, 2, 3], detail=True))
    _ok(rank_pool.run(cases.mismatch_detected, what=what))


# Each is one argument check of torch or ProcessGroupGloo, raised before anything is sent.
LOCAL_CHECKS = ["all_gather_list_length", "all_gather_list_dtype", "all_gather_into_tensor_size",
                "broadcast_src_range", "gather_list_on_non_dst", "scatter_list_on_non_src",
                "all_to_all_single_splits", "reduce_scatter_list_length"]


@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
@pytest.mark.parametrize("check", LOCAL_CHECKS)
def test_local_refusal(rank_pool, check):
    _ok(rank_pool.run(cases.local_refusal, check=check))


# Functional collectives (_c10d_functional ops, what DTensor and torch.compile issue): each is
# its own op; all_reduce also on the device (wait_tensor syncs the collective stream).
FUNCTIONAL = ["all_reduce", "all_gather_tensor", "reduce_scatter_tensor", "all_to_all_single", "broadcast",
              "all_reduce_coalesced", "all_gather_into_tensor_coalesced", "reduce_scatter_tensor_coalesced",
              "permute_tensor"]


@pytest.mark.parametrize("kind,backend", [pytest.param(k, "gloo", id=f"gloo-{k}") for k in FUNCTIONAL]
                         + [pytest.param("all_reduce", "nccl", id="nccl-all_reduce", marks=bk.NCCL.marks)])
def test_functional_collective(rank_pool, kind):
    _ok(rank_pool.run(cases.functional, kind=kind))


# torch.distributed.nn.functional: each collective's own backward.
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
@pytest.mark.parametrize("kind", ["all_reduce", "all_gather", "broadcast", "reduce_scatter", "all_to_all_single"])
def test_autograd_through_collective(rank_pool, kind):
    _ok(rank_pool.run(cases.autograd_collective, kind=kind))
