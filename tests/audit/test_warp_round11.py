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
