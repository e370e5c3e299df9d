"""Issue 26, round 12 (classes generalised from corpus 9's tune half; own programs, not its code).
Each class: the program that shows it, a correct variant that stays quiet, and the input that
breaks the rule.

- (1) The hardware lane beside 32-lane warps through a project's helper header: ``lane_id()``
  reads PTX ``%laneid`` (or returns ``threadIdx.x & (warpSize - 1)``) while ``warp_id()`` is
  ``threadIdx.x >> 5``, both in a header the unit reaches by an angle-bracket include from an
  ``include/`` directory (built with ``-Iinclude``). Each call of the lane helper in a function is
  ``warp-width-mixed``. Quiet: a lane helper of 32 (``threadIdx.x & 31``), or a warp helper by
  ``warpSize``. Breaks on: a header found only through a build flag naming another directory
  (``-Ithird/include``: not on disk where the rule looks, quiet, a miss), and a call of the lane
  helper that never meets a per-warp slot (a warp-wide shuffle scan by lane: named anyway, a
  false positive the rule accepts); a unit with no warp operation of its own (no shuffle, no
  ``warpSize``): the warp model is not built there, quiet, a miss."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths

UTILS = """#pragma once
namespace utils {
static __device__ __forceinline__ int lane_id()
{
    LANE_BODY
}
static __device__ __forceinline__ int warp_id()
{
    return threadIdx.x >> 5;
}
}
"""
PTX_LANE = 'int id; asm("mov.u32 %0, %%laneid;" : "=r"(id)); return id;'

KERNEL = """#include <cstdio>
#include <utils.inl>
template< int CTA_SIZE >
__global__ void count_rows(const int *rows, int n, int *out)
{
    __shared__ int s_count[CTA_SIZE / 32][32];
    const int warp = utils::warp_id();
    const int lane = utils::lane_id();
    int c = rows[blockIdx.x * CTA_SIZE + threadIdx.x] < n;
    s_count[warp][lane] = c + __shfl_down_sync(0xffffffff, c, 1, 32);
    if ( utils::lane_id() == 0 )
        out[blockIdx.x * (CTA_SIZE / 32) + warp] = s_count[warp][0];
}
"""


def tree(tmp_path: Path, lane_body: str, where: str = "include") -> Path:
    (tmp_path / where).mkdir(parents=True, exist_ok=True)
    (tmp_path / where / "utils.inl").write_text(UTILS.replace("LANE_BODY", lane_body))
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / "k.cu").write_text(KERNEL)
    return tmp_path / "src" / "k.cu"


def mixed(path: Path) -> list[int]:
    return sorted(f.line for f in audit_paths([path], jobs=1).findings
                  if f.rule == "warp-width-mixed" and Path(f.path).name == path.name)


def test_hardware_lane_helper_beside_warp_of_32(tmp_path: Path) -> None:
    assert mixed(tree(tmp_path, PTX_LANE)) == [8, 11]


def test_masked_lane_helper_counts_too(tmp_path: Path) -> None:
    assert mixed(tree(tmp_path, "return threadIdx.x & (warpSize - 1);")) == [8, 11]


def test_lane_of_32_is_quiet(tmp_path: Path) -> None:
    # the lane of the unit's own 32-lane warps: each half of a wavefront is its own warp
    assert mixed(tree(tmp_path, "return threadIdx.x & 31;")) == []


def test_warp_helper_by_warpsize_is_quiet(tmp_path: Path) -> None:
    path = tree(tmp_path, PTX_LANE)
    header = tmp_path / "include" / "utils.inl"
    header.write_text(header.read_text().replace("threadIdx.x >> 5", "threadIdx.x / warpSize"))
    assert mixed(path) == []


def test_rule_breaks_on_a_header_found_only_by_build_flags(tmp_path: Path) -> None:
    # -Ithird/include: the header is not beside the unit nor in an include/ directory above it, so
    # the unit's helpers are unknown and the hazard is missed
    assert mixed(tree(tmp_path, PTX_LANE, where="third/inc")) == []


def test_rule_breaks_on_a_lane_that_meets_no_slot(tmp_path: Path) -> None:
    # a shuffle scan by the hardware lane alone is right at 64 (the scan spans the wavefront), but
    # the pair in the unit is all the rule reads: named, a false positive it accepts
    path = tree(tmp_path, PTX_LANE)
    path.write_text("#include <utils.inl>\n__device__ int scan(int v)\n{\n    const int lane = utils::lane_id();\n"
                    "    for (int i = 1; i < warpSize; i *= 2) { int n = __shfl_up_sync(~0ull, v, i);"
                    " if (lane >= i) v += n; }\n    return v;\n}\n")
    assert mixed(path) == [4]


def test_rule_breaks_on_a_unit_without_warp_operations(tmp_path: Path) -> None:
    # the per-function warp model is built only for units holding a warp operation (a cost gate)
    path = tree(tmp_path, PTX_LANE)
    path.write_text(KERNEL.replace("c + __shfl_down_sync(0xffffffff, c, 1, 32)", "c"))
    assert mixed(path) == []
