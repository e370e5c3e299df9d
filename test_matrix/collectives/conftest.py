"""Collectives pack helpers: the process-group backends a case runs over.

gloo runs every case on the 4 CPU ranks of the matrix's rank pool (the session's shared pool,
``rank_pools`` in test_matrix/conftest.py). The NCCL twin (RCCL under ROCm torch) runs on the
device pool, one GPU per rank, where the device path is its own: NCCL/RCCL instantiate one
kernel per collective x reduce op x dtype, map bool and complex themselves, and issue
coalesced and batched point-to-point calls inside one group call. Twins are collected on every
host and skipped without GPUs with detection's reason.
"""

from __future__ import annotations

import pytest

_WHY = "c10d over NCCL (RCCL under ROCm torch), one GPU per rank"

GLOO = pytest.param("gloo", id="gloo")
NCCL = pytest.param("nccl", id="nccl", marks=pytest.mark.requires(device="gpu", world_size=2, why=_WHY))
# Cases that build 2-rank subgroups out of ranks 0-3 need a 4-rank device pool.
NCCL4 = pytest.param("nccl", id="nccl", marks=pytest.mark.requires(device="gpu", world_size=4, why=_WHY))

BOTH = [GLOO, NCCL]
BOTH4 = [GLOO, NCCL4]
GLOO_ONLY = [GLOO]
NCCL_ONLY = [NCCL]
