"""Issue 26, round 4 (classes seen in corpus 4's hold-out misses; own programs, not its code).

- A ballot compared with a 32-bit all-ones constant (``__ballot_sync(m, done) == ~0u``,
  ``0xffffffff != __ballot_sync(...)``): on a 64-lane wavefront the ballot has 64 bits, so the test
  is false when all 64 lanes vote (an early exit that never happens). ``~0`` / ``-1`` (signed,
  sign-extended) and ``~0ull`` are right at 64 and stay quiet."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths

TILE_DONE = """__global__ void raster(const int* work, int* out, int n) {
  unsigned long long full = ~0ull;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    bool done = work[i] == 0;
    if (__ballot_sync(full, done) == ~0u)
      break;
    out[i] += work[i];
  }
  if (0xFFFFFFFFu != __ballot_sync(full, out[threadIdx.x] > 0))
    out[0] = 1;
}
"""
# the same kernel comparing with the wavefront's full mask: right at 64
TILE_DONE_64 = TILE_DONE.replace("== ~0u", "== ~0ull").replace("0xFFFFFFFFu !=", "full !=")
# `~0` and `-1` are ints, sign-extended to all 64 ones when compared with the 64-bit ballot: right
TILE_DONE_SIGNED = TILE_DONE.replace("== ~0u", "== ~0").replace("0xFFFFFFFFu !=", "-1 !=")
# the input that should break the rule: a 32-bit constant inside the ballot's arguments (its mask)
# is not a comparison of its result; only the mask rule speaks there
MASK_ONLY = TILE_DONE_64.replace("__ballot_sync(full, done)", "__ballot_sync(0xffffffffu, done == (0xffffffffu == 0))")


def rules(tmp_path: Path, name: str, text: str) -> list[tuple[int, str]]:
    (tmp_path / name).write_text(text)
    return sorted((f.line, f.rule) for f in audit_paths([tmp_path / name], jobs=1).findings)


def test_a_ballot_compared_with_32_bit_all_ones_is_named(tmp_path: Path) -> None:
    found = rules(tmp_path, "raster.cu", TILE_DONE)
    assert (5, "ballot-32bit") in found and (9, "ballot-32bit") in found


def test_a_ballot_compared_with_a_64_bit_or_signed_all_ones_is_quiet(tmp_path: Path) -> None:
    assert not [r for r in rules(tmp_path, "raster64.cu", TILE_DONE_64) if r[1] == "ballot-32bit"]
    assert not [r for r in rules(tmp_path, "rasters.cu", TILE_DONE_SIGNED) if r[1] == "ballot-32bit"]


def test_a_32_bit_constant_inside_the_ballot_arguments_is_not_a_comparison(tmp_path: Path) -> None:
    found = rules(tmp_path, "mask.cu", MASK_ONLY)
    assert (5, "warp-mask-32bit") in found and (5, "ballot-32bit") not in found


# A ballot re-assigned to a variable declared 32-bit (and first filled) in an earlier statement:
# each `amask = __ballot_sync(amask, ...)` drops lanes 32-63 again (corpus 2's btree 669 class).
REASSIGNED = """__global__ void grads(const int* item, float* g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int amask = __ballot_sync(~0ull, i < n);
  if (i >= n) return;
  bool fail = item[i] < 0;
  amask = __ballot_sync(amask, !fail);
  if (fail) return;
  g[i] = __popcll(amask);
}
"""
# declared 64-bit: right at 64, quiet
REASSIGNED_64 = REASSIGNED.replace("unsigned int amask", "unsigned long long amask")
# the input that breaks it: a second name declared after an initializer holding a comma
# (`unsigned a = __ballot_sync(m, p), b;`) is not seen as 32-bit, so `b = __ballot_sync(...)` is
# missed; the declaration's own ballot (a) is still named
BREAKS = REASSIGNED.replace("unsigned int amask = __ballot_sync(~0ull, i < n);",
                            "unsigned int first = __ballot_sync(~0ull, i < n), amask;")


def test_a_ballot_reassigned_to_a_32_bit_variable_declared_earlier_is_named(tmp_path: Path) -> None:
    found = rules(tmp_path, "grads.cu", REASSIGNED)
    assert (3, "ballot-32bit") in found and (6, "ballot-32bit") in found


def test_a_ballot_reassigned_to_a_64_bit_variable_is_quiet(tmp_path: Path) -> None:
    assert not [r for r in rules(tmp_path, "grads64.cu", REASSIGNED_64) if r[1] == "ballot-32bit"]


def test_a_name_declared_after_an_initializer_with_a_comma_is_the_known_miss(tmp_path: Path) -> None:
    found = rules(tmp_path, "grads_b.cu", BREAKS)
    assert (3, "ballot-32bit") in found and (6, "ballot-32bit") not in found


# a name declared in the call's own statement is no re-assignment: `while (auto q = __ballot(..))`
# after a 32-bit `q` of another scope (64-bit on HIP: right), and a 32-bit store of another
# intrinsic's result that merely takes __activemask() as its mask (a shuffle's value: round 14 reads
# a __match_any_sync result as a wavefront mask itself, so `int m = __match_any_sync(..)` is now named)
OWN_STATEMENT = """__device__ unsigned other(int p) { uint32_t q = p; return q; }
__global__ void walk(int* out, bool todo) {
  while (auto q = __ballot_sync(~0ull, todo)) {
    int src = __ffsll(q) - 1;
    todo = todo && threadIdx.x != src;
  }
  uint32_t q;
  int m = __shfl_sync(__activemask(), (int)threadIdx.x, 0);
  out[threadIdx.x] = m;
}
"""


def test_a_declaration_in_the_calls_own_statement_is_not_a_reassignment(tmp_path: Path) -> None:
    assert not [r for r in rules(tmp_path, "walk.cu", OWN_STATEMENT) if r[1] == "ballot-32bit"]


# A reduction over the hardware warp (offsets from warpSize / 2) in a function whose lanes and warps
# are counted in 32: at 64 each 32-lane leader stores the whole wavefront's sum in its own slot,
# and the block total counts every value twice.
HEAD_SUM = """#define WARP 32
__global__ void head_sum(const float* x, float* out, int dim) {
  __shared__ float sums[8];
  int warp_id = threadIdx.x / WARP;
  int lane_id = threadIdx.x % WARP;
  float sum = x[blockIdx.x * dim + threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffff, sum, offset);
  if (lane_id == 0) sums[warp_id] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int i = 0; i < blockDim.x / WARP; ++i) t += sums[i];
    out[blockIdx.x] = t;
  }
}
"""
# counted by warpSize on both sides: right at 64
HEAD_SUM_HW = HEAD_SUM.replace("threadIdx.x / WARP", "threadIdx.x / warpSize").replace(
    "threadIdx.x % WARP", "threadIdx.x % warpSize").replace("blockDim.x / WARP", "blockDim.x / warpSize")
# offsets from 16: 32-lane logical warps, consistent at 64 (no mixed width)
HEAD_SUM_16 = HEAD_SUM.replace("int offset = warpSize / 2", "int offset = 16")

# cub::WarpReduce with no logical width per 32-lane warp (hipCUB: 64 lanes)
CUB_WARP = """#include <cub/cub.cuh>
__global__ void qk(const float* k, const float* q, float* logits, int n) {
  __shared__ typename cub::WarpReduce<float>::TempStorage tmp[4];
  int warp_id = threadIdx.x / 32;
  int lane_id = threadIdx.x % 32;
  for (int i = warp_id; i < n; i += 4) {
    float v = k[i * 32 + lane_id] * q[lane_id];
    float s = cub::WarpReduce<float>(tmp[warp_id]).Sum(v);
    if (lane_id == 0) logits[i] = s;
  }
}
"""
CUB_WARP_32 = CUB_WARP.replace("cub::WarpReduce<float>(tmp", "cub::WarpReduce<float, 32>(tmp").replace(
    "cub::WarpReduce<float>::TempStorage", "cub::WarpReduce<float, 32>::TempStorage")
# the input that breaks it: the warpSize / 2 loop moved into a helper the 32-lane function calls;
# the rule reads the function holding the loop, so nothing names it (the known miss)
HELPER = HEAD_SUM.replace(
    "__global__ void head_sum(", "__device__ float wsum(float sum) {\n"
    "  for (int offset = warpSize / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffff, sum, offset);\n"
    "  return sum;\n}\n__global__ void head_sum(").replace(
    "  for (int offset = warpSize / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffff, sum, offset);\n"
    "  if (lane_id", "  sum = wsum(sum);\n  if (lane_id")


def test_a_warpsize_reduction_stored_by_32_lane_leaders_is_named(tmp_path: Path) -> None:
    assert (7, "warp-width-mixed") in rules(tmp_path, "head_sum.cu", HEAD_SUM)


def test_a_warpsize_reduction_counted_by_warpsize_or_a_16_loop_is_no_mixed_width(tmp_path: Path) -> None:
    assert not [r for r in rules(tmp_path, "hs_hw.cu", HEAD_SUM_HW) if r[1] == "warp-width-mixed"]
    assert not [r for r in rules(tmp_path, "hs16.cu", HEAD_SUM_16) if r[1] == "warp-width-mixed"]


def test_cub_warp_reduce_without_a_width_per_32_lane_warp_is_named(tmp_path: Path) -> None:
    assert (8, "warp-width-mixed") in rules(tmp_path, "qk.cu", CUB_WARP)


def test_cub_warp_reduce_with_a_logical_width_of_32_is_quiet(tmp_path: Path) -> None:
    assert not [r for r in rules(tmp_path, "qk32.cu", CUB_WARP_32) if r[1] == "warp-width-mixed"]


def test_a_warpsize_loop_in_a_helper_of_a_32_lane_function_is_the_known_miss(tmp_path: Path) -> None:
    found = rules(tmp_path, "helper.cu", HELPER)
    assert not [r for r in found if r[1] == "warp-width-mixed" and r[0] == 3]


# a width ported for ROCm in its own branch (`#if defined(USE_ROCM)` WARP = warpSize, else 32):
# on ROCm the leaders and slots count by warpSize, like the loop: no mixed width (corpus 4's tune
# half, exllamav2's rms_norm and layer_norm, gave the class its second condition)
PORTED = HEAD_SUM.replace("#define WARP 32\n", "#if defined(USE_ROCM)\n#define WARP (warpSize)\n#else\n"
                          "#define WARP 32\n#endif\n")


def test_a_width_ported_in_a_rocm_branch_is_no_mixed_width(tmp_path: Path) -> None:
    assert not [r for r in rules(tmp_path, "ported.cu", PORTED) if r[1] == "warp-width-mixed"]
