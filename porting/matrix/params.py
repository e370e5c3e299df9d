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
