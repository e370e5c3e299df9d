"""Issue 26, round 9 (classes generalised from corpus 7's TUNE half and adversarial spellings written
here; own programs, not its code). Each class: the program that shows it, a correct variant that
stays quiet, and the input that breaks the rule.

- (a) One-warp blocks seen through the translation unit: a kernel launched with a block of at most
  32 threads has no lanes 32-63, so a width-less fixed-lane shuffle there is right at 64. The block
  is read through ``dim3 threads(warp_size, 1, 1)`` / ``{W}`` / ``n = W`` and constants of the unit
  (the file and its quoted headers: ``#define ONE_WARP LANES``, ``constexpr``, ``enum``); a device
  function is judged by the kernels of the file that reach it; a kernel that asserts
  ``threadIdx.x < 32`` (using no second dimension) says it itself. Where no launch is visible the
  code alone decides, as before.
- (b) Adversarial spellings of the existing classes: a lane width from an ``enum { kWarp = 32 }`` or
  masked as ``threadIdx.x & (WARP_SZ - 1)``, a lane from ``block.thread_rank() % 32`` (a call's
  name is the operand, not its arguments: ``hash(keys[threadIdx.x]) % 32`` is data), and ballots kept
  in the file's own 32-bit aliases (``typedef unsigned int mask_t``, ``using lanes_t = uint32_t``);
  a width template instantiated with 32 (``wsum<32>(v)``) in a function measuring the warp by
  warpSize; a hand-unrolled ``__shfl_down_sync(m, v, 16)`` ... ``1`` reduction beside warpSize; and
  a header's ``#define WARP_SIZE 32`` used as this file's lane width beside warpSize (the header's
  own unit does not see the use, so the finding is at the use); an ``__any_sync`` / ``__all`` vote in
  a function whose warps are 32-lane halves (``tid % 32``, ``tid & 0x1f``, ``tid >> 5``): the vote
  spans the wavefront, so each logical warp's answer takes in the other half's lanes."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths


def found(tmp_path: Path, name: str, text: str, **headers: str) -> list[tuple[int, str]]:
    for header, body in headers.items():
        (tmp_path / header.replace("_cuh", ".cuh")).write_text(body)
    (tmp_path / name).write_text(text)
    return sorted((f.line, f.rule) for f in audit_paths([tmp_path / name], jobs=1).findings)


ONE_WARP = """#include <cassert>
#include "width.cuh"
constexpr int warp_size = 32;
__device__ int next_task(int* counter) {
  int t = 0;
  if (threadIdx.x == 0) t = atomicAdd(counter, 1);
  t = __shfl_sync(0xffffffff, t, 0);
  return t;
}
__global__ void aligned(int* counter, int* out) {
  int lane = threadIdx.x % warp_size;
  int t = next_task(counter);
  for (int i = lane; i < 100; i += warp_size) out[t * 100 + i] = lane;
}
__global__ void asserted(int* out) {
  assert(threadIdx.x < warp_size);
  int lane = threadIdx.x % 32;
  int v = __shfl_sync(0xffffffff, out[lane], 0);
  out[lane] = v;
}
__global__ void wide(int* out) {
  int lane = threadIdx.x % 32;
  int v = __shfl_sync(0xffffffff, out[threadIdx.x], 0);
  out[threadIdx.x] = v + lane;
}
void run(int* counter, int* out, cudaStream_t stream) {
  const dim3 threads(warp_size, 1, 1);
  aligned<<<8, threads, 0, stream>>>(counter, out);
  aligned<<<8, ONE_WARP, 0, stream>>>(counter, out);
  wide<<<8, BLOCK, 0, stream>>>(out);
}
__global__ void rows(int* out) {
  assert(threadIdx.x < 32);
  int lane = threadIdx.x % 32;
  int v = __shfl_sync(0xffffffff, out[threadIdx.y * 32 + lane], 0);
  out[threadIdx.y * 32 + lane] = v;
}
__device__ int grab(int v) {
  return __shfl_sync(0xffffffff, v, 0);
}
__global__ void tall(int* out) {
  int lane = threadIdx.x % 32;
  out[threadIdx.x] = grab(out[threadIdx.x]) + lane;
}
__global__ void flat(int* out) {
  int lane = threadIdx.x % 32;
  out[threadIdx.x] = grab(out[threadIdx.x]) + lane;
}
void run2(int* out) {
  const dim3 block(warp_size, 4, 1);
  tall<<<1, block>>>(out);
  int n = warp_size;
  flat<<<1, n>>>(out);
}
"""
WIDTH = "#define LANES 32\n#define ONE_WARP LANES\n#define BLOCK 256\n"


def test_one_warp_blocks_through_the_unit(tmp_path: Path) -> None:
    got = [line for line, rule in found(tmp_path, "one_warp.cu", ONE_WARP, width_cuh=WIDTH)
           if rule == "shfl-fixed-lane"]
    # next_task: reached only from `aligned`, launched with dim3 threads(warp_size, 1, 1) and with
    # ONE_WARP (-> LANES -> 32 in the included header); `asserted` says threadIdx.x < warp_size itself
    assert 7 not in got and 18 not in got
    # launched with BLOCK = 256: named, as before
    assert 23 in got
    # the inputs that break the rule: a kernel asserting threadIdx.x < 32 that indexes rows by
    # threadIdx.y (a (32, 4) block: two rows per wavefront), and a device function one of whose
    # callers runs dim3(warp_size, 4, 1) blocks, stay named
    assert 35 in got and 39 in got


def test_no_launch_visible_is_judged_by_the_code(tmp_path: Path) -> None:
    # the kernel alone in its unit (its launch is in another file): no block size is known, so the
    # width-less broadcast in 32-lane logical warps is named, whatever other files do
    text = ONE_WARP.split("void run(")[0]
    got = [line for line, rule in found(tmp_path, "alone.cu", text, width_cuh=WIDTH) if rule == "shfl-fixed-lane"]
    assert 7 in got and 23 in got
    assert 18 not in got  # its own assert still holds


HOST_SORT = """constexpr int warp_size = 32;
__global__ void band(int* out) {
  int lane = threadIdx.x % warp_size;
  for (int i = lane; i < 100; i += warp_size) out[i] = lane;
  int v = __shfl_sync(0xffffffff, out[lane], 0);
  out[lane] = v;
}
void run(int* out, int* keys, int n, cudaStream_t stream) {
  const dim3 threads(warp_size, 1, 1);
  band<<<n, threads, 0, stream>>>(out);
  cub::DeviceRadixSort::SortKeys(nullptr, n, keys, keys, n, 0, 32, stream);
}
"""


def test_device_wide_cub_is_no_warp_measure(tmp_path: Path) -> None:
    got = found(tmp_path, "host_sort.cu", HOST_SORT)
    # the host sorts with cub::DeviceRadixSort after launching 32-thread blocks: it measures no warp,
    # so warp_size = 32 is no "mixed width" and the band's broadcast has no upper half to miss
    assert (1, "warp-size-literal") not in got and (5, "shfl-fixed-lane") not in got
    # the input that breaks it: a block collective of CUB in the kernel does measure the hardware warp
    broken = HOST_SORT.replace("  out[lane] = v;\n", "  out[lane] = v + cub::WarpReduce<int>(tmp).Sum(v);\n")
    assert (1, "warp-size-literal") in found(tmp_path, "host_sort2.cu", broken)


SPELLINGS = """#include <cstdint>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
enum { kWarp = 32 };
constexpr int WARP_SZ = 32;
typedef unsigned int mask_t;
using lanes_t = uint32_t;
using wide_t = unsigned long long;
__global__ void by_enum(float* out, const float* in) {
  unsigned lane = threadIdx.x % kWarp;
  float v = in[threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down(v, o);
  if (lane == 0) out[threadIdx.x / warpSize] = v;
}
__global__ void by_mask(float* out, const float* in) {
  unsigned lane = threadIdx.x & (WARP_SZ - 1);
  float v = in[threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_xor(v, o);
  if (lane == 0) out[threadIdx.x / warpSize] = v;
}
__global__ void by_rank(float* out, const float* in) {
  auto block = cg::this_thread_block();
  unsigned lane = block.thread_rank() % 32;
  float v = in[block.thread_rank()];
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down(v, o);
  if (lane == 0) out[block.thread_rank() / warpSize] = v;
}
__global__ void hashed(float* out, const float* in, const unsigned* keys) {
  unsigned bucket = hash(keys[threadIdx.x]) % 32;
  float v = in[threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down(v, o);
  out[bucket] = v;
}
__global__ void votes(int* out, const int* in) {
  mask_t a = __ballot_sync(__activemask(), in[threadIdx.x] > 0);
  lanes_t b = __ballot_sync(__activemask(), in[threadIdx.x] > 1);
  wide_t c = __ballot_sync(__activemask(), in[threadIdx.x] > 2);
  out[threadIdx.x] = a + b + __popcll(c);
}
"""


def test_adversarial_spellings_are_named(tmp_path: Path) -> None:
    got = found(tmp_path, "spell.cu", SPELLINGS)
    # lanes counted by 32 through an enumerator and a `& (W - 1)` mask, in functions that measure the
    # warp by warpSize: the width constants are named where they are defined
    assert (4, "warp-size-literal") in got and (5, "warp-size-literal") in got
    assert (23, "warp-size-literal") in got  # block.thread_rank() % 32 beside / warpSize
    assert (35, "ballot-32bit") in got and (36, "ballot-32bit") in got  # mask_t, lanes_t
    # correct variants: a bucket from hashed data (% 32 of a call's result, not a lane) and a ballot
    # kept in a 64-bit alias stay quiet
    assert not [rule for line, rule in got if line in (29, 31, 37)]


def test_enum_of_another_value_is_no_width(tmp_path: Path) -> None:
    # the input that breaks the enum rule: an enumerator of 64 (or a plain int, not a constant) used
    # as `% kWarp` is no 32-lane width
    got = found(tmp_path, "enum64.cu", SPELLINGS.replace("kWarp = 32", "kWarp = 64"))
    assert (4, "warp-size-literal") not in got


WIDTH_TEMPLATE = """constexpr int WARP_SZ = 32;
constexpr int WAVE = 64;
template <int LANES>
__device__ float wsum(float v) {
  for (int o = LANES / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}
__global__ void halves(float* out, const float* in) {
  float v = wsum<32>(in[threadIdx.x]);
  if (threadIdx.x % warpSize == 0) out[threadIdx.x / warpSize] = v;
}
__global__ void named(float* out, const float* in) {
  float v = wsum<WARP_SZ>(in[threadIdx.x]);
  if (threadIdx.x % warpSize == 0) out[threadIdx.x / warpSize] = v;
}
__global__ void whole(float* out, const float* in) {
  float v = wsum<WAVE>(in[threadIdx.x]);
  if (threadIdx.x % warpSize == 0) out[threadIdx.x / warpSize] = v;
}
__global__ void logical(float* out, const float* in) {
  float v = wsum<32>(in[threadIdx.x]);
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;
}
"""


def test_width_template_given_32_beside_warpsize(tmp_path: Path) -> None:
    got = [line for line, rule in found(tmp_path, "tmpl.cu", WIDTH_TEMPLATE) if rule == "warp-width-mixed"]
    # wsum<32> / wsum<WARP_SZ> reduce 32 lanes where the caller's warp is warpSize (64) wide
    assert 9 in got and 13 in got
    # correct variants: a 64-wide instantiation, and a caller whose warps are 32-lane too
    assert 17 not in got and 21 not in got


UNROLLED = """__global__ void unrolled(float* out, const float* in) {
  float v = in[threadIdx.x];
  v += __shfl_down_sync(__activemask(), v, 16);
  v += __shfl_down_sync(__activemask(), v, 8);
  v += __shfl_down_sync(__activemask(), v, 4);
  v += __shfl_down_sync(__activemask(), v, 2);
  v += __shfl_down_sync(__activemask(), v, 1);
  if (threadIdx.x % warpSize == 0) out[threadIdx.x / warpSize] = v;
}
__global__ void unrolled_logical(float* out, const float* in) {
  float v = in[threadIdx.x];
  v += __shfl_xor_sync(__activemask(), v, 16);
  v += __shfl_xor_sync(__activemask(), v, 8);
  out[threadIdx.x] = v;
}
__global__ void wide(float* out, const float* in) {
  float v = in[threadIdx.x];
  v += __shfl_down_sync(__activemask(), v, 32);
  v += __shfl_down_sync(__activemask(), v, 16);
  if (threadIdx.x % warpSize == 0) out[threadIdx.x / warpSize] = v;
}
"""


def test_unrolled_reduction_beside_warpsize(tmp_path: Path) -> None:
    got = [line for line, rule in found(tmp_path, "unrolled.cu", UNROLLED) if rule.startswith("warp")]
    assert 3 in got  # 16, 8, 4, 2, 1 written out, leaders and slots by warpSize
    # correct variants: the same steps with nothing measured by warpSize (each half its own warp:
    # not said), and the input that breaks the rule: a reduction that starts at 32 covers 64 lanes
    assert not {12, 13} & set(got)
    assert 19 not in got  # (the 32 step makes it a 64-lane reduction, judged by the loop rules)


HEADER_USE = """#include "lanes.cuh"
__global__ void by_header(float* out, const float* in) {
  const int lane = threadIdx.x % WARP_SIZE;
  float v = in[threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(__activemask(), v, o);
  if (lane == 0) out[threadIdx.x / warpSize] = v;
}
__global__ void by_header_only(float* out, const float* in) {
  const int lane = threadIdx.x & (WARP_SIZE - 1);
  float v = in[threadIdx.x];
  for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_down_sync(__activemask(), v, o);
  if (lane == 0) out[threadIdx.x / WARP_SIZE] = v;
}
__global__ void by_block(float* out, const float* in) {
  const int blocks = (BLOCK + WARP_SIZE - 1) / WARP_SIZE;
  out[threadIdx.x] = in[threadIdx.x] * blocks * warpSize;
}
"""


def test_header_width_used_beside_warpsize(tmp_path: Path) -> None:
    got = found(tmp_path, "use.cu", HEADER_USE, lanes_cuh="#define WARP_SIZE 32\n#define BLOCK 256\n")
    assert (3, "warp-size-literal") in got
    # correct variant: a function whose warps are all WARP_SIZE wide (32-lane halves, consistent)
    assert not [rule for line, rule in got if 9 <= line <= 12 and rule == "warp-size-literal"]
    assert not [rule for line, rule in got if line == 15]  # no warp operation: a block count
    # the input that breaks it: the header defines 64, which is the wavefront's width: quiet
    wide = found(tmp_path, "use64.cu", HEADER_USE.replace("lanes.cuh", "lanes64.cuh"),
                 lanes64_cuh="#define WARP_SIZE 64\n#define BLOCK 256\n")
    assert (3, "warp-size-literal") not in wide


VOTES = """__global__ void vote32(int* out, const int* in) {
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  int pred = in[threadIdx.x] > 0;
  if (__any_sync(0xffffffff, pred)) {
    if (lane == 0) out[warp] = 1;
  }
  if (__all_sync(0xffffffff, pred) && lane == 0) out[warp + 64] = 1;
}
__global__ void vote_legacy(int* out, const int* in) {
  int lane = threadIdx.x & 0x1f;
  int pred = in[threadIdx.x] > 0;
  if (__any(pred) && lane == 0) out[threadIdx.x >> 5] = 1;
}
__global__ void vote_ok(int* out, const int* in) {
  int lane = threadIdx.x % warpSize;
  int pred = in[threadIdx.x] > 0;
  if (__any_sync(__activemask(), pred) && lane == 0) out[threadIdx.x / warpSize] = 1;
}
__global__ void vote_one_warp(int* out, const int* in) {
  int lane = threadIdx.x % 32;
  if (__any_sync(0xffffffff, in[lane] > 0) && lane == 0) out[blockIdx.x] = 1;
}
void run(int* out, const int* in) { vote_one_warp<<<4, 32>>>(out, in); }
"""


def test_vote_over_32_lane_logical_warps(tmp_path: Path) -> None:
    got = [line for line, rule in found(tmp_path, "votes.cu", VOTES) if rule == "warp-width-mixed"]
    assert {5, 8, 13} <= set(got)  # % 32 / / 32 warps, and & 0x1f / >> 5 with the legacy __any
    # correct variants: warps counted by warpSize (the vote is the warp's), and the input that breaks
    # the rule: a kernel launched with 32-thread blocks, which has no upper half to vote with
    assert 18 not in got and 22 not in got


def test_width_template_default_of_32(tmp_path: Path) -> None:
    text = WIDTH_TEMPLATE.replace("template <int LANES>", "template <int LANES = 32>").replace(
        "wsum<32>(in[threadIdx.x]);\n  if (threadIdx.x % warpSize",
        "wsum(in[threadIdx.x]);\n  if (threadIdx.x % warpSize")
    got = [line for line, rule in found(tmp_path, "dflt.cu", text) if rule == "warp-width-mixed"]
    assert 9 in got  # wsum(v): the default width, 32, beside warpSize
    assert 17 not in got  # wsum<WAVE>: given 64, the default does not apply
