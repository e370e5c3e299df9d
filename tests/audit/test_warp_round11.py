"""Issue 26, round 11 (classes generalised from all of corpus 8 and corpora 1-7's tune halves; own
programs, not their code). Each class: the program that shows it, a correct variant that stays
quiet, and the input that breaks the rule.

- (1) Warps counted by ``warpSize`` against per-warp layouts of 32 set elsewhere: ``w =
  threadIdx.x / warpSize`` scaled by a per-warp count equal to 32 (``w * ROWS_PER_WARP`` with
  ``ROWS_PER_WARP (32 / ITEMS)`` from a quoted header and ``ITEMS 1`` in the file: the unit's
  arithmetic is evaluated), and ``l = threadIdx.x % warpSize`` indexing rows of extent 32
  (``(*X)[ROWS_PER_WARP][20]``, ``__shared__ float s[4][32]``) are ``warp-width-mixed`` at their
  definitions; ``T[i / warpSize]`` into a ``__constant__`` table of per-warp regions that this
  unit's host fills (``cudaMemcpyToSymbol``) without asking the device's warp size is named at the
  index. Quiet: rows counted by 32 (``threadIdx.x % 32``), rows sized by ``warpSize``, a host that
  reads ``prop.warpSize``. Breaks on: a table filled in another translation unit (not seen: quiet,
  a miss), and a host that reads ``prop.warpSize`` for something else (taken as sizing the table:
  quiet, possibly a miss)."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths


def found(tmp_path: Path, name: str, text: str) -> list[tuple[int, str]]:
    (tmp_path / name).write_text(text)
    return sorted((f.line, f.rule) for f in audit_paths([tmp_path / name], jobs=1).findings
                  if f.rule != "warp-mask-32bit")


ROWS_H = """#pragma once
#define ROWS_PER_WARP (32 / ITEMS)
"""

ROWS = """#define ITEMS 1
#include "rows.h"
__global__ void core(unsigned *g, unsigned n)
{
    extern __shared__ unsigned char raw[];
    unsigned ((*X)[ROWS_PER_WARP][20]) = (unsigned (*)[ROWS_PER_WARP][20]) raw;
    int w    = threadIdx.x / WIDTH;
    int lane = threadIdx.x % WIDTH;
    int offset = blockIdx.x * 128 + w * ROWS_PER_WARP;
    X[w][lane][0] = g[offset + lane];
    g[offset + lane] = X[w][lane][1] + n;
}
"""


def test_warps_by_warpsize_against_rows_of_32(tmp_path: Path) -> None:
    (tmp_path / "rows.h").write_text(ROWS_H)
    got = found(tmp_path, "rows.cu", ROWS.replace("WIDTH", "warpSize"))
    assert (7, "warp-width-mixed") in got and (8, "warp-width-mixed") in got
    # counted by the width the rows were laid out for: consistent at 64 (each half its own warp)
    assert not [g for g in found(tmp_path, "rows32.cu", ROWS.replace("WIDTH", "32")) if g[1] == "warp-width-mixed"]


def test_rows_sized_by_warpsize_are_quiet(tmp_path: Path) -> None:
    (tmp_path / "rows.h").write_text("#pragma once\n#define ROWS_PER_WARP warpSize\n")
    assert not [g for g in found(tmp_path, "rows.cu", ROWS.replace("WIDTH", "warpSize")) if g[1] == "warp-width-mixed"]


def test_lane_into_a_shared_row_of_32(tmp_path: Path) -> None:
    src = """#define LANES (64 / 2)
