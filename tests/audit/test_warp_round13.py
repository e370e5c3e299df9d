"""Issue 26, round 13 (classes generalised from corpus 9, both halves now touched; own programs,
not its code). Each class: the program that shows it, a correct variant that stays quiet, and the
input that breaks the rule.

- (1) Launch forms reaching round 12's rows-of-32 stride rule: a kernel striding by ``warpSize``
  over the thread's x index that its unit launches with blocks 32 threads wide in x is
  ``launch-warp32`` at each stride, now also where the block is a later declarator
  (``dim3 grid(n), block(32, heads);``), where the launch sits in a ``#define`` that the
  launching function expands (LF or CRLF line ends), and where the stride starts from a local copy of the index
  (``int tid = threadIdx.x; for (c = tid; ...; c += warpSize)``, or the unrolled
  ``c = tid + warpSize * i``). Quiet: a 64-wide block, a stride by ``blockDim.x``, a macro that
  no function declaring such a block expands. Breaks on: a copy made through arithmetic
  (``int tid = threadIdx.x + 0``: not a copy the rule reads, quiet, a miss).
- (2) A warp-width constant (``#define WARP_SIZE 32``) in a branch the file itself rules out
  (``#if 0`` / ``#elif 0``) is dead like any other finding there: the constants were kept aside
  for the unit-level pass and escaped round 12's dead-branch filter. Quiet in ``#elif 0``;
  named in ``#elif 1``. Breaks on: a branch decided by a macro the build defines (``#elif
  USE_OLD``: not the file's own decision, kept).
- (3) A template's specialisation for 32 forwarding to the project's hardware helpers
  (``template<> struct subwarp<32> { static int sublane_id() { return utils::lane_id(); }
  static unsigned masked_ballot(int p) { return utils::ballot(p); } }``, in a helper header):
  ``subwarp<W>::sublane_id()`` is ``warp-width-mixed`` and ``subwarp<W>::masked_ballot()``
  ``ballot-32bit`` at each call where W is 32, or the calling kernel's template parameter that a
  launch in the unit sets to 32 or to a non-literal. Quiet: a kernel launched only with another
  literal width (``<..., 1>``), or not launched in the unit. Breaks on: a width handed through a
  host constant the rule does not follow (``kernel<W_HOST>`` with ``const int W_HOST = 4``: named,
  a false positive it accepts)."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths

ROWS = """template <typename T>
__global__ void softmax_rows(T *qk, const int seq_len)
{
    int tid = threadIdx.x;
    int row = blockIdx.x * blockDim.y + threadIdx.y;
    float mx = -1e20f;
    for (int col = tid; col < seq_len; col += warpSize)
        mx = fmaxf(mx, (float)qk[row * seq_len + col]);
    for (int mask = 16; mask > 0; mask >>= 1)
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, mask, 32));
    for (int i = 0; i < 4; i++) {
        int col = tid + warpSize * i;
        qk[row * seq_len + col] = (T)__expf((float)qk[row * seq_len + col] - mx);
    }
}

#define LAUNCH_ROWS(T) \\
    softmax_rows<T> \\
        <<<grid, block, 0, stream>>>(qk, seq_len)

