"""Refusal labels: what is refused is named right, and what is emulated is not refused."""

from __future__ import annotations

import pytest

from porting.emulate.refuse import scan_text

CG = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"


def features(src: str) -> list[str]:
    return [r.feature for r in scan_text(src, "x.cu")]


@pytest.mark.parametrize("body", [
    "__global__ void k(int* x) { x[cg::this_grid().thread_rank()] = cg::this_grid().size(); }",
    "__global__ void k(int* x) { cg::grid_group g = cg::this_grid(); x[g.thread_rank()] = 1;\n"
    "  cg::sync(cg::this_thread_block()); }",
    "__global__ void k(int* x) { auto grid = cg::this_grid(); auto b = cg::this_thread_block();\n"
    "  b.sync(); x[0] = grid.size(); }",
])
def test_grid_ranks_without_a_grid_barrier_are_not_refused(body):
    assert features(CG + body) == []


@pytest.mark.parametrize("body, line", [
    ("__global__ void k() {\n cg::this_grid().sync(); }", 4),
    ("__global__ void k() {\n cg::grid_group g = cg::this_grid();\n g.sync(); }", 5),
    ("__device__ void f(cg::grid_group& grid) {\n cg::sync(grid); }", 4),
    ("__global__ void k() { auto all = cg::this_grid();\n all . sync ( ); }", 4),
    ("int main() {\n cudaLaunchCooperativeKernel((void*)k, 1, 1, 0); }", 4),
])
def test_a_grid_barrier_is_refused_where_it_is(body, line):
    [refusal] = scan_text(CG + body, "x.cu")
    assert (refusal.feature, refusal.where) == ("cooperative groups grid sync", f"x.cu:{line}")


def test_graphics_interop_is_not_called_cuda_graphs():
    assert features("void f() { cudaGraphicsMapResources(1, &r, 0); }") == ["graphics interop (OpenGL/EGL/D3D)"]
    assert features("void f() { cudaGraph_t g; cudaGraphCreate(&g, 0); }") == []  # emulated (emu_graph.h)
    assert features("void f() { cudaGraphAddKernelNode(&n, g, 0, 0, &p); }") == []  # emu_kernels.h
    assert features("void f() { cudaGraphAddMemAllocNode(&n, g, 0, 0, &p); }") == [
        "CUDA graph conditional, memory, event or generic nodes"]


def test_half_and_bfloat16_are_emulated_and_fp8_is_refused():
    assert features("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n__half h; __nv_bfloat162 b;\n") == []
    assert features("#include <cuda_fp8.h>\n__nv_fp8_e4m3 q;\n") == ["fp8 types (cuda_fp8.h)"]
