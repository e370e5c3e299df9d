"""Real programs from public sources that are on this machine, run at both widths.

CMake ships the programs it compiles to probe a CUDA and a HIP compiler (Debian package
cmake-data, BSD-3-Clause): real host+device-runtime programs, not written for this test.
Their sources are read where CMake installed them, never copied into this repository.
"""

from __future__ import annotations

import glob
from pathlib import Path

import pytest

CMAKE_MODULES = sorted(glob.glob("/usr/share/cmake-*/Modules"))
MODULES = Path(CMAKE_MODULES[-1]) if CMAKE_MODULES else None
needs_cmake = pytest.mark.skipif(MODULES is None, reason="CMake's modules (Debian cmake-data) are not installed")


@needs_cmake
def test_cmake_cuda_abi_probe_prints_the_same_architecture(emulate_program):
    result = emulate_program(MODULES / "CMakeCUDACompilerABI.cu")
    assert result.verdict == "same"
    assert [r.stdout for r in result.runs] == ["80", "80"]  # the emulated device: compute capability 8.0
    assert [r.exit for r in result.runs] == [0, 0]


@needs_cmake
def test_cmake_hip_abi_probe_is_a_hip_program(emulate_program):
    result = emulate_program(MODULES / "CMakeHIPCompilerABI.hip")
    assert result.language == "hip"  # it stops with #error unless __HIP__ is defined
    assert result.verdict == "same"
    assert result.runs[0].exit == result.runs[1].exit
