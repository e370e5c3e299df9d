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
