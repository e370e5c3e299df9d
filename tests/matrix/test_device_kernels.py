"""The device pack's warp kernels (test_matrix/device/kernels/port_warp.cuh) under `port emulate`.

On a ROCm GPU the rocm_device cases run these kernels at the hardware's width; here the same
source runs at 32 and 64 lanes in the emulator. Each 32-lane assumption a port could carry
into the portable header (the bug classes of tests/emulate/programs/hazards) is injected in a
copy of the header: the 32-lane run stays right (the bug is latent on NVIDIA) and the 64-lane
run reports the kernel it breaks, which is what the wave64 device cases would see on a CDNA GPU.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

KERNELS = Path(__file__).resolve().parents[2] / "test_matrix" / "device" / "kernels"
LINES = ("warp sum", "warp max", "warp inclusive scan", "warp ballot count")

# name -> (text in port_warp.cuh, its 32-lane version, the lines the 64-lane run gets WRONG)
BUGS = {
    "sum_first_offset_16": ("for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync",
                            "for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync",
                            {"warp sum"}),
    "max_butterfly_from_16": ("for (int offset = warpSize / 2; offset > 0; offset /= 2) {\n    T other",
                              "for (int offset = 16; offset > 0; offset /= 2) {\n    T other",
                              {"warp max"}),
    "scan_stops_at_32": ("for (int offset = 1; offset < warpSize; offset *= 2)",
                         "for (int offset = 1; offset < 32; offset *= 2)",
                         {"warp inclusive scan"}),
    "ballot_in_32_bits": ("port_lane_mask votes = __ballot_sync(port_full_mask(), predicate);\n"
                          "  return __popcll(votes);",
                          "unsigned int votes = __ballot_sync(port_full_mask(), predicate);\n  return __popc(votes);",
                          {"warp ballot count"}),
}


@pytest.fixture(scope="module")
def emulate_at(tmp_path_factory):
    from porting.emulate import Request, emulate

    cache = tmp_path_factory.mktemp("emulate-cache")

    def go(header_text: str, name: str):
        work = tmp_path_factory.mktemp(name)
        shutil.copy(KERNELS / "warp_check.cu", work / "warp_check.cu")
        (work / "port_warp.cuh").write_text(header_text)
        return emulate(Request(sources=[work / "warp_check.cu"], out_dir=work / "out", cache_dir=cache))

    return go


def _verdicts(run) -> dict[str, str]:
    out = {}
    for line in run.stdout.splitlines():
        name, _, verdict = line.partition(": ")
        out[name] = verdict
    return out


def test_the_portable_kernels_are_right_at_32_and_64_lanes(emulate_at):
    result = emulate_at((KERNELS / "port_warp.cuh").read_text(), "clean")
    assert result.verdict == "same", [d.line() for d in result.differences]
    for run in result.runs:
        assert run.exit == 0 and _verdicts(run) == dict.fromkeys(LINES, "ok")


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_a_32_lane_assumption_fails_at_64_lanes(bug, emulate_at):
    right, wrong, broken = BUGS[bug]
    header = (KERNELS / "port_warp.cuh").read_text()
    assert header.count(right) == 1, f"{bug}: the header no longer holds the text this bug replaces"
    result = emulate_at(header.replace(right, wrong), bug)
    at = {r.warp: r for r in result.runs}
    assert at[32].exit == 0 and _verdicts(at[32]) == dict.fromkeys(LINES, "ok")  # latent on 32-lane warps
    assert at[64].exit == 1
    assert {k for k, v in _verdicts(at[64]).items() if v == "WRONG"} == broken
    assert result.verdict == "diverged"


def test_a_32_bit_full_mask_is_caught_at_64_lanes(emulate_at):
    """A 0xffffffff "all lanes" mask: the emulator refuses lanes 32-63 of a wave64 in it."""
    header = (KERNELS / "port_warp.cuh").read_text()
    right = "return warpSize >= 64 ? ~0ull : ((1ull << warpSize) - 1ull);"
    assert header.count(right) == 1
    result = emulate_at(header.replace(right, "return 0xffffffffull;"), "mask32")
    at = {r.warp: r for r in result.runs}
    assert at[32].exit == 0 and at[64].exit != 0
    assert result.verdict == "diverged"
