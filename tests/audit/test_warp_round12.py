"""Issue 26, round 12 (classes generalised from corpus 9's tune half; own programs, not its code).
Each class: the program that shows it, a correct variant that stays quiet, and the input that
breaks the rule.

- (1) The hardware lane beside 32-lane warps through a project's helper header: ``lane_id()``
  reads PTX ``%laneid`` (or returns ``threadIdx.x & (warpSize - 1)``) while ``warp_id()`` is
  ``threadIdx.x >> 5``, both in a header the unit reaches by an angle-bracket include from an
  ``include/`` directory (built with ``-Iinclude``). Each call of the lane helper in a function is
  ``warp-width-mixed``. Quiet: a lane helper of 32 (``threadIdx.x & 31``), or a warp helper by
  ``warpSize``. Breaks on: a header found only through a build flag naming another directory
  (``-Ithird/include``: not on disk where the rule looks, quiet, a miss), and a call of the lane
  helper that never meets a per-warp slot (a warp-wide shuffle scan by lane: named anyway, a
  false positive the rule accepts); a unit with no warp operation of its own (no shuffle, no
  ``warpSize``): the warp model is not built there, quiet, a miss.
- (2) A project's warp wrappers, named at their calls: a ``ballot()`` returning 32 bits
  (``unsigned int``) and a lanemask wrapper reading ``%lanemask_lt`` into an ``int`` are
  ``ballot-32bit`` at every call; a shuffle wrapper ``shfl(x, src, width = warpSize)`` called with
  two arguments and a source lane that does not follow the caller's lane is ``shfl-fixed-lane``
  where the unit's warps are 32 lanes (its warp helper is ``threadIdx.x >> 5``) or the calling
  function counts in 32. Quiet: a ballot wrapper returning 64 bits, a call passing the width (32),
  a source lane built from the thread (``threadIdx.x ^ 1``: the neighbour in the wavefront).
  Breaks on: a fixed source whose expression mentions a lane-named variable (``k + lane_div``,
  a constant per warp: quiet, a miss).
- (3) A kernel striding by ``warpSize`` over ``threadIdx.x`` (``col += warpSize``) that the same
  unit launches with blocks 32 threads wide in x (``dim3 block(32, rows)``: one row per 32
  threads) is ``launch-warp32`` at each stride: at 64 each row's 32 threads skip every other 32
  columns. Quiet: a 64-wide block, a stride by ``blockDim.x``. Breaks on: a block built by a
  helper (``dim3 block = make_block(32, rows)``: not read, quiet, a miss).
- (4) False classes: findings in branches the file itself rules out (``#if 0``, the ``#else`` of
  ``#if 1``, ``#ifndef X`` after the file's ``#define X``); a 32-bit ``__activemask()`` copy used
  only as the mask of ``*_sync`` calls (the mask rule names each call); a project's own
  ``constexpr int warpSize = 32`` (or ``ns::warpSize``) is not HIP's non-constexpr builtin."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths

UTILS = """#pragma once
namespace utils {
static __device__ __forceinline__ int lane_id()
{
    LANE_BODY
}
static __device__ __forceinline__ int warp_id()
{
    return threadIdx.x >> 5;
}
}
"""
PTX_LANE = 'int id; asm("mov.u32 %0, %%laneid;" : "=r"(id)); return id;'

KERNEL = """#include <cstdio>
#include <utils.inl>
template< int CTA_SIZE >
__global__ void count_rows(const int *rows, int n, int *out)
{
    __shared__ int s_count[CTA_SIZE / 32][32];
    const int warp = utils::warp_id();
    const int lane = utils::lane_id();
    int c = rows[blockIdx.x * CTA_SIZE + threadIdx.x] < n;
    s_count[warp][lane] = c + __shfl_down_sync(0xffffffff, c, 1, 32);
    if ( utils::lane_id() == 0 )
        out[blockIdx.x * (CTA_SIZE / 32) + warp] = s_count[warp][0];
}
"""


def tree(tmp_path: Path, lane_body: str, where: str = "include") -> Path:
    (tmp_path / where).mkdir(parents=True, exist_ok=True)
    (tmp_path / where / "utils.inl").write_text(UTILS.replace("LANE_BODY", lane_body))
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / "k.cu").write_text(KERNEL)
    return tmp_path / "src" / "k.cu"


def mixed(path: Path) -> list[int]:
    return sorted(f.line for f in audit_paths([path], jobs=1).findings
                  if f.rule == "warp-width-mixed" and Path(f.path).name == path.name)


def test_hardware_lane_helper_beside_warp_of_32(tmp_path: Path) -> None:
    # (round 15: the lane's use as the row index, s_count[warp][lane], is named too)
    assert mixed(tree(tmp_path, PTX_LANE)) == [8, 10, 11]


def test_masked_lane_helper_counts_too(tmp_path: Path) -> None:
    assert mixed(tree(tmp_path, "return threadIdx.x & (warpSize - 1);")) == [8, 11]


def test_lane_of_32_is_quiet(tmp_path: Path) -> None:
    # the lane of the unit's own 32-lane warps: each half of a wavefront is its own warp
    assert mixed(tree(tmp_path, "return threadIdx.x & 31;")) == []


def test_warp_helper_by_warpsize_is_quiet(tmp_path: Path) -> None:
    path = tree(tmp_path, PTX_LANE)
    header = tmp_path / "include" / "utils.inl"
    header.write_text(header.read_text().replace("threadIdx.x >> 5", "threadIdx.x / warpSize"))
    assert mixed(path) == []


def test_rule_breaks_on_a_header_found_only_by_build_flags(tmp_path: Path) -> None:
    # -Ithird/include: the header is not beside the unit nor in an include/ directory above it, so
    # the unit's helpers are unknown and the hazard is missed
    assert mixed(tree(tmp_path, PTX_LANE, where="third/inc")) == []


def test_rule_breaks_on_a_lane_that_meets_no_slot(tmp_path: Path) -> None:
    # a shuffle scan by the hardware lane alone is right at 64 (the scan spans the wavefront), but
    # the pair in the unit is all the rule reads: named, a false positive it accepts
    path = tree(tmp_path, PTX_LANE)
    path.write_text("#include <utils.inl>\n__device__ int scan(int v)\n{\n    const int lane = utils::lane_id();\n"
                    "    for (int i = 1; i < warpSize; i *= 2) { int n = __shfl_up_sync(~0ull, v, i);"
                    " if (lane >= i) v += n; }\n    return v;\n}\n")
    assert mixed(path) == [4]


def test_a_unit_without_warp_operations_is_read_when_it_reaches_a_laneid_helper(tmp_path: Path) -> None:
    # the per-function warp model is built only for units holding a warp operation (a cost gate),
    # or, since round 15, reaching a helper that reads PTX %laneid (pcl's features hold no shuffle)
    path = tree(tmp_path, PTX_LANE)
    path.write_text(KERNEL.replace("c + __shfl_down_sync(0xffffffff, c, 1, 32)", "c"))
    assert mixed(path) == [8, 10, 11]


WRAPPERS = """#pragma once
namespace utils {
static __device__ __forceinline__ int warp_id() { return threadIdx.x >> 5; }
static __device__ __forceinline__ BALLOT_T ballot(int p, unsigned int mask = 0xffffffff)
{
    return __ballot_sync(mask, p);
}
static __device__ __forceinline__ int lane_mask_lt()
{
    int mask;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
    return mask;
}
static __device__ __forceinline__ int shfl(int r, int lane, int bound = warpSize, unsigned int mask = 0xffffffff)
{
    return __shfl_sync(mask, r, lane, bound);
}
}
"""

COMPACT = """#include <wrap.h>
__global__ void compact(const int *rows, const int *keep, int *out, int *count)
{
    int lane = threadIdx.x & 31;
    int row_begin = utils::shfl(rows[lane], 0);
    int row_end = utils::shfl(rows[lane], 1, 32);
    int mine = utils::shfl(rows[lane], threadIdx.x ^ 1);
    int pred = keep[row_begin + lane] && row_begin + lane < row_end;
    int vote = utils::ballot(pred);
    int dest = __popc(vote & utils::lane_mask_lt());
    if (pred) out[dest] = mine;
    if (lane == 0) count[utils::warp_id()] = __popc(vote);
}
"""


def wrapped(tmp_path: Path, ballot_t: str = "unsigned int", kernel: str = COMPACT) -> list[tuple[int, str]]:
    (tmp_path / "include").mkdir(exist_ok=True)
    (tmp_path / "include" / "wrap.h").write_text(WRAPPERS.replace("BALLOT_T", ballot_t))
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / "c.cu").write_text(kernel)
    return sorted((f.line, f.rule) for f in audit_paths([tmp_path / "src" / "c.cu"], jobs=1).findings
                  if f.rule in ("ballot-32bit", "shfl-fixed-lane") and Path(f.path).name == "c.cu")


def test_wrappers_named_at_their_calls(tmp_path: Path) -> None:
    # the fixed-lane shuffle (5), the 32-bit ballot (9) and lanemask (10); the width-32 call (6)
    # and the lane-relative one (7) are right at 64
    assert wrapped(tmp_path) == [(5, "shfl-fixed-lane"), (9, "ballot-32bit"), (10, "ballot-32bit")]


def test_ballot_wrapper_of_64_bits_is_quiet(tmp_path: Path) -> None:
    got = wrapped(tmp_path, "unsigned long long")
    assert (9, "ballot-32bit") not in got and (10, "ballot-32bit") in got  # the lanemask stays 32 bits


def test_wrapper_rule_breaks_on_a_lane_named_fixed_source(tmp_path: Path) -> None:
    # lane_div is the same for every lane of a warp: a fixed source, but named like a lane, so
    # the rule takes it as following the caller's lane (quiet, a miss)
    kernel = COMPACT.replace("utils::shfl(rows[lane], 0)", "utils::shfl(rows[lane], lane_div)").replace(
        "int lane = threadIdx.x & 31;", "int lane = threadIdx.x & 31; int lane_div = blockIdx.x & 7;")
    assert (5, "shfl-fixed-lane") not in wrapped(tmp_path, kernel=kernel)


# ---- (4) false classes ----------------------------------------------------------------------------

DEAD = """#define HAVE_FAST_PATH
__global__ void k(const int *in, int *out)
{
    int v = in[threadIdx.x];
#if COND
    unsigned b = __ballot_sync(0xffffffff, v > 0);
    out[threadIdx.x] = __popc(b);
#else
    out[threadIdx.x] = v;
#endif
}
"""


def ballots(tmp_path: Path, text: str) -> list[int]:
    (tmp_path / "d.cu").write_text(text)
    return [f.line for f in audit_paths([tmp_path / "d.cu"], jobs=1).findings if f.rule == "ballot-32bit"]


def test_branches_the_file_itself_rules_out(tmp_path: Path) -> None:
    assert ballots(tmp_path, DEAD.replace("#if COND", "#if 0")) == []
    assert ballots(tmp_path, DEAD.replace("#if COND", "#ifndef HAVE_FAST_PATH")) == []
    # the #else of `#if 1`: swap the branches
    swapped = DEAD.replace("#if COND", "#if 1\n    out[threadIdx.x] = v;\n#else").replace(
        "    out[threadIdx.x] = __popc(b);\n#else\n    out[threadIdx.x] = v;\n", "    out[threadIdx.x] = __popc(b);\n")
    assert ballots(tmp_path, swapped) == []


def test_live_branches_keep_their_findings(tmp_path: Path) -> None:
    assert ballots(tmp_path, DEAD.replace("#if COND", "#if 1")) == [6, 7]
    assert ballots(tmp_path, DEAD.replace("#if COND", "#ifdef HAVE_FAST_PATH")) == [6, 7]
    # a macro the file does not decide (a -D option may define it): judged as compiled
    assert ballots(tmp_path, DEAD.replace("#if COND", "#ifndef USE_SLOW_PATH")) == [6, 7]


def test_dead_branch_rule_breaks_on_a_conditional_define(tmp_path: Path) -> None:
    # HAVE_FAST_PATH defined only under a condition the file does not decide: the #ifndef may be
    # compiled, so the finding stays (right); but a define under `#if 1` is also taken as
    # conditional (the rule counts defines outside any #if only): kept, a false positive
    cond = DEAD.replace("#define HAVE_FAST_PATH", "#if 1\n#define HAVE_FAST_PATH\n#endif").replace(
        "#if COND", "#ifndef HAVE_FAST_PATH")
    assert ballots(tmp_path, cond) == [8, 9]


MASK_ONLY = """__global__ void k(const int *in, int *out)
{
    int found = in[threadIdx.x] > 0;
    unsigned active = __activemask();
    __syncwarp(active);
    unsigned long long vote = __ballot_sync(active, found);
    out[threadIdx.x] = __popcll(vote) + EXTRA;
}
"""


def rules_at(tmp_path: Path, text: str, line: int) -> set[str]:
    (tmp_path / "m.cu").write_text(text)
    return {f.rule for f in audit_paths([tmp_path / "m.cu"], jobs=1).findings if f.line == line}


def test_activemask_copy_used_only_as_a_mask(tmp_path: Path) -> None:
    # named once, by the mask rule at its *_sync calls; no ballot-32bit duplicate at the copy
    assert "ballot-32bit" not in rules_at(tmp_path, MASK_ONLY.replace("EXTRA", "0"), 4)
    assert "warp-mask-32bit" in rules_at(tmp_path, MASK_ONLY.replace("EXTRA", "0"), 6)
    # used as a value too (counted, compared): lanes 32-63 are lost from it, named
    assert "ballot-32bit" in rules_at(tmp_path, MASK_ONLY.replace("EXTRA", "__popc(active)"), 4)


def test_ballot_copy_used_as_a_mask_stays_named(tmp_path: Path) -> None:
    # a ballot's truncated result masks the shuffles: lanes 32-63 drop out of them (a hazard named
    # at the ballot, not a duplicate), so the mask-only exemption is for __activemask() copies
    text = MASK_ONLY.replace("__activemask()", "__ballot_sync(0xffffffff, found)").replace("EXTRA", "0")
    assert "ballot-32bit" in rules_at(tmp_path, text, 4)


def test_mask_only_rule_breaks_on_a_value_use_in_a_mask_argument(tmp_path: Path) -> None:
    # `__syncwarp(active & other)`: the copy feeds an expression inside the mask; the rule reads
    # only a bare first argument, so this is counted as a value use and named (the same hazard
    # as a mask: a duplicate the rule accepts)
    text = MASK_ONLY.replace("__syncwarp(active);", "__syncwarp(active & 0xffffu);").replace("EXTRA", "0")
    assert "ballot-32bit" in rules_at(tmp_path, text, 4)


OWN_WARPSIZE = """namespace common { constexpr int warpSize = 32; }
__global__ void k(float *out)
{
    __shared__ float data[SIZE];
    data[threadIdx.x % 32] = out[threadIdx.x];
    out[threadIdx.x] = data[31 - threadIdx.x % 32];
}
"""

NO_OWN = OWN_WARPSIZE.replace("namespace common { constexpr int warpSize = 32; }\n", "")


def test_project_constant_named_warpsize(tmp_path: Path) -> None:
    assert "warpsize-not-constexpr" not in rules_at(tmp_path, OWN_WARPSIZE.replace("SIZE", "common::warpSize"), 4)
    # the builtin in a file without its own constant: still named (not constexpr on ROCm 7)
    builtin = NO_OWN.replace("SIZE", "warpSize")
    assert "warpsize-not-constexpr" in rules_at(tmp_path, builtin, 3)


def test_own_warpsize_rule_breaks_on_a_constant_in_another_scope(tmp_path: Path) -> None:
    # the file's own warpSize constant sits in one function; a later function using the builtin
    # is taken as using the constant (the rule does not follow scopes): quiet, a miss
    text = ("__device__ void f() { constexpr int warpSize = 32; (void)warpSize; }\n"
            + NO_OWN.replace("SIZE", "warpSize"))
    assert "warpsize-not-constexpr" not in rules_at(tmp_path, text, 4)


SOFTMAX = """template <typename T>
__global__ void softmax_rows(T *qk, const int seq_len)
{
    int row = blockIdx.x * blockDim.y + threadIdx.y;
    float mx = -1e20f;
    for (int col_id = threadIdx.x; col_id < seq_len; col_id += warpSize)
        mx = fmaxf(mx, (float)qk[row * seq_len + col_id]);
    for (int mask = 16; mask > 0; mask >>= 1)
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, mask, 32));
    for (int col_id = threadIdx.x; col_id < seq_len; col_id += warpSize)
        qk[row * seq_len + col_id] = (T)__expf((float)qk[row * seq_len + col_id] - mx);
}

