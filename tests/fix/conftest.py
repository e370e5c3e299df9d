"""`port fix` verifies with nvcc, `port check` (clang + the ROCm 7 SDK) and `port emulate` (g++).
Tests that need a tool skip, naming it, where it is absent (ci/setup installs all three)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tools() -> None:
    from porting.probe.rocm_sdk import probe_rocm_sdk

    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not found: the CUDA compile step cannot run")
    if shutil.which("hipcc") is None and not probe_rocm_sdk(Path("/"), os.environ).found:
        pytest.skip("no ROCm 7 toolchain (hipcc, or clang++ with the ROCm 7 SDK): port check cannot run")
    if shutil.which("g++") is None:
        pytest.skip("g++ not found: port emulate cannot build")


@pytest.fixture(scope="session")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One scratch directory per session: the emulator's compiled runtime is cached in it."""
    return tmp_path_factory.mktemp("fix-work")
