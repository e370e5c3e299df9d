"""Issue 26, round 10 (classes generalised from corpus 8's TUNE half; own programs, not its code).
Each class: the program that shows it, a correct variant that stays quiet, and the input that
breaks the rule.

- (1) A width-less shuffle whose source lane is the thread index folded below 32 by a mask
  (``threadIdx.x & 0x1c``, ``(threadIdx.x & 0x1c) + (((threadIdx.x & 3) + 1) & 3)``): lanes 32-63
  compute the same source lanes as lanes 0-31, so on a 64-lane wavefront they read the lower half.
  Round 8's "absolute lane" exemption (``threadIdx.x ^ 1``: the same lane at 64) took any value
  computed from the thread index; a value whose every thread term is masked below 32 is a 32-lane
  logical lane. Followed through an object-like alias (``#define __shfl2 __shfl``), a function that
  forwards its parameter to such an alias (``shfl4(bx, lane)``), and a chain of callers passing
  the lane as a parameter (kernel -> ``step(b, x1)`` -> ``rotate(b, x1)``); a ``{`` on a ``#define``
  line before the function no longer names the function after the macro. Quiet: ``threadIdx.x &
  0xfc`` (keeps bit 5: the same lane at 64). Breaks on: a mask below 32 whose sum with a literal
  reaches past 31 is still named (``(tid & 0x1c) + 4``; at 32 lanes CUDA wraps it, at 64 it reads
  lane 32 of the lower wavefront's half, also wrong), and a lane masked in another function and
  passed through a struct or an array is not followed (quiet).
- (2) Blocks of one warp read from the kernel itself: a ``__syncthreads()`` inside ``if (warp > 0)
  { ... }`` with ``warp = idx >> 5`` (``idx`` from ``threadIdx.x``) is right on CUDA only where the
  warp index is the same for the whole block (CUDA requires a barrier's condition to be uniform over
  the block), so every block is one warp of at most 32 threads and a width-less shuffle from lane 31
  reads the block's own lanes at 64 (cuSZp, whose ``tblock_size = 32`` is in a header outside the
  unit). Quiet there; named where the barrier is outside the warp test. Breaks on: multi-warp code
  that puts a barrier under a warp test anyway (undefined on CUDA, and taken here as one-warp: its
  fixed-lane shuffles go quiet), and a second block dimension (not judged, as for asserts).
- (4) A ballot stored into an element of a 32-bit array (``__shared__ uint32_t chunk[32][33]``,
  ``chunk[threadIdx.y][i] = __ballot_sync(...)``, FZ-GPU's 32 x 32 bit shuffle) is ``ballot-32bit``:
  a 64-lane wavefront holds rows y and y + 1 and the store keeps lanes 0-31 only. Quiet: a 64-bit
  array. Breaks on: an array declared in another translation unit (``extern``; not seen) or through a
  pointer to 32-bit words (``uint32_t *p; p[i] = __ballot(...)``: the pointer's element type is not
  read, a miss).
- (4b) ``unsigned mask = __activemask()`` (or a ballot) inside ``if (threadIdx.x < 32) { ... }`` in a
  file with one block dimension: only lanes 0-31 run there, so 32 bits hold the whole mask (ParaFROST's
  warp reduction). Named still: outside the test, under ``threadIdx.x < 64``. Breaks on: a file using
  ``threadIdx.y`` (a wavefront may hold two rows below x = 32: judged as before, possibly a false
  positive), and a guard spelled otherwise (``if (lane_of_block < 32)``, ``if (warp == 0)``: named).
- (3) Inline assembly that is not PTX: the name a ``#define asm(x)`` IntelliSense stub defines (its
  own line; the file's real ``asm`` uses stay judged, the stub being under ``#ifdef
  __INTELLISENSE__``), and an ``asm`` whose template holds no instruction, only whitespace and
  comments (``asm("// EXECUTION BEGIN")``, ``asm volatile("" ::: "memory")``): clang-22 assembles
  both for gfx942 (checked here, ``--cuda-device-only -c``; ``mov.u32 %0, %%laneid`` fails there).
  Breaks on: a template built by a macro or a raw string (not read: still an error), and a comment
  that a later PTX line follows in the same template (still an error, rightly)."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths


def found(tmp_path: Path, name: str, text: str) -> list[tuple[int, str]]:
    (tmp_path / name).write_text(text)
    return sorted((f.line, f.rule) for f in audit_paths([tmp_path / name], jobs=1).findings
                  if f.rule != "warp-mask-32bit")


QUAD = """#if CUDA_VERSION >= 9000
#define __shfl2(v, l) __shfl_sync(0xFFFFFFFFu, v, l)
#else
#define __shfl2 __shfl
#endif
#define MIX(d, a, n) { unsigned t = a + d; d ^= (t << n) | (t >> (32 - n)); }
static __device__ uint4 shfl4(const uint4 bx, int target) {
  return make_uint4(__shfl2((int)bx.x, target), __shfl2((int)bx.y, target),
                    __shfl2((int)bx.z, target), __shfl2((int)bx.w, target));
}
__device__ void rotate(uint4 &b, const int x1, const int x2) {
  MIX(b.x, b.y, 7);
  b.y = __shfl2((int)b.y, x1);
  b.z = __shfl2((int)b.z, x2);
}
__device__ void step(uint4 &b, const int x1, const int x2) {
  rotate(b, x1, x2);
}
__global__ void quad(uint4 *out, int n) {
  uint4 b = out[threadIdx.x];
  int x1 = (threadIdx.x & 0x1c) + (((threadIdx.x & 0x03) + 1) & 0x3);
  int x2 = (threadIdx.x & 0x1c) + (((threadIdx.x & 0x03) + 2) & 0x3);
  step(b, x1, x2);
  int j = __shfl2((int)b.x, (threadIdx.x & 0x1c)) & (n - 1);
  b = shfl4(b, (threadIdx.x + 28) & 31);
  out[j] = b;
}
"""

ABSOLUTE = """#define __shfl2 __shfl
__device__ void rotate_abs(uint4 &b) {
  int y1 = (threadIdx.x & 0xfc) + (((threadIdx.x & 3) + 1) & 3);
  b.w = __shfl2((int)b.w, y1);
}
__global__ void quad_abs(uint4 *out, int n) {
  uint4 b = out[threadIdx.x];
  rotate_abs(b);
  int k = __shfl2((int)b.x, (threadIdx.x & 0xfc)) & (n - 1);
  int m = __shfl((int)b.y, threadIdx.x ^ 1);
  out[k + m] = b;
}
"""


def test_masked_below_32_lanes_through_alias_wrapper_and_callers(tmp_path: Path) -> None:
    got = found(tmp_path, "quad.cu", QUAD)
    fixed = {line for line, rule in got if rule == "shfl-fixed-lane"}
    # the shuffles of the quad rotation (through two callers), the direct one, the wrapper's call
    assert {13, 14, 24, 25} <= fixed, got
    assert 17 in fixed  # step() hands the 0-31 lane to rotate(), which shuffles without a width
    assert not any(rule == "warp32-logical" for _, rule in got), got


def test_lane_keeping_bit_5_is_the_same_lane_at_64(tmp_path: Path) -> None:
    assert found(tmp_path, "abs.cu", ABSOLUTE) == []


def test_rule_breaks_past_31_and_stops_at_data(tmp_path: Path) -> None:
    text = """#define __shfl2 __shfl
