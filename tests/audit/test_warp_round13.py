"""Issue 26, round 13 (classes generalised from corpus 9, both halves now touched; own programs,
not its code). Each class: the program that shows it, a correct variant that stays quiet, and the
input that breaks the rule.

- (1) Launch forms reaching round 12's rows-of-32 stride rule: a kernel striding by ``warpSize``
  over the thread's x index that its unit launches with blocks 32 threads wide in x is
  ``launch-warp32`` at each stride, now also where the block is a later declarator
  (``dim3 grid(n), block(32, heads);``), where the launch sits in a ``#define`` that the
  launching function expands, and where the stride starts from a local copy of the index
  (``int tid = threadIdx.x; for (c = tid; ...; c += warpSize)``, or the unrolled
  ``c = tid + warpSize * i``). Quiet: a 64-wide block, a stride by ``blockDim.x``, a macro that
  no function declaring such a block expands. Breaks on: a copy made through arithmetic
  (``int tid = threadIdx.x + 0``: not a copy the rule reads, quiet, a miss).
- (2) A warp-width constant (``#define WARP_SIZE 32``) in a branch the file itself rules out
  (``#if 0`` / ``#elif 0``) is dead like any other finding there: the constants were kept aside
  for the unit-level pass and escaped round 12's dead-branch filter. Quiet in ``#elif 0``;
  named in ``#elif 1``. Breaks on: a branch decided by a macro the build defines (``#elif
  USE_OLD``: not the file's own decision, kept)."""

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