__global__ void k(float *out)
{
    __shared__ float s[4][EXTENT];
    int warp = threadIdx.x / warpSize;
    int lane = threadIdx.x % warpSize;
    s[warp][lane] = out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[warp][31 - lane];
}
"""
    got = found(tmp_path, "s.cu", src.replace("EXTENT", "LANES"))
    assert (6, "warp-width-mixed") in got
    assert (5, "warp-width-mixed") not in got  # the warp index picks a row of 4: no 32 there
    # a literal 32 is shared-warp32's (named once, at the array)
    literal = found(tmp_path, "l.cu", src.replace("EXTENT", "32"))
    assert (4, "shared-warp32") in literal and (6, "warp-width-mixed") not in literal
    assert not [g for g in found(tmp_path, "w.cu", src.replace("EXTENT", "64")) if g[1] == "warp-width-mixed"]


TABLE = """#include <cuda_runtime.h>
__constant__ unsigned *c_V[4096];
void set_tables(int warps, unsigned **h_V)
{
    HOST_WIDTH
    cudaMemcpyToSymbol(c_V, h_V, warps * sizeof(unsigned *), 0, cudaMemcpyHostToDevice);
}
__global__ void core(unsigned *g)
{
    int offset = blockIdx.x * blockDim.x + threadIdx.x / warpSize * warpSize;
    unsigned *V = c_V[offset / warpSize];
    V[threadIdx.x % warpSize] = g[offset];
}
"""


def test_host_filled_per_warp_table_indexed_by_warpsize(tmp_path: Path) -> None:
    got = found(tmp_path, "t.cu", TABLE.replace("HOST_WIDTH", ""))
    assert (11, "warp-width-mixed") in got
    # the host asks the device's width: it can size one region per hardware warp
    quiet = TABLE.replace("HOST_WIDTH", "cudaDeviceProp p; cudaGetDeviceProperties(&p, 0); warps /= p.warpSize;")
    assert (11, "warp-width-mixed") not in found(tmp_path, "q.cu", quiet)


def test_table_rule_breaks_on_another_unit(tmp_path: Path) -> None:
    # the table filled in another file (an extern declaration here): the rule sees no host code
    # and stays quiet, a miss it accepts to keep a file's findings a function of its own unit
    extern = TABLE.replace("__constant__ unsigned *c_V[4096];", "extern __constant__ unsigned *c_V[4096];").replace(
        "    cudaMemcpyToSymbol(c_V, h_V, warps * sizeof(unsigned *), 0, cudaMemcpyHostToDevice);\n", "")
    assert (11, "warp-width-mixed") not in found(tmp_path, "e.cu", extern.replace("HOST_WIDTH", ""))
    # a host reading prop.warpSize for any reason silences it (possibly a miss)
    other = TABLE.replace("HOST_WIDTH", "cudaDeviceProp p; cudaGetDeviceProperties(&p, 0); "
                                        "int seen = p.warpSize; (void)seen;")
    assert (11, "warp-width-mixed") not in found(tmp_path, "o.cu", other)


# ---- (4) false classes and the host refusal ----------------------------------------------------

ANY_TWICE = """__device__ bool block_any(const int *v, int n, int key)
{
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    static __shared__ bool shared[32];
    bool hit = false;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        hit = hit || v[i] == key;
    hit = __any(hit);
    if (lane == 0) shared[warp] = hit;
    __syncthreads();
    hit = (threadIdx.x < blockDim.x / 32) ? shared[lane] : false;
    if (warp == 0) {
        SECOND
        if (threadIdx.x == 0) shared[0] = hit;
    }
    __syncthreads();
    return shared[0];
}
"""


def test_vote_ored_again_over_the_block_is_right_at_64(tmp_path: Path) -> None:
    """An OR of per-warp ORs is the block's OR whatever lanes the first stage took in."""
    got = found(tmp_path, "any.cu", ANY_TWICE.replace("SECOND", "hit = __any(hit);"))
    assert not [g for g in got if g[1] == "warp-width-mixed"]
    # the per-warp answers combined otherwise (a count of warps that saw it): the first vote
    # is read as one 32-lane warp's, wrong at 64
    counted = found(tmp_path, "cnt.cu", ANY_TWICE.replace("SECOND", "hit = __popc(__ballot(hit)) > 1;"))
    assert (9, "warp-width-mixed") in counted
    # breaks on: a vote of another kind in the second stage (AND of ORs) is not the rule's case: named
    mixed = found(tmp_path, "all.cu", ANY_TWICE.replace("SECOND", "hit = __all(hit);"))
    assert (9, "warp-width-mixed") in mixed
    # breaks on: the first stage's per-warp answer also used on its own (a count of the warps that
    # hit) before the block's OR: wrong at 64, but the rule sees the OR of ORs and stays quiet (a miss)
    per_warp = ANY_TWICE.replace("SECOND", "hit = __any(hit);").replace(
        "if (lane == 0) shared[warp] = hit;",
        "if (lane == 0) { shared[warp] = hit; if (hit) atomicAdd(&warps_hit, 1); }")
    assert (9, "warp-width-mixed") not in found(tmp_path, "pw.cu", per_warp + "__device__ int warps_hit;\n")


BALLOT_WALK = """__global__ void walk(const int *keys, int len, int *out)
{
    unsigned mask = 0;
    int cached = 0;
    for (int k = 0; k < len || mask;) {
        if (!mask) {
            int idx = k + (LANE);
            cached = idx < len ? keys[idx] : -1;
            mask = __ballot_sync(0xffffffff, cached != -1);
            k += 32;
            continue;
        }
        int first = __ffs(mask) - 1;
        mask ^= 1u << first;
        out[threadIdx.x] += __shfl_sync(0xffffffff, cached, first);
    }
}
"""


