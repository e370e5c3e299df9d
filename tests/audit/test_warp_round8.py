"""Issue 26, round 8 (classes seen in corpus 7's TUNE half; own programs, not its code). Each class:
the program that shows it, a correct variant that stays quiet, and the input that breaks the rule.

- (1) A width-less shuffle in a 32-lane logical warp whose source lane is data chosen by a test on
  the thread (``bucket = (idx < n) ? classify(key) : LAST``, packed one per byte and read back
  with ``& 0xFF``) reads another lane's bucket: lanes wrap at 64 on a 64-lane wavefront, so lanes
  32-63 read the lower half. A ternary's condition is not the value: only a source lane whose value
  is a thread index (``threadIdx.x ^ 1``, the same lane at 64) is left alone."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths


def found(tmp_path: Path, name: str, text: str) -> list[tuple[int, str]]:
    (tmp_path / name).write_text(text)
    return sorted((f.line, f.rule) for f in audit_paths([tmp_path / name], jobs=1).findings)


BYTE_BUCKETS = """__device__ unsigned classify(unsigned key) { return key >> 27; }
__global__ void scatter(const unsigned* in, unsigned* out, unsigned n) {
  unsigned lane = threadIdx.x & 31;
  unsigned idx = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned packed = 0;
  unsigned count = 0;
  for (int r = 0; r < 4; r++) {
    unsigned bucket = (idx < n) ? classify(in[idx]) : 31;
    packed |= bucket << (r << 3);
    count += __popc(__ballot_sync(0xffffffff, bucket == lane));
  }
  for (int r = 0; r < 4; r++) {
    unsigned base = __shfl_sync(0xffffffff, count, packed & 0xFF);
    unsigned fixed = __shfl_sync(0xffffffff, count, packed & 0xFF, 32);
    unsigned pair = (idx < n) ? threadIdx.x ^ 1 : threadIdx.x;
    unsigned mine = __shfl_sync(0xffffffff, count, pair);
    out[idx] = base + fixed + mine + lane;
    packed >>= 8;
  }
}
"""


def test_byte_packed_bucket_lane_is_named(tmp_path: Path) -> None:
    got = found(tmp_path, "byte_buckets.cu", BYTE_BUCKETS)
    assert (13, "shfl-fixed-lane") in got  # packed & 0xFF: a bucket id, lanes 32-63 read the lower half
    assert (14, "shfl-fixed-lane") not in got  # width 32: each half reads its own
    # the input that breaks the rule: a ternary whose VALUE is the thread index (threadIdx.x ^ 1)
    # is an absolute lane, the same lane at 64: quiet
    assert (16, "shfl-fixed-lane") not in got


WARP_CHECKS = """#include <cassert>
constexpr int warp_size = 32;
__global__ void band(int* out) {
  assert(warpSize == warp_size);
  assert(32 == warpSize);
  assert(warpSize % 32 == 0);
  assert(warpSize == block_lanes);
  if (warpSize != 32) __trap();
  if (warpSize != 32) { out[0] = -1; }
  const int lanes = threadIdx.x % warpSize;
  out[threadIdx.x] = lanes;
}
#if defined(__CUDA_ARCH__) && !defined(__HIP_PLATFORM_AMD__)
__global__ void cuda_side(int* out) { assert(warpSize == 32); out[0] = 1; }
#endif
"""


def test_checks_that_warpsize_is_32_are_named(tmp_path: Path) -> None:
    got = [line for line, rule in found(tmp_path, "checks.cu", WARP_CHECKS) if rule == "warp-size-literal"]
    # equal to 32 (a literal, or a constant of the unit): fails at 64, traps where NDEBUG is off
    assert 4 in got and 5 in got and 8 in got
    # a check that holds at 64, a name not known to be 32, a fallback that does not stop the kernel,
    # and the input that breaks the rule: a branch only CUDA compiles (ROCm never sees the assert)
    assert not {6, 7, 9, 14} & set(got)


TILE_BALLOTS = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
template <int G>
__device__ int probe(const cg::thread_block_tile<G>& group, const int* keys, int key) {
  unsigned hits = group.ballot(keys[group.thread_rank()] == key);
  int count = __popc(group.ballot(keys[group.thread_rank()] == 0));
  const auto wide = group.ballot(keys[group.thread_rank()] < 0);
  int first = __ffs(wide) - 1;
  return count + __popc(hits) + __popc(wide) + first + __ffs(hits);
}
__global__ void lookup(const int* keys, int* out) {
  auto tile = cg::tiled_partition<64>(cg::this_thread_block());
  unsigned mask = tile.ballot(keys[threadIdx.x] > 0);
  auto t16 = cg::tiled_partition<16>(cg::this_thread_block());
  out[threadIdx.x] = probe(t16, keys, 1) + __popc(mask);
}
"""


def test_tile_ballots_are_exact_in_32_bits(tmp_path: Path) -> None:
    got = [(line, rule) for line, rule in found(tmp_path, "tiles.cu", TILE_BALLOTS) if rule == "ballot-32bit"]
    # a tile of a template width (<= 32 in CUDA code): HIP compacts its ballot to the tile's bits, so
    # uint32_t, __popc and __ffs of a uint32_t copy are exact: quiet (lines 5, 6, 9's __popc / __ffs(hits))
    assert not {5, 6, 9} & {line for line, _ in got}
    # __ffs of the ballot kept in 64 bits (auto) has no overload on ROCm 7: ambiguous, does not compile
    assert (8, "ballot-32bit") in got
    # the input that breaks the rule: a 64-wide tile's ballot kept in 32 bits loses lanes 32-63
    assert (13, "ballot-32bit") in got


CUB_THREAD_SEARCH = """#include <cub/cub.cuh>
__global__ void histogram(const unsigned* keys, const unsigned* levels, unsigned* out) {
  unsigned laneId = threadIdx.x & 0x1F;
  unsigned warpId = threadIdx.x >> 5;
  unsigned bucket = cub::UpperBound(levels, 32, keys[threadIdx.x]) - 1;
  unsigned count = 1;
  for (int offset = 16; offset > 0; offset /= 2)
    count += __shfl_xor_sync(0xffffffffffffffffull, count, offset, 32);
  if (laneId == 0) out[warpId * 32 + bucket] = count;
}
"""


def messages(tmp_path: Path, name: str, text: str) -> list[str]:
    (tmp_path / name).write_text(text)
    return [f.message for f in audit_paths([tmp_path / name], jobs=1).findings]


def test_cub_thread_utilities_do_not_measure_the_warp(tmp_path: Path) -> None:
    # cub::UpperBound is a per-thread binary search: nothing in the unit measures the warp by warpSize
    got = messages(tmp_path, "histogram.cu", CUB_THREAD_SEARCH)
    assert not [m for m in got if "measures the warp by warpSize" in m]
    # the input that breaks the rule: CUB's hardware lane (cub::LaneId) does measure it
    text = CUB_THREAD_SEARCH.replace("threadIdx.x & 0x1F;", "threadIdx.x & 0x1F;\\n  unsigned hw = cub::LaneId();")
    text = text.replace("count = 1;", "count = hw;")
    assert [m for m in messages(tmp_path, "hw_lane.cu", text) if "measures the warp by warpSize" in m]
