"""Issue 26, round 7 (classes seen in corpus 6's TUNE half; own programs, not its code). Each class:
the program that shows it, a correct variant that stays quiet, and the input that breaks the rule.

- (d) A ballot handed on in 32 bits: returned from a function declared to return ``unsigned`` /
  ``uint32_t`` / ``int``, or passed straight to a function of the file whose only parameter is a
  32-bit integer (a user ``find_msb(unsigned)``). Either conversion drops lanes 32-63. A function
  returning 64 bits, a test of the ballot (``return __ballot(p) != 0``), a template or 64-bit
  overload of the callee, and a file whose every launch runs blocks of at most 32 threads (no lane
  32-63 exists) stay quiet.
- (a) A shuffle through a wrapper: a function of the unit (the file or a quoted header) or a
  function-like macro that forwards a parameter as the source lane of a shuffle with no width
  (``shfl(mask, v, lane)``, ``#define SHFL(x, l) __shfl_sync(m, x, l)``) is judged at each call like
  the intrinsic; a wrapper that passes a width, or a macro around ``__shfl_xor`` used in a
  reduction whose halves hold the same value, stays quiet.
- (b) A width-less shuffle whose source lane is computed below 32 (``W - 1``, ``lane % 32``,
  ``low + (W >> i)`` with W a constant equal to 32), there or through the function's assignments, is
  ``shfl-fixed-lane`` even where the function shows no other 32-lane code (a binary search by
  shuffle); a warp base (``tid / 32 * 32 + k``, ``lane & ~31``) is not below 32.
- (c, d) A value that is not 64-bit shifted by the hardware lane (``mask << (lane_id() & ~(N - 1))``,
  ``pred << __lane_id()``): ``__lane_id()`` or a lane helper of the unit whose body reads PTX
  ``%laneid``, ``__lane_id()`` or ``% warpSize`` reaches 63 on a 64-lane wavefront, past a 32-bit
  value's width. A 64-bit value (``1ull``, a ``uint64_t``) and a helper returning ``tid & 31``
  (a logical lane) stay quiet; a helper defined out of the unit is not judged.
- (e) A lane or warp index computed with a literal 32 (``tid % 32``, ``tid / 32``) and passed to a
  function of the unit (a quoted header's too) that measures the warp by warpSize (``out[warp *
  warpSize + lane]``) is a warning even when neither function has a warp operation: the two widths
  disagree at 64. Indices computed by warpSize, or a callee that never uses warpSize, stay quiet;
  the findings of each file depend only on it and the quoted headers it includes."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths


def found(tmp_path: Path, name: str, text: str) -> list[tuple[int, str]]:
    (tmp_path / name).write_text(text)
    return sorted((f.line, f.rule) for f in audit_paths([tmp_path / name], jobs=1).findings)


HANDED_ON = """__device__ unsigned find_msb(unsigned word) { return 31 - __clz(word); }
__device__ unsigned wide_msb(unsigned long long w) { return 63 - __clzll(w); }
template <typename T> __device__ unsigned any_msb(T w) { return 8 * sizeof(T) - 1 - __clzll(w); }
__device__ unsigned group_ballot(bool p) {
  return __ballot_sync(__activemask(), p);
}
__device__ unsigned long long wide_ballot(bool p) {
  return __ballot_sync(__activemask(), p);
}
__device__ bool any_set(bool p) {
  return __ballot_sync(__activemask(), p) != 0;
}
__device__ unsigned count_set(bool p) {
  return __popcll(__ballot_sync(__activemask(), p));
}
__global__ void elect(int* out) {
  bool p = out[threadIdx.x] > 0;
  unsigned leader = find_msb(__ballot_sync(__activemask(), p));
  unsigned l2 = wide_msb(__ballot_sync(__activemask(), p));
  unsigned l3 = any_msb(__ballot_sync(__activemask(), p));
  out[threadIdx.x] = leader + l2 + l3 + group_ballot(p) + wide_ballot(p) + any_set(p) + count_set(p);
}
"""


def ballots(rules: list[tuple[int, str]]) -> set[int]:
    return {line for line, rule in rules if rule == "ballot-32bit"}


def test_a_ballot_returned_or_passed_in_32_bits_is_named(tmp_path: Path) -> None:
    assert ballots(found(tmp_path, "elect.cu", HANDED_ON)) == {5, 18}


def test_a_file_of_one_warp_blocks_keeps_them_quiet(tmp_path: Path) -> None:
    # every launch runs 32 threads: the ballot has no bit above 31 to lose
    launched = HANDED_ON + "void run(int* d) { elect<<<4, 32>>>(d); }\n"
    assert ballots(found(tmp_path, "elect32.cu", launched)) == set()
    wide = HANDED_ON + "void run(int* d) { elect<<<4, 256>>>(d); }\n"
    # 21: group_ballot's call, a 32-bit ballot wrapper named at its call (round 12, class 2)
    assert ballots(found(tmp_path, "elect256.cu", wide)) == {5, 18, 21}


# the input that breaks it: the callee declared only in a header the file does not include (or in
# an angle-bracket include) is not seen, so the 32-bit parameter goes unnamed; likewise a ballot
# kept in a 64-bit variable first and then passed (`find_msb(b)`)
UNSEEN = HANDED_ON.replace("__device__ unsigned find_msb(unsigned word) { return 31 - __clz(word); }\n",
                           '#include <bits.cuh>\n')


def test_a_callee_declared_out_of_sight_is_the_known_miss(tmp_path: Path) -> None:
    assert ballots(found(tmp_path, "unseen.cu", UNSEEN)) == {5}


WRAPPED = """#define SHFL(x, l) __shfl_sync(0xffffffffu, (x), (l))
#define SHFL_W(x, l) __shfl_sync(0xffffffffu, (x), (l), 32)
__device__ float shfl(unsigned mask, float v, int lane) {
  return __shfl_sync(mask, v, lane);
}
__device__ float shfl32(unsigned mask, float v, int lane) {
  return __shfl_sync(mask, v, lane, 32);
}
__global__ void rotate(const float* in, float* out) {
  int lane = threadIdx.x % 32;
  float v = in[threadIdx.x];
  float a = SHFL(v, (lane + 1) % 32);
  float b = shfl(0xffffffffu, v, (lane + 3) % 32);
  float c = SHFL_W(v, (lane + 1) % 32);
  float d = shfl32(0xffffffffu, v, (lane + 3) % 32);
  out[threadIdx.x] = a + b + c + d;
}
"""


def fixed(tmp_path: Path, name: str, text: str) -> set[int]:
    return {line for line, rule in found(tmp_path, name, text) if rule == "shfl-fixed-lane"}


def test_a_shuffle_through_a_function_or_macro_wrapper_is_named(tmp_path: Path) -> None:
    # the calls (12, 13); the wrappers with a width stay quiet. The helper's own shuffle (4) was
    # named too until round 11: a forwarding wrapper (one return of the shuffle, its lane a
    # parameter) called in the file is named at its calls only (test_warp_round11.py, class 2)
    assert fixed(tmp_path, "wrapped.cu", WRAPPED) == {12, 13}


def test_a_wrapper_in_a_quoted_header_is_followed(tmp_path: Path) -> None:
    lines = WRAPPED.splitlines(keepends=True)
    (tmp_path / "shfl.cuh").write_text("".join(lines[:8]))
    assert fixed(tmp_path, "user.cu", '#include "shfl.cuh"\n' + "".join(lines[8:])) == {5, 6}


XOR_MACRO = """#define SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, (v), (m))
#define SHFL(v, l) __shfl_sync(0xffffffffu, (v), (l))
__device__ float block_sum(float* red, float sum) {
  int warp = threadIdx.x >> 5;
  int lane = threadIdx.x & 0x1f;
  for (int m = 16; m > 0; m >>= 1) sum += SHFL_XOR(sum, m);
  if (lane == 0) red[warp] = sum;
  __syncthreads();
  sum = lane < 4 ? red[lane] : 0.f;
  for (int m = 2; m > 0; m >>= 1) sum += SHFL_XOR(sum, m);
  return SHFL(sum, 0);
}
"""


def test_a_broadcast_after_a_macro_xor_reduction_of_shared_entries_is_quiet(tmp_path: Path) -> None:
    # both halves read red[0..3] and reduce them alike: lane 0 and lane 32 hold the same sum
    assert fixed(tmp_path, "block_sum.cu", XOR_MACRO) == set()


SEARCH = """const unsigned WARP = 32;
__device__ int search(int reg, int key) {
  int low = 0;
  for (int i = 1; i <= 5; i++) {
    int pos = low + (WARP >> i);
    if (key >= __shfl_sync(0xffffffffu, reg, pos)) low = pos;
  }
  return low;
}
__device__ int last(int v) { return __shfl_sync(0xffffffffu, v, WARP - 1); }
__device__ int own_half(int v, int k) {
  int base = threadIdx.x / WARP * WARP;
  return __shfl_sync(0xffffffffu, v, base + k) + __shfl_sync(0xffffffffu, v, (threadIdx.x & ~31) + k);
}
__device__ int searched(int reg, int pos) { return __shfl_sync(0xffffffffu, reg, pos, WARP); }
"""


def test_a_source_lane_computed_below_32_is_named(tmp_path: Path) -> None:
    # the search's probes and the last lane of a 32-lane warp; a warp base and a width stay quiet
    assert fixed(tmp_path, "search.cu", SEARCH) == {6, 10}


# the input that breaks it: the width constant defined only in an angle-bracket include (nvbio's
# `WARP_SIZE = 1u << cuda::Arch::LOG_WARP_SIZE`) is not in the unit, so `WARP_SIZE - 1` is not
# known to be below 32 and the shuffle goes unnamed
UNKNOWN_WIDTH = SEARCH.replace("const unsigned WARP = 32;", "#include <arch.h>")


def test_a_width_defined_out_of_sight_is_the_known_miss(tmp_path: Path) -> None:
    assert fixed(tmp_path, "unknown.cu", UNKNOWN_WIDTH) == set()


LANE_SHIFTS = """__device__ unsigned lane_id() {
  unsigned ret;
  asm("mov.u32 %0, %laneid;" : "=r"(ret));
  return ret;
}
__device__ int logical_lane() { return threadIdx.x & 31; }
__device__ unsigned group_mask(int n) {
  const unsigned MASK = 0xFFFFFFFFu >> (32 - n);
  return MASK << (lane_id() & ~(n - 1));
}
__device__ unsigned bit(bool pred) { return pred << lane_id(); }
__device__ unsigned long long wide(bool pred) {
  unsigned long long one = 1;
  return (1ull << lane_id()) | (one << __lane_id());
}
__device__ unsigned logical_bit(bool pred) { return pred << logical_lane(); }
"""


def shifts(tmp_path: Path, name: str, text: str) -> set[int]:
    return {line for line, rule in found(tmp_path, name, text) if rule == "warp-size-literal"}


def test_a_32_bit_value_shifted_by_the_hardware_lane_is_named(tmp_path: Path) -> None:
    assert shifts(tmp_path, "lanes.cu", LANE_SHIFTS) == {9, 11}


def test_a_hardware_lane_helper_in_a_quoted_header_is_followed(tmp_path: Path) -> None:
    helper, rest = LANE_SHIFTS.split("__device__ int logical_lane")
    (tmp_path / "lane.cuh").write_text(helper)
    assert shifts(tmp_path, "user.cu", '#include "lane.cuh"\n__device__ int logical_lane' + rest) == {5, 7}


# the input that breaks it: the helper behind an angle-bracket include (or in no header the file
# includes) is not seen, so its shifts go unnamed even when it reads %laneid
def test_a_lane_helper_out_of_sight_is_the_known_miss(tmp_path: Path) -> None:
    helper, rest = LANE_SHIFTS.split("__device__ int logical_lane")
    (tmp_path / "lane.cuh").write_text(helper)
    assert shifts(tmp_path, "angle.cu", '#include <lane.cuh>\n__device__ int logical_lane' + rest) == set()


STORE = """__device__ void store_lane(float* out, int warp, int lane, float v) {
  out[warp * warpSize + lane] = v;
}
__device__ void store_row(float* out, int warp, int lane, float v) {
  out[warp * 32 + lane] = v;
}
"""
CALLER = """#include "store.cuh"
__global__ void k(const float* in, float* out) {
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  store_lane(out, warp, lane, in[threadIdx.x]);
}
"""


def literals(tmp_path: Path, name: str, text: str) -> set[int]:
    (tmp_path / "store.cuh").write_text(STORE)
    return shifts(tmp_path, name, text)


def test_a_32_lane_index_passed_to_a_warpsize_callee_in_a_header_is_named(tmp_path: Path) -> None:
    assert literals(tmp_path, "caller.cu", CALLER) == {3, 4}


def test_warpsize_indices_or_a_32_lane_callee_stay_quiet(tmp_path: Path) -> None:
    by_warpsize = CALLER.replace("% 32", "% warpSize").replace("/ 32", "/ warpSize")
    assert literals(tmp_path, "ws.cu", by_warpsize) == set()
    assert literals(tmp_path, "rows.cu", CALLER.replace("store_lane(", "store_row(")) == set()


# the input that breaks it: the callee behind an angle-bracket include is out of the unit, so the
# caller's `% 32` looks like data layout and goes unnamed (the TU-only rule holds: the finding
# depends only on the file and its quoted headers)
def test_a_callee_out_of_the_unit_is_the_known_miss(tmp_path: Path) -> None:
    assert literals(tmp_path, "angle.cu", CALLER.replace('"store.cuh"', "<store.cuh>")) == set()
