"""CUB's warp and block primitives in the emulator (runtime/emu_cub.h): block results equal at
both widths, the default logical warp following the hardware's, a missing CUB name named."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.emulate import Unsupported

CUB = Path(__file__).parent / "programs" / "cub"


def test_block_primitives_compute_the_same_at_both_widths(emulate_program):
    """Inputs (7i mod 13), two blocks of 96 threads x 4 items: BlockLoad/Store (transposing),
    BlockReduce's Sum over items, Max, Sum over the first 50 threads, BlockScan's exclusive sum
    of items with its aggregate, checked element by element on the host, DeviceReduce::Sum and
    DeviceScan::InclusiveSum with the two-phase temporary storage (expected values computed by
    hand from the inputs: 2292, 2310, 12, 304, 310, 4602)."""
    result = emulate_program(CUB / "block_primitives.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == ("sums 2292 2310 max 12 12 first50 304 310 scan errors 0 device sum 4602 "
                                     "last 4602\n")


def test_warp_reduce_default_logical_warp_is_the_hardware_warp(emulate_program):
    """One WarpReduce per 32 threads is right at 32 lanes; at 64 the default logical warp spans
    64, so lane 0 holds 64 values' sum and lane 32 a partial one, as hipCUB on AMD would; naming
    the 32-lane logical warp is right at both."""
    bug = emulate_program(CUB / "warp_reduce_width.cu")
    assert bug.verdict == "diverged"
    by_width = {r.warp: r.stdout for r in bug.runs}
    assert by_width[32] == "groups of 32: 496 1520 2544 3568\n"
    assert by_width[64] == "groups of 32: 2016 1520 6112 3568\n"
    fixed = emulate_program(CUB / "warp_reduce_width.cu", defines=["FIXED"])
    assert fixed.verdict == "same"
    assert fixed.runs[1].stdout == "groups of 32: 496 1520 2544 3568\n"


def test_a_cub_name_the_emulator_lacks_is_named(tmp_path, emulate_program):
    src = tmp_path / "histogram.cu"
    src.write_text("#include <cub/cub.cuh>\n__global__ void k(int* h) {\n"
                   "  typedef cub::BlockHistogram<int, 64, 1, 16> H;\n}\nint main() { return 0; }\n")
    with pytest.raises(Unsupported, match=r"uses cub::BlockHistogram, which port emulate's runtime does not provide"):
        emulate_program(src)


def test_run_length_encoding_caching_allocator_and_iterators(emulate_program):
    """5 5 5 1 2 2 7 7 7 7 3 5 has runs 5x3 1x1 2x2 7x4 3x1 5x1, and those longer than one item
    start at 0, 4 and 6; the squares of 3..6 sum to 9 + 16 + 25 + 36 = 86; the kernel reads a
    transform iterator advanced by 2 (5^2, 6^2, 16^2) and a constant one."""
    result = emulate_program(CUB / "run_length.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout.splitlines() == ["runs 6: 5x3 1x1 2x2 7x4 3x1 5x1",
                                                  "non-trivial 3: @0+3 @4+2 @6+4",
                                                  "sum of squares 3..6: 86",
                                                  "kernel: 25 36 256, 7 7"]