struct Lanes { int x1; };
__device__ int far(int v, Lanes l) { return __shfl2(v, l.x1); }
__global__ void k(int *out) {
  int a = __shfl2(out[threadIdx.x], (threadIdx.x & 0x1c) + 4);
  Lanes l = {(int)(threadIdx.x & 0x1c)};
  out[threadIdx.x] = a + far(a, l);
}
"""
    fixed = {line for line, rule in found(tmp_path, "edge.cu", text) if rule == "shfl-fixed-lane"}
    assert 5 in fixed  # (tid & 0x1c) + 4 drops bit 5 too: named, though lane 32 is reached
    assert 3 not in fixed  # the member of a struct is not followed (documented miss)


ASM = """#ifdef __INTELLISENSE__
#define asm(x)
#define __asm__(x, y)
#endif
__device__ unsigned lane() {
  unsigned r;
  asm("mov.u32 %0, %%laneid;" : "=r"(r));
  asm("// EXECUTION BEGIN");
  asm volatile("" ::: "memory");
  asm volatile("/* marker */\\n\\t"
               "  ");
  asm("// note\\n\\tmov.u32 %0, 1;" : "=r"(r));
  #define TEMPLATE "// looks empty"
  asm(TEMPLATE);
  return r;
}
"""


def test_asm_stub_and_instruction_free_templates_are_not_ptx(tmp_path: Path) -> None:
    got = [(line, rule) for line, rule in found(tmp_path, "asm.cu", ASM) if rule == "inline-ptx"]
    # the laneid read, the comment followed by an instruction, the macro-built template
    assert got == [(7, "inline-ptx"), (12, "inline-ptx"), (14, "inline-ptx")], got


SCAN = """__global__ void scan_one_warp(int *cnt, int *off) {
  __shared__ int excl;
  const int tid = threadIdx.x;
  const int idx = blockIdx.x * blockDim.x + tid;
  const int lane = idx & 0x1f;
  const int warp = idx >> 5;
  int v = cnt[idx];
  for (int i = 1; i < 32; i <<= 1) {
    int t = __shfl_up_sync(0xffffffff, v, i);
    if (lane >= i) v += t;
  }
  if (warp > 0) {
    if (!lane) excl = off[warp - 1];
    __syncthreads();
  }
  off[idx] = excl + __shfl_sync(0xffffffff, v, 31);
}
__global__ void scan_many(int *cnt, int *off) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = idx & 0x1f;
  const int warp = idx >> 5;
  int v = cnt[idx];
  for (int i = 1; i < 32; i <<= 1) {
    int t = __shfl_up_sync(0xffffffff, v, i);
    if (lane >= i) v += t;
  }
  if (warp > 0) off[warp] = v;
  __syncthreads();
  off[idx] = __shfl_sync(0xffffffff, v, 31);
}
"""


def test_barrier_under_a_warp_test_means_one_warp_blocks(tmp_path: Path) -> None:
    fixed = {line for line, rule in found(tmp_path, "scan.cu", SCAN) if rule == "shfl-fixed-lane"}
    assert fixed == {29}, fixed  # scan_many's lane-31 broadcast; scan_one_warp's (16) is quiet
    two_d = SCAN.replace("const int tid = threadIdx.x;", "const int tid = threadIdx.x + threadIdx.y;")
    fixed = {line for line, rule in found(tmp_path, "scan2.cu", two_d) if rule == "shfl-fixed-lane"}
    assert fixed == {16, 29}, fixed  # a second block dimension: not judged one-warp


BITS = """__global__ void bitshuffle(const unsigned *in, unsigned *out, unsigned long long *wide_out) {
  __shared__ uint32_t chunk[32][33];
  __shared__ uint32_t flags[8];
  __shared__ unsigned long long wide[32][33];
  unsigned v = in[threadIdx.y * 32 + threadIdx.x];
  for (int i = 0; i < 32; i++) {
    chunk[threadIdx.y][i] = __ballot_sync(0xFFFFFFFFU, v & (1U << i));
    wide[threadIdx.y][i] = __ballot_sync(0xFFFFFFFFU, v & (1U << i));
  }
  if (threadIdx.y < 8) flags[threadIdx.y] = __ballot_sync(0xFFFFFFFFU, v);
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = chunk[threadIdx.y][threadIdx.x] + flags[threadIdx.y % 8];
  wide_out[threadIdx.x] = wide[threadIdx.y][threadIdx.x];
}
"""


def test_ballot_into_a_32bit_array_element(tmp_path: Path) -> None:
    got = [line for line, rule in found(tmp_path, "bits.cu", BITS) if rule == "ballot-32bit"]
    assert got == [7, 10], got  # the uint32_t rows and flags; the 64-bit array (8) stays quiet


ACTIVE = """__device__ void reduce(volatile int *smem, int &val) {
  if (threadIdx.x < 32) {
    val += smem[threadIdx.x + 32];
    unsigned mask = __activemask();
    val += __shfl_down_sync(mask, val, 16);
  }
  unsigned all = __activemask();
  if (threadIdx.x < 64) {
    unsigned wide = __ballot_sync(0xffffffff, val > 0);
    smem[threadIdx.x] = wide + all;
  }
}
"""


def test_mask_of_the_lower_32_lanes_fits_32_bits(tmp_path: Path) -> None:
    got = [line for line, rule in found(tmp_path, "act.cu", ACTIVE) if rule == "ballot-32bit"]
    assert got == [7, 9], got  # inside threadIdx.x < 32 (4) quiet; outside it and under < 64 named
    two_d = ACTIVE.replace("smem[threadIdx.x] = wide + all;", "smem[threadIdx.y] = wide + all;")
    got = [line for line, rule in found(tmp_path, "act2.cu", two_d) if rule == "ballot-32bit"]
    # a second dimension: a wavefront holds rows whose x is below 32; the copy at 4 is only the mask
    # of the shuffle at 5, which warp-mask-32bit names (round 12: no ballot-32bit duplicate)
    assert got == [7, 9], got
    (tmp_path / "act3.cu").write_text(two_d)
    assert 5 in [f.line for f in audit_paths([tmp_path / "act3.cu"], jobs=1).findings if f.rule == "warp-mask-32bit"]