void launch(float *qk, int rows, int seq_len, cudaStream_t stream)
{
    dim3 grid(rows / 4);
    dim3 block(WIDTH, 4);
    softmax_rows<float><<<grid, block, 0, stream>>>(qk, seq_len);
}
"""


def strides(tmp_path: Path, text: str) -> list[int]:
    (tmp_path / "s.cu").write_text(text)
    return [f.line for f in audit_paths([tmp_path / "s.cu"], jobs=1).findings if f.rule == "launch-warp32"]


def test_warpsize_stride_in_rows_of_32_threads(tmp_path: Path) -> None:
    assert strides(tmp_path, SOFTMAX.replace("WIDTH", "32")) == [6, 10]
    inline = SOFTMAX.replace("WIDTH", "32").replace("grid, block, 0", "grid, dim3(32, 4), 0")
    assert strides(tmp_path, inline) == [6, 10]


def test_rows_of_a_wavefront_or_strided_by_the_block_are_quiet(tmp_path: Path) -> None:
    assert strides(tmp_path, SOFTMAX.replace("WIDTH", "64")) == []
    assert strides(tmp_path, SOFTMAX.replace("WIDTH", "32").replace("col_id += warpSize", "col_id += blockDim.x")) == []


def test_half_wave_rule_breaks_on_a_block_from_a_helper(tmp_path: Path) -> None:
    helper = "dim3 make_block(int x, int y) { return dim3(x, y); }\n" + SOFTMAX.replace(
        "dim3 block(WIDTH, 4);", "dim3 block = make_block(32, 4);")
    assert strides(tmp_path, helper) == []
