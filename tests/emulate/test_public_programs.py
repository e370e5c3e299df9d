"""Real programs from public sources, run at both widths.

cuda-kernels 0.2.0 (a PyPI sdist, MIT; provenance in programs/public/.../SOURCE.md): GPU
sources written for that package, driven by a small harness of ours.

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


PUBLIC = Path(__file__).parent / "programs" / "public" / "cuda_kernels-0.2.0"


def test_pypi_reduction_kernel_runs_the_same_and_right(emulate_program):
    result = emulate_program(PUBLIC / "reduction.cu", PUBLIC / "harness" / "reduction_main.cpp")
    assert result.verdict == "same", [d.line() for d in result.differences]
    lines = result.runs[0].stdout.splitlines()
    assert len(lines) == 7, lines
    assert all(": rc 0 sum " in line and line.endswith("matches CPU: yes") for line in lines), lines


def test_pypi_warp_synchronous_kernel_is_refused_by_name(emulate_program):
    from porting.emulate import Unsupported

    with pytest.raises(Unsupported) as err:
        emulate_program(PUBLIC / "autocorrelation.cu", PUBLIC / "harness" / "autocorrelation_main.cpp")
    assert "autocorrelation.cu:40: implicit warp-synchronous execution" in str(err.value)
