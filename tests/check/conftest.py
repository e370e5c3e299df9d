"""`port check` compiles with the plan's ROCm toolchain: here, clang++-N with the ROCm 7.1 SDK."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def toolchain() -> None:
    from porting.probe.rocm_sdk import probe_rocm_sdk

    if shutil.which("hipcc") is None and not probe_rocm_sdk(Path("/"), os.environ).found:
        pytest.skip("no ROCm toolchain: neither ROCm 7 nor clang++-20+ with the ROCm 7 SDK "
                    "(ci/setup installs and fetches them)")
