"""libcu++ in the emulator: cuda::std, cuda::atomic and cuda::atomic_ref compiled from CCCL's headers
in host mode (runtime/emu_libcudacxx.h); its waiting primitives stay refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.emulate import build
from porting.emulate.refuse import scan_text

PROGRAMS = Path(__file__).parent / "programs" / "libcudacxx"
needs_cccl = pytest.mark.skipif(build.cccl_dir() is None, reason="no CCCL headers (nvcc's include/cccl) here")


@needs_cccl
def test_atomics_and_cuda_std_in_device_code_at_both_widths(emulate_program):
    """334 multiples of 3 below 1000, counted by warp ballots and by a cuda::atomic."""
    result = emulate_program(PROGRAMS / "atomic_count.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert [r.stdout for r in result.runs] == ["ballot count 334, atomic count 334\n"] * 2


@needs_cccl
def test_a_32_lane_ballot_count_through_atomic_ref_diverges(emulate_program):
    result = emulate_program(PROGRAMS / "atomic_count_bad.cu")
    assert result.verdict == "diverged"
    assert result.runs[0].stdout == "ballot count 334, atomic count 334\n"
    assert result.runs[1].stdout.endswith("atomic count 334\n") and result.runs[1].stdout != result.runs[0].stdout


@needs_cccl
@pytest.mark.parametrize("src", [
    "#include <cuda/barrier>\n",
    "void f() { cuda::barrier<cuda::thread_scope_block> b; }\n",
    "void f() { cuda::std::latch l(2); }\n",
    "void f() { cuda::memcpy_async(a, b, 4, p); }\n",
    "void f() { auto p = cuda::make_pipeline(); }\n",
])
def test_the_waiting_primitives_stay_refused(src):
    refusals = scan_text(src, "s.cu")  # memcpy_async is an asynchronous copy pipeline as well
    assert any(r.feature.startswith("libcu++ synchronization or PTX primitives") for r in refusals)


@needs_cccl
def test_the_rest_of_libcudacxx_is_not_refused():
    src = ("#include <cuda/atomic>\n#include <cuda/std/array>\n"
           "void f(int* x) { cuda::atomic_ref<int, cuda::thread_scope_device>(*x).fetch_add(1); }\n")
    assert scan_text(src, "s.cu") == []