def test_ballot_of_values_both_halves_load_alike(tmp_path: Path) -> None:
    """idx = k + threadIdx.x % 32: lanes l and l + 32 vote alike, so 32 bits hold the whole answer."""
    got = found(tmp_path, "w.cu", BALLOT_WALK.replace("LANE", "threadIdx.x % 32"))
    assert not [g for g in got if g[1] == "ballot-32bit"]
    # each lane its own key: lanes 32-63's votes are lost in 32 bits
    own = found(tmp_path, "o.cu", BALLOT_WALK.replace("LANE", "threadIdx.x"))
    assert (9, "ballot-32bit") in own and (13, "ballot-32bit") in own
    # breaks on: a second block dimension (rows y and y + 1 may share a wavefront): judged as before
    rows = found(tmp_path, "y.cu", BALLOT_WALK.replace("LANE", "threadIdx.x % 32").replace(
        "out[threadIdx.x]", "out[threadIdx.y * 32 + threadIdx.x]"))
    assert (9, "ballot-32bit") in rows


REFUSAL = """#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
int pick_device()
{
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    CHECK
    return 0;
}
"""


def test_host_refusing_a_64_lane_device(tmp_path: Path) -> None:
    one_line = found(tmp_path, "a.cpp", REFUSAL.replace("CHECK", 'if (prop.warpSize != 32) LOGERROR("warp size");'))
    assert (8, "warp-size-literal") in one_line
    block = found(tmp_path, "b.cpp", REFUSAL.replace(
        "CHECK", 'if (32 != prop.warpSize) {\n        fprintf(stderr, "no");\n        exit(1);\n    }'))
    assert (8, "warp-size-literal") in block
    # accepting 64 too, or only reporting the width: quiet
    both = REFUSAL.replace("CHECK", "if (prop.warpSize != 32 && prop.warpSize != 64) exit(1);")
    assert not [g for g in found(tmp_path, "c.cpp", both) if g[1] == "warp-size-literal"]
    note = REFUSAL.replace("CHECK", 'if (prop.warpSize != 32) printf("wide warps\\\\n");')
    assert not [g for g in found(tmp_path, "d.cpp", note) if g[1] == "warp-size-literal"]


# ---- (2) finding placement ---------------------------------------------------------------------

WRAPPER = """static __device__ uint4 shfl4(const uint4 v, int src) {
    return make_uint4(__shfl((int)v.x, src), __shfl((int)v.y, src),
                      __shfl((int)v.z, src), __shfl((int)v.w, src));
}
__global__ void rotate(uint4 *io)
{
    uint4 b = io[blockIdx.x * blockDim.x + threadIdx.x];
    b = shfl4(b, LANE);
    io[blockIdx.x * blockDim.x + threadIdx.x] = b;
}
"""


def test_forwarding_wrapper_is_named_at_its_calls(tmp_path: Path) -> None:
    """The wrapper only forwards the lane: the hazard is the 0-31 lane a caller passes."""
    got = [g for g in found(tmp_path, "w.cu", WRAPPER.replace("LANE", "(threadIdx.x + 4) % 32"))
           if g[1] == "shfl-fixed-lane"]
    assert got == [(8, "shfl-fixed-lane")]
    # a caller passing its own half's lane (keeps bit 5): nothing to name, at the call or inside
    quiet = found(tmp_path, "q.cu", WRAPPER.replace("LANE", "(threadIdx.x & ~31) + ((threadIdx.x + 4) & 31)"))
    assert not [g for g in quiet if g[1] == "shfl-fixed-lane"]
    # breaks on: a wrapper with no caller in its unit (a header audited alone) keeps its body
    # findings only where round 10's rules name it; a wrapper body of more than one statement is
    # not a forwarding wrapper and stays named where its lanes are used (salsa cores)
    busy = WRAPPER.replace("    return make_uint4(", "    int s2 = src;\n    return make_uint4(").replace(
        "src)", "s2)")
    assert [g for g in found(tmp_path, "b.cu", busy.replace("LANE", "(threadIdx.x + 4) % 32"))
            if g[1] == "shfl-fixed-lane"]


HW_LANE = """__device__ __forceinline__ int getLaneId() {
  int laneId;
  asm("mov.u32 %0, %%laneid;" : "=r"(laneId));
  return laneId;
}
#include "consts.h"
__global__ void stats(const int *in, int *out)
{
  int tid = threadIdx.x;
  int warpId = tid / kWarpSize;
  int laneId = LANE;
  __shared__ int smem[32];
  int v = in[blockIdx.x * blockDim.x + tid];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  if (laneId == 0) smem[warpId] = v;
  __syncthreads();
  if (tid == 0) out[blockIdx.x] = smem[0] + smem[1];
}
"""


CONSTS = "#pragma once\nconstexpr int kWarpSize = 32;\n"


