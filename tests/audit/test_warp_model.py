"""Issue 26: the per-function warp model (porting/audit/model.py) across a translation unit, and
determinism: a file's findings depend only on what it includes, never on the other files of a run."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths

REDUCE32 = """#pragma once
#define WARP_SIZE 32
__device__ float warp_sum(float v) {
  for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_xor_sync(~0ull, v, o, WARP_SIZE);
  return v;
}
"""
ROWS_BY_WARPSIZE = """#include "reduce.cuh"
__global__ void rows(const float* x, float* out, int cols) {
  int row = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;
  int lane = threadIdx.x % warpSize;
  float v = 0.f;
  for (int c = lane; c < cols; c += warpSize) v += x[row * cols + c];
  v = warp_sum(v);
  if (lane == 0) out[row] = v;
}
"""


def found(result, name: str) -> list[tuple[int, str]]:
    return sorted((f.line, f.rule) for f in result.findings if Path(f.path).name == name)


def test_a_32_lane_reduction_from_an_included_header_is_named_at_the_call(tmp_path: Path) -> None:
    (tmp_path / "reduce.cuh").write_text(REDUCE32)
    (tmp_path / "rows.cu").write_text(ROWS_BY_WARPSIZE)
    result = audit_paths([tmp_path / "rows.cu"], jobs=1)
    assert found(result, "rows.cu") == [(7, "warp-width-mixed")]
    # the header alone is self-consistent 32-lane code: a note at its width constant, not a hazard
    assert found(audit_paths([tmp_path / "reduce.cuh"], jobs=1), "reduce.cuh") == [(2, "warp32-logical")]


def test_a_header_the_file_does_not_include_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "reduce.cuh").write_text(REDUCE32)  # not reachable from rows.cu
    (tmp_path / "rows.cu").write_text(ROWS_BY_WARPSIZE)
    assert found(audit_paths([tmp_path / "rows.cu"], jobs=1), "rows.cu") == []


UNRELATED = """#define WARP_SIZE 32
#define cudaLaunchCooperativeKernelMultiDevice my_launch
__global__ void k(float* x) {
  int lane = threadIdx.x % WARP_SIZE;
  x[lane] = __shfl_xor_sync(~0ull, x[0], 1, WARP_SIZE);
}
"""
USER = """__global__ void lanes(float* x) {
  int lane = threadIdx.x % WARP_SIZE;
  int wid = threadIdx.x / warpSize;
  x[lane + wid] = __shfl_xor_sync(0xffffffff, x[0], 1);
}
"""


def test_findings_do_not_depend_on_the_other_files_of_the_run(tmp_path: Path) -> None:
    # class 10: a WARP_SIZE (or a CUDA-named macro) defined in an unrelated file of the scan is not
    # the name this file uses
    (tmp_path / "user.cu").write_text(USER)
    (tmp_path / "unrelated.cu").write_text(UNRELATED)
    alone = audit_paths([tmp_path / "user.cu"], jobs=1)
    together = audit_paths([tmp_path], jobs=1)
    assert found(alone, "user.cu") == found(together, "user.cu") == [(4, "warp-mask-32bit")]
    assert found(audit_paths([tmp_path / "unrelated.cu"], jobs=1), "unrelated.cu") == found(together, "unrelated.cu")


def test_a_header_s_findings_are_the_same_alone_and_in_the_tree(tmp_path: Path) -> None:
    (tmp_path / "reduce.cuh").write_text(REDUCE32)
    (tmp_path / "rows.cu").write_text(ROWS_BY_WARPSIZE)
    tree = audit_paths([tmp_path], jobs=1)
    for name in ("reduce.cuh", "rows.cu"):
        assert found(tree, name) == found(audit_paths([tmp_path / name], jobs=1), name)


SHADOWED = """__device__ float warp_max(float v) {
  int warpSize = 32;
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v = fmaxf(v, __shfl_down_sync(~0ull, v, offset));
  return v;
}
__global__ void block_max(const float* x, float* out) {
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  __shared__ float part[32];
  float v = warp_max(x[blockIdx.x * blockDim.x + threadIdx.x]);
  if (lane == 0) part[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = (threadIdx.x < blockDim.x / 32) ? part[lane] : -1e30f;
    v = warp_max(v);
    if (lane == 0) out[blockIdx.x] = v;
  }
}
"""


def test_a_local_warpsize_is_judged_by_its_value(tmp_path: Path) -> None:
    """`int warpSize = 32;` in a function shadows the builtin: its loop reduces 32-lane halves, the
    same width as the caller's `% 32` / `/ 32`, so the code is consistent at 64 (notes, no warning).
    Without the local, the loop runs from the builtin's 32 at 64 lanes while the caller counts
    32-lane warps: the widths disagree and the lane math stays a warning."""
    (tmp_path / "shadow.cu").write_text(SHADOWED)
    (tmp_path / "builtin.cu").write_text(SHADOWED.replace("  int warpSize = 32;\n", "\n"))
    result = audit_paths([tmp_path], jobs=1)
    assert found(result, "shadow.cu") == [(8, "warp32-logical"), (9, "warp32-logical"), (15, "warp32-logical")]
    assert found(result, "builtin.cu") == [(8, "warp-size-literal"), (9, "warp-size-literal"),
                                           (15, "warp-size-literal")]
    # a local of another value is not taken for 32
    (tmp_path / "shadow.cu").write_text(SHADOWED.replace("warpSize = 32", "warpSize = 64"))
    assert found(audit_paths([tmp_path / "shadow.cu"], jobs=1), "shadow.cu") == found(result, "builtin.cu")


PACKED = """__global__ void packed_rows(const unsigned* bits, const float* w, float* out, int height, int n, int pad) {
  const int warpId = (threadIdx.x + blockIdx.x * blockDim.x) / warpSize;
  const int lane = threadIdx.x % warpSize;
  const int i = warpId;
  float acc = 0.f;
  for (int j = lane; j < n; j += warpSize) {
    const int word = i / 32 * pad + j;
    const int bit = i % 32;
    acc += ((bits[word] >> bit) & 1) * w[j];
  }
  for (int o = warpSize / 2; o > 0; o /= 2) acc += __shfl_down(acc, o);
  if (lane == 0 && i < height) out[i] = acc;
}
"""


def test_bit_packing_on_a_warp_index_is_not_lane_math(tmp_path: Path) -> None:
    """`i / 32`, `i % 32` on a warp's row (i = tid / warpSize: the same in all its lanes) pick the word
    and bit of a bit-packed matrix, right at 64; on a thread index (i = threadIdx.x) in the same
    warpSize-measured function they are lane math of the wrong width."""
    (tmp_path / "packed.cu").write_text(PACKED)
    (tmp_path / "lanes.cu").write_text(PACKED.replace("const int i = warpId;", "const int i = threadIdx.x;"))
    result = audit_paths([tmp_path], jobs=1)
    assert found(result, "packed.cu") == []
    assert found(result, "lanes.cu") == [(7, "warp-size-literal"), (8, "warp-size-literal")]


LOCK = """__device__ unsigned lane_id();
__device__ bool try_lock(unsigned* node) {
  bool locked = true;
  if (lane_id() == 1) locked = (atomicOr(node + 1, 0x80000000u) & 0x80000000u) != 0;
  locked = __shfl_sync(~0ull, locked, 1);
  return locked;
}
__global__ void insert(unsigned* nodes, const unsigned* keys) {
  int lane = threadIdx.x % 32;
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  unsigned* node = nodes + 32 * keys[warp];
  while (try_lock(node)) {
  }
  node[lane] = keys[warp] + lane;
  for (int o = 16; o > 0; o >>= 1) node[lane] += __shfl_down_sync(~0ull, node[lane], o, 32);
}
"""


def test_a_fixed_lane_shuffle_in_a_helper_of_32_lane_callers(tmp_path: Path) -> None:
    """A lock helper with no lane math of its own broadcasts a bool from lane 1 without a width; its
    caller works on 32-lane logical warps, so at 64 lanes the upper half reads the lower half's lock
    (and the caller's code is no longer "consistent at 64"). With a width of 32 each half reads its
    own lane 1; with a caller that counts lanes by warpSize, lane 1 is the whole wavefront's."""
    (tmp_path / "lock.cu").write_text(LOCK)
    (tmp_path / "width.cu").write_text(LOCK.replace("locked, 1);", "locked, 1, 32);"))
    (tmp_path / "hw.cu").write_text(LOCK.replace("% 32", "% warpSize").replace("/ 32", "/ warpSize")
                                    .replace("int o = 16", "int o = warpSize / 2").replace("o, 32)", "o)"))
    result = audit_paths([tmp_path], jobs=1)
    assert found(result, "lock.cu") == [(5, "shfl-fixed-lane")]
    assert {rule for _line, rule in found(result, "width.cu")} == {"warp32-logical"}
    assert [f for f in found(result, "hw.cu") if f[1] in ("shfl-fixed-lane", "warp-size-literal")] == []


WORK = """__device__ void count(int* counts, int per_warp, int n) {
  const int warp_id = threadIdx.x / warpSize;
  for (int i = 0; i < per_warp; ++i)
    if (warp_id * per_warp + i < n) counts[warp_id * per_warp + i] = 0;
}
__global__ void zero(int* counts, int per_warp, int n) {
  count(counts, per_warp, n);
}
void run(int* counts, int n) {
  const int WARP = 32;
  int per_warp = WARP;
  auto kernel = zero;
  kernel<<<1, 256>>>(counts, per_warp, n);
}
"""


def test_a_work_count_of_32_passed_to_a_kernel_that_counts_warps_by_warpsize(tmp_path: Path) -> None:
    """A host count of 32 items per warp, passed as an argument (through an alias of the kernel and
    one device call) to code that multiplies it by `threadIdx.x / warpSize`: at 64 lanes half the
    warps exist and half the items are never reached (named at the host assignment). A count taken
    from the device's warp size is quiet."""
    (tmp_path / "work.cu").write_text(WORK)
    (tmp_path / "right.cu").write_text(WORK.replace("int per_warp = WARP;", "int per_warp = device_warp_size();"))
    result = audit_paths([tmp_path], jobs=1)
    assert [f for f in found(result, "work.cu") if f[1] == "launch-warp32"] == [(11, "launch-warp32")]
    assert [f for f in found(result, "right.cu") if f[1] == "launch-warp32"] == []
