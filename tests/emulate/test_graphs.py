"""CUDA graphs in the emulator (runtime/emu_graph.h): stream capture across two streams, replay,
explicit nodes, and a captured kernel's 32-lane bug diverging at every replay."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.emulate import Unsupported, refuse

GRAPHS = Path(__file__).parent / "programs" / "graphs"


def _expected(per_lane_total: int = 128) -> str:
    """capture.cu, by hand: replay r adds 1 to v (so v = r), copies it to w and adds 0.5, and
    sums w over 128 threads; the explicit graph zeroes v, calls the host function and runs the
    captured graph once more as a child. ``per_lane_total`` is how many of the 128 values the
    reduction counts."""
    lines = ["captured 6 nodes, capturing 1, nothing ran: v[0] 0, host calls 0\n"]
    lines += [f"replay {r}: w[0] {r + 0.5:g} total {per_lane_total * (r + 0.5):g} host calls {r}\n" for r in (1, 2, 3)]
    lines.append(f"explicit: w[0] 1.5 w[127] 1.5 total {per_lane_total * 1.5:g} host calls 5\n")
    return "".join(lines)


def test_a_captured_graph_replays_its_work_in_order(emulate_program):
    result = emulate_program(GRAPHS / "capture.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == _expected()


def test_a_32_lane_kernel_inside_a_graph_diverges_at_each_replay(emulate_program):
    """Offsets from 16 at 64 lanes: lane 0 of each wavefront sums 32 of its 64 lanes, so half
    the 128 values are counted, at every replay."""
    bug = emulate_program(GRAPHS / "capture.cu", defines=["WARP_BUG"])
    assert bug.verdict == "diverged"
    by_width = {r.warp: r.stdout for r in bug.runs}
    assert by_width[32] == _expected()
    assert by_width[64] == _expected(per_lane_total=64)


def test_capture_passes_the_scan_and_conditional_nodes_and_graphics_interop_do_not(tmp_path):
    src = tmp_path / "g.cu"
    src.write_text("void f(cudaStream_t s) { cudaGraph_t g; cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
                   " cudaStreamEndCapture(s, &g); cudaGraphExec_t e; cudaGraphInstantiate(&e, g, 0); }\n")
    assert refuse.scan([src]) == []
    src.write_text("void f(cudaGraph_t g) {\n cudaGraphConditionalHandle c;\n cudaGraphicsMapResources(1, 0, 0);\n}\n")
    found = {r.feature: r.where for r in refuse.scan([src])}
    assert found == {"CUDA graph conditional, memory, event or generic nodes": f"{src}:2",
                     "graphics interop (OpenGL/EGL/D3D)": f"{src}:3"}


def test_kernels_passed_as_void_pointers_launch_and_become_graph_nodes(emulate_program):
    """kernel_nodes.cu by hand: v = 0, +1 by cudaLaunchKernel((void*)stride_add<1>), x3 by
    reinterpret_cast<void*>(scale) -> 3; a graph of two kernel nodes (+1 on even elements, x3
    with the factor copied when the node was added, not the 100 set later) -> 12 and 9; the
    executable node given a factor of 0.5 -> 6.5 and 4.5."""
    result = emulate_program(GRAPHS / "kernel_nodes.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == "launched: 3 3\ngraph: 12 9\nupdated: 6.5 4.5 (node kept its func: 1)\n"


def test_a_void_pointer_kernel_the_rewrite_never_saw_is_named(tmp_path, emulate_program):
    """A kernel address that reaches cudaLaunchKernel without a (void*) cast of a kernel (here
    through a uintptr_t) has no launcher: the run stops, named, at both widths."""
    src = tmp_path / "hidden.cu"
    src.write_text("#include <cstdint>\n__global__ void k(int* p) { *p = 1; }\nint main() {\n"
                   "  int* p; cudaMalloc(&p, 4); void* args[] = {&p};\n"
                   "  uintptr_t hidden = reinterpret_cast<uintptr_t>(&k);\n"
                   "  cudaLaunchKernel(reinterpret_cast<const void*>(hidden), 1, 1, args);\n}\n")
    with pytest.raises(Unsupported, match="a kernel passed as a void\\* that no \\(void\\*\\) cast"):
        emulate_program(src)
