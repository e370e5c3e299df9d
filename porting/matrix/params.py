"""Parameter sets the matrix packs share (imported by test_matrix/ files)."""

from __future__ import annotations

import pytest

# Memory placement of the native, RDMA and payload cases: host everywhere; device collected
# everywhere too, and skipped with the reason where detection finds no GPU, so a GPU run
# executes strictly more cases than a CPU run.
MEMORY = ["host", pytest.param("device", marks=pytest.mark.requires(
    device="gpu", why="device memory: the case allocates on the GPU"))]


def torch_device(memory: str) -> str:
    """The torch device of a placement ('cuda' is also ROCm torch's name for its GPUs)."""
    return "cuda" if memory == "device" else "cpu"


# The process-group backend of the DTensor cases: gloo ranks on the CPU everywhere (also on a
# GPU host, so a one-GPU host still runs every sharding case), and NCCL ranks on device
# meshes (RCCL under ROCm torch) where there are GPUs; a case needs one visible GPU per rank.
BACKENDS = ["gloo", pytest.param("nccl", marks=pytest.mark.requires(
    device="gpu", why="DTensor on a device mesh over NCCL/RCCL, one GPU per rank"))]

# DTensor cases whose device-mesh twin would take no path another NCCL case does not take
# (issue 27): sharding propagation and the redistribute plan are device-independent, and
# every collective they issue (all-gather with and without padding, all-to-all,
# reduce-scatter, all-reduce per Partial reduce op and dtype, broadcast) is a
# test_redistribute_1d case over NCCL/RCCL. What is left on the device mesh is torch's own
# local kernel of each op, which torch's suite covers, not DTensor. Their node ids keep the
# "-gloo" suffix, so exemptions and JUnit history still match.
GLOO_ONLY = ["gloo"]