def test_hardware_lane_is_named_on_its_own_line(tmp_path: Path) -> None:
    (tmp_path / "consts.h").write_text(CONSTS)
    got = found(tmp_path, "h.cu", HW_LANE.replace("LANE", "getLaneId()"))
    assert (11, "warp-width-mixed") in got
    # the lane of the function's own 32-lane warps: consistent
    own = found(tmp_path, "o.cu", HW_LANE.replace("LANE", "tid % kWarpSize"))
    assert (11, "warp-width-mixed") not in own
    # breaks on: warps counted by warpSize beside the hardware lane: the two agree at 64 (quiet),
    # and a lane function defined in another unit (not seen: quiet, a miss)
    wide = found(tmp_path, "w.cu", HW_LANE.replace("LANE", "getLaneId()").replace("tid / kWarpSize", "tid / warpSize"))
    assert (11, "warp-width-mixed") not in wide
    elsewhere = HW_LANE.replace("LANE", "getLaneId()").split("#include", 1)[1]
    assert (7, "warp-width-mixed") not in found(tmp_path, "e.cu", "int getLaneId();\n#include" + elsewhere)


# ---- (3) wavefront-wide ballots over two 32-lane coders; fixed-lane legacy shuffles --------------

CODERS = """__device__ __forceinline__ unsigned getLaneMaskLt() {
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}
#include "consts.h"
__device__ unsigned encodeOne(unsigned &state, unsigned sym, unsigned *out)
{
  bool write = state > sym;
  KEEP vote = __ballot_sync(0xffffffff, write);
  auto prefix = __popc(vote & getLaneMaskLt());
  if (write) out[prefix] = state;
  return __popc(vote);
}
__global__ void encodeBlocks(const unsigned *in, unsigned *out)
{
  int tid = threadIdx.x;
  int block = (blockIdx.x * blockDim.x + tid) / kWarpSize;
  unsigned state = in[tid % kWarpSize];
  state += __shfl_xor_sync(0xffffffff, state, 16);
  out[block] = encodeOne(state, in[block], out + block * kWarpSize);
}
"""


def test_whole_ballot_ranked_inside_32_lane_coders(tmp_path: Path) -> None:
    """A 64-bit ballot spans both 32-lane coders of a wavefront: the rank taken from it mixes them."""
    (tmp_path / "consts.h").write_text(CONSTS)
    got = found(tmp_path, "c.cu", CODERS.replace("KEEP", "auto"))
    assert (10, "warp-width-mixed") in got
    # kept in 32 bits the same line is ballot-32bit's (named once, not twice)
    narrow = found(tmp_path, "n.cu", CODERS.replace("KEEP", "unsigned"))
    assert (10, "warp-width-mixed") not in narrow and (10, "ballot-32bit") in narrow
    # coders counted by warpSize: one coder per wavefront, the rank is right
    wide = found(tmp_path, "w.cu", CODERS.replace("KEEP", "auto").replace("/ kWarpSize", "/ warpSize").replace(
        "tid % kWarpSize", "tid % warpSize").replace("block * kWarpSize", "block * warpSize"))
    assert (10, "warp-width-mixed") not in wide


LEGACY = """__global__ void sols(unsigned *count, unsigned *out)
{
  unsigned lane = threadIdx.x % 32;
  unsigned soli;
  if (lane == 0) soli = atomicAdd(count, 1);
OPEN
  soli = __shfl(soli, 0);
ELSE
  __syncthreads();
  soli = *count;
CLOSE
  out[soli * 32 + lane] = lane;
}
"""


def test_fixed_lane_legacy_shuffle_and_cuda_arch_branches(tmp_path: Path) -> None:
    """Decided: code under ``#if __CUDA_ARCH__ >= 300`` is not ROCm's (hipcc defines no
    __CUDA_ARCH__ and hipify keeps both branches, so ROCm compiles the ``#else``): quiet there;
    the same shuffle unconditional (nheqminer) is named."""
    plain = LEGACY.replace("OPEN\n", "").replace("ELSE\n  __syncthreads();\n  soli = *count;\nCLOSE\n", "")
    assert (6, "shfl-fixed-lane") in found(tmp_path, "p.cu", plain)
    guarded = LEGACY.replace("OPEN", "#if __CUDA_ARCH__ >= 300").replace("ELSE", "#else").replace("CLOSE", "#endif")
    assert not [g for g in found(tmp_path, "g.cu", guarded) if g[1] == "shfl-fixed-lane"]
    # breaks on: a branch ROCm does compile (`#if defined(__HIP_PLATFORM_AMD__) || __CUDA_ARCH__ >= 300`)
    hip = guarded.replace("#if __CUDA_ARCH__ >= 300", "#if defined(__HIP_PLATFORM_AMD__) || __CUDA_ARCH__ >= 300")
    assert (7, "shfl-fixed-lane") in found(tmp_path, "h.cu", hip)
