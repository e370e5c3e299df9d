"""Tensor-core WMMA (runtime/emu_wmma.h): GEMMs against a CPU reference at 32 and 64 lanes,
a tile per 32-lane warp that must stop at 64 lanes (named), its warpSize fix, and the scan.

programs/wmma/gemm.cu computes every emulated shape (16x16x16, 32x8x16, 8x32x16; half, bf16, s8;
tf32 16x16x8; double 8x8x4;
row- and col-major operands and accumulators) against a reference written in the program, and
counts mismatches; a wrong element-to-lane mapping, layout or ldm would show there."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.emulate.refuse import scan_text

PROGRAMS = Path(__file__).parent / "programs" / "wmma"


def test_every_shape_and_layout_matches_the_reference_at_both_widths(emulate_program):
    result = emulate_program(PROGRAMS / "gemm.cu", warps=[32, 64])
    for run in result.runs:
        assert run.exit == 0, run.stderr
        lines = run.stdout.splitlines()
        assert len([x for x in lines if "mismatches 0 " in x]) == 7, run.stdout
        assert lines[-2:] == ["fill ok", "PASSED"]
    assert result.verdict == "same", result.differences


def test_a_tile_per_32_lane_warp_stops_at_64_naming_the_load(emulate_program):
    result = emulate_program(PROGRAMS / "per32_diverges.cu", warps=[32, 64])
    assert result.verdict == "diverged"
    by_width = {run.warp: run for run in result.runs}
    assert by_width[32].exit == 0 and by_width[32].stdout.strip() == "mismatches 0"
    assert by_width[64].exit == 3
    assert "wmma::load_matrix_sync: lane 32 passes a different pointer" in by_width[64].stderr


def test_the_warpsize_fix_gives_the_same_tiles_at_both_widths(emulate_program):
    result = emulate_program(PROGRAMS / "per_warp_same.cu", warps=[32, 64])
    assert result.verdict == "same", result.differences
    assert all(run.stdout.strip() == "mismatches 0" for run in result.runs)


def test_a_block_of_32_threads_leaves_half_a_64_lane_tile_out(emulate_program, tmp_path):
    src = (PROGRAMS / "per_warp_same.cu").read_text().replace("tiles<<<1, 64>>>", "tiles<<<1, 32>>>")
    assert "tiles<<<1, 32>>>" in src
    path = tmp_path / "block32.cu"
    path.write_text(src)
    result = emulate_program(path, warps=[32, 64])
    by_width = {run.warp: run for run in result.runs}
    assert by_width[32].exit == 0
    assert "only 32 of the 64 lanes of the warp take part" in by_width[64].stderr


@pytest.mark.parametrize("name", ["gemm.cu", "per32_diverges.cu", "per_warp_same.cu"])
def test_wmma_programs_are_not_refused(name):
    path = PROGRAMS / name
    assert scan_text(path.read_text(), str(path)) == []


@pytest.mark.parametrize("code", [
    "wmma::fragment<wmma::matrix_a, 8, 8, 128, wmma::experimental::precision::b1, wmma::row_major> f;",
    "wmma::bmma_sync(d, a, b, c);",
])
def test_sub_byte_wmma_is_refused_by_name(code):
    text = f"#include <mma.h>\nusing namespace nvcuda;\n__global__ void k() {{\n  {code}\n}}\n"
    [refusal] = scan_text(text, "k.cu")
    assert refusal.feature.startswith("tensor-core WMMA sub-byte types")
    assert refusal.where == "k.cu:4"
