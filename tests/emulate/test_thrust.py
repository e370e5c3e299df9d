"""Thrust in the emulator: compiled from CCCL's headers with its CPP device system
(build.thrust_flags, runtime/emu_thrust.h), interoperating with emulated kernels both ways."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.emulate import build, refuse

THRUST = Path(__file__).parent / "programs" / "thrust"
needs_cccl = pytest.mark.skipif(build.cccl_dir() is None, reason="no CCCL headers (nvcc's include/cccl) here")


def _expected_algorithms() -> str:
    """What algorithms.cu must print, computed here from its inputs, not copied from a run."""
    v = [(i * 37) % 101 for i in range(100)]
    s = sorted(v)
    odd = [x for x in v if x % 2]
    keys = sorted(zip([3, 1, 2, 1, 3, 0], [30, 10, 20, 11, 31, 0]), key=lambda kv: kv[0])  # stable
    inc = [sum(range(1, j + 2)) for j in range(8)]
    exc = [10 + sum(range(1, j + 1)) for j in range(8)]
    out = [2 + i for i in range(100)]
    return "".join([
        f"reduce {sum(v)} max {max(v)}\n",
        f"sorted {s[0]} {s[1]} {s[2]} .. {s[-1]}\n",
        "squares " + " ".join(str(x * x) for x in v[:10]) + "\n",
        f"scans {inc[0]} {inc[3]} {inc[7]} / {exc[0]} {exc[1]} {exc[7]}\n",
        f"copy_if {len(odd)} first {odd[0]} count(v == 74) {v.count(74)}\n",
        "by key " + " ".join(f"{k}:{w}" for k, w in keys) + "\n",
        f"unique {len(set(k for k, _ in keys))}\n",
        f"fill+kernel {out[0]} {out[-1]} sum {sum(out)}\n",
    ])


@needs_cccl
def test_thrust_algorithms_and_kernels_share_memory_at_both_widths(emulate_program):
    """device_vector written by a kernel through raw_pointer_cast; reduce, max, sort, transform,
    sequence, inclusive/exclusive scan, copy_if, count, stable_sort_by_key, unique; fill over a
    device_ptr to cudaMalloc'd memory that a kernel then reads; reduce over device_pointer_cast."""
    result = emulate_program(THRUST / "algorithms.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == _expected_algorithms()


@needs_cccl
def test_a_32_lane_kernel_in_a_thrust_program_diverges(emulate_program):
    """Offsets from 16 sum 32 of 64 lanes: thrust::reduce over the warps' partials loses half."""
    total = 256 * 255 // 2
    # at 64 lanes lane 0 of each wavefront holds lanes 0-31's sum; one partial per 64 lanes
    at64 = sum(sum(range(w * 64, w * 64 + 32)) for w in range(4))
    bug = emulate_program(THRUST / "warp_sum_bug.cu")
    assert bug.verdict == "diverged"
    by_width = {r.warp: r.stdout for r in bug.runs}
    assert by_width[32] == f"total {total:.1f} (expected {total:.1f})\n"
    assert by_width[64] == f"total {at64:.1f} (expected {total:.1f})\n"
    fixed = emulate_program(THRUST / "warp_sum_bug.cu", defines=["FIXED"])
    assert fixed.verdict == "same"
    assert fixed.runs[1].stdout == by_width[32]


def test_without_cccl_thrust_is_refused_by_name(tmp_path, monkeypatch):
    """PORT_EMULATE_CCCL naming a directory without thrust/: the scan refuses, naming the remedy."""
    monkeypatch.setenv("PORT_EMULATE_CCCL", str(tmp_path))
    src = tmp_path / "t.cu"
    src.write_text("#include <thrust/device_vector.h>\nint main() { thrust::device_vector<int> v(4); }\n")
    found = refuse.scan([src])
    assert [r.feature for r in found] == ["uses Thrust (no CCCL headers found: set PORT_EMULATE_CCCL)"]
    assert found[0].where == f"{src}:1"


@needs_cccl
def test_with_cccl_thrust_passes_the_scan(tmp_path):
    src = tmp_path / "t.cu"
    src.write_text("#include <thrust/device_vector.h>\nint main() { thrust::device_vector<int> v(4); }\n")
    assert refuse.scan([src]) == []