void launch(float *qk, int rows, int seq_len, cudaStream_t stream)
{
    dim3 grid(rows / 4), block(WIDTH, 4);
    LAUNCH_ROWS(float);
}
"""


def strides(tmp_path: Path, text: str) -> list[int]:
    (tmp_path / "s.cu").write_text(text)
    return [f.line for f in audit_paths([tmp_path / "s.cu"], jobs=1).findings if f.rule == "launch-warp32"]


def test_second_declarator_macro_launch_and_index_copy(tmp_path: Path) -> None:
    assert strides(tmp_path, ROWS.replace("WIDTH", "32")) == [7, 12]
    direct = ROWS.replace("WIDTH", "32").replace("LAUNCH_ROWS(float);",
                                                  "softmax_rows<float><<<grid, block, 0, stream>>>(qk, seq_len);")
    assert strides(tmp_path, direct) == [7, 12]
    # the same unit with CRLF line ends: the macro's continuation lines still join
    (tmp_path / "s.cu").write_bytes(ROWS.replace("WIDTH", "32").replace("\n", "\r\n").encode())
    assert [f.line for f in audit_paths([tmp_path / "s.cu"], jobs=1).findings if f.rule == "launch-warp32"] == [7, 12]


def test_wavefront_rows_block_strides_and_unexpanded_macros_are_quiet(tmp_path: Path) -> None:
    assert strides(tmp_path, ROWS.replace("WIDTH", "64")) == []
    by_block = ROWS.replace("WIDTH", "32").replace("col += warpSize", "col += blockDim.x").replace(
        "tid + warpSize * i", "tid + blockDim.x * i")
    assert strides(tmp_path, by_block) == []
    # the macro is expanded only by a function whose block is a wavefront wide
    other = ROWS.replace("WIDTH", "32").replace("    LAUNCH_ROWS(float);\n", "") + (
        "void launch_wide(float *qk, int rows, int seq_len, cudaStream_t stream)\n"
        "{\n    dim3 grid(rows), block(64, 1);\n    LAUNCH_ROWS(float);\n}\n")
    assert strides(tmp_path, other) == []


def test_row_rule_breaks_on_an_index_copied_through_arithmetic(tmp_path: Path) -> None:
    text = ROWS.replace("WIDTH", "32").replace("int tid = threadIdx.x;", "int tid = threadIdx.x + 0;")
    assert strides(tmp_path, text) == []


DEAD_WIDTH = """__global__ void copy_rows(const float4 *src, float4 *dst, int n)
{
#if 0
    dst[threadIdx.x] = src[threadIdx.x];
#elif COND
    __shared__ float4 rows[64];
    #define WARP_SIZE2 5
    #define WARP_SIZE  32
    #define laneId (threadIdx.x & (WARP_SIZE - 1))
    #define warpId (threadIdx.x >> WARP_SIZE2)
    rows[warpId * WARP_SIZE + laneId] = src[blockIdx.x * blockDim.x + laneId];
    __syncthreads();
    dst[threadIdx.x] = rows[threadIdx.x];
#endif
}
"""


def widths(tmp_path: Path, text: str) -> list[int]:
    (tmp_path / "w.cu").write_text(text)
    return [f.line for f in audit_paths([tmp_path / "w.cu"], jobs=1).findings if f.rule == "warp-size-literal"]


def test_width_constant_in_a_dead_branch_is_quiet(tmp_path: Path) -> None:
    assert widths(tmp_path, DEAD_WIDTH.replace("COND", "0")) == []


def test_width_constant_in_a_live_branch_is_named(tmp_path: Path) -> None:
    assert widths(tmp_path, DEAD_WIDTH.replace("COND", "1")) == [7, 8]


def test_dead_width_rule_breaks_on_a_branch_the_build_decides(tmp_path: Path) -> None:
    # USE_OLD may be defined by -DUSE_OLD: the file does not decide it, the constants stay named
    assert widths(tmp_path, DEAD_WIDTH.replace("COND", "defined(USE_OLD)")) == [7, 8]


SUBWARP = """#pragma once
namespace utils {
static __device__ __forceinline__ int lane_id()
{
    int id; asm("mov.u32 %0, %%laneid;" : "=r"(id)); return id;
}
static __device__ __forceinline__ int warp_id() { return threadIdx.x >> 5; }
static __device__ __forceinline__ unsigned int ballot(int p) { return __ballot_sync(0xffffffff, p); }
}
template<int N> struct subwarp
{
    static __device__ __forceinline__ int sublane_id() { return threadIdx.x % N; }
    static __device__ __forceinline__ unsigned int masked_ballot(int p) { return utils::ballot(p) & ((1u << N) - 1); }
};
template<> struct subwarp<32>
{
    static __device__ __forceinline__ int sublane_id() { return utils::lane_id(); }
    static __device__ __forceinline__ unsigned int masked_ballot(int p) { return utils::ballot(p); }
};
"""

COUNTS = """#include <subwarp.h>
template< int CTA_SIZE, int WARP_SIZE >
__global__ void count_kernel(const int *rows, int *out)
{
    const int lane_id = subwarp<WARP_SIZE>::sublane_id();
    int n = __popc(subwarp<WARP_SIZE>::masked_ballot(rows[threadIdx.x] > 0));
    if (lane_id == 0)
        out[threadIdx.x / WARP_SIZE] = __shfl_sync(0xffffffff, n, 0, WARP_SIZE);
}

template< int NNZ >
void count_step(const int *rows, int *out, int n)
{
    const int WARP_SIZE = NNZ;
    count_kernel<256, WIDTH><<<n / 256, 256>>>(rows, out);
}
"""


def subwarp_unit(tmp_path: Path, width: str) -> list[tuple[int, str]]:
    (tmp_path / "include").mkdir(exist_ok=True)
    (tmp_path / "include" / "subwarp.h").write_text(SUBWARP)
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / "c.cu").write_text(COUNTS.replace("WIDTH", width))
    return sorted((f.line, f.rule) for f in audit_paths([tmp_path / "src" / "c.cu"], jobs=1).findings
                  if f.rule in ("warp-width-mixed", "ballot-32bit") and f.path.endswith("c.cu"))


def test_specialisation_for_32_named_at_its_calls(tmp_path: Path) -> None:
    assert subwarp_unit(tmp_path, "WARP_SIZE") == [(5, "warp-width-mixed"), (6, "ballot-32bit")]
    assert subwarp_unit(tmp_path, "32") == [(5, "warp-width-mixed"), (6, "ballot-32bit")]


def test_kernels_launched_narrow_or_not_at_all_are_quiet(tmp_path: Path) -> None:
    assert subwarp_unit(tmp_path, "1") == []
    (tmp_path / "include").mkdir(exist_ok=True)
    (tmp_path / "include" / "subwarp.h").write_text(SUBWARP)
    (tmp_path / "src").mkdir(exist_ok=True)
    unlaunched = COUNTS.split("template< int NNZ >")[0]
    (tmp_path / "src" / "c.cu").write_text(unlaunched)
    found = [f for f in audit_paths([tmp_path / "src" / "c.cu"], jobs=1).findings
             if f.rule in ("warp-width-mixed", "ballot-32bit")]
    assert found == []


def test_specialisation_rule_breaks_on_a_width_from_a_host_constant(tmp_path: Path) -> None:
    text = COUNTS.replace("const int WARP_SIZE = NNZ;", "const int W_HOST = 4;")
    (tmp_path / "include").mkdir(exist_ok=True)
    (tmp_path / "include" / "subwarp.h").write_text(SUBWARP)
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / "c.cu").write_text(text.replace("WIDTH", "W_HOST"))
    found = sorted(f.line for f in audit_paths([tmp_path / "src" / "c.cu"], jobs=1).findings
                   if f.rule in ("warp-width-mixed", "ballot-32bit") and f.path.endswith("c.cu"))
    assert found == [5, 6]  # W_HOST is 4: a false positive the rule accepts
