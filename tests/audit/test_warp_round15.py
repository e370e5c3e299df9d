"""Issue 26, round 15: the classes corpus 12 missed or named falsely (tuned on both of its halves, so
it is no hold-out any more). Each rule beside the input that should break it: the same code with
the lane cut to the code's own warps, or counted by the hardware width, that stays quiet."""

from __future__ import annotations

from pathlib import Path

from porting.audit.evaluate import WAVE64_RULES
from porting.audit.scan import audit_paths

NAMING = WAVE64_RULES - {"warp-mask-32bit"}

# (1) the hardware lane (PTX %laneid, 0-63 once ported) used in warps of 32 lanes
HELPER = """__device__ __forceinline__ unsigned lane_id()
{
    unsigned r;
    asm("mov.u32 %0, %%laneid;" : "=r"(r));
    return r;
}
"""
USES = HELPER + """#define WARP_LANES 32
__global__ void rows(const float *x, float *out, int n)
{
    __shared__ float buf[256];
    const unsigned lane = lane_id();
    float s = 0.f;
    for (int i = lane; i < n; i += WARP_LANES)
        s += x[i];
    volatile float *b = &buf[threadIdx.x - lane];
    b[lane] = s;
    if (lane < 16) {
        b[lane] += b[lane + 16];
    }
    if (lane == 0) out[blockIdx.x] = b[0];
    const unsigned pair = lane_id() & 1;
    out[n + threadIdx.x] = pair;
}
"""


def test_each_use_of_the_hardware_lane_is_named(rules_at) -> None:
    for line in (13, 15, 16, 17, 20):
        assert "warp-width-mixed" in rules_at(USES, line), line


def test_the_store_of_the_lane_and_its_pinned_uses_are_not(rules_at) -> None:
    # `lane = lane_id();` only stores it; under `if (lane < 16)` the lane is below 32 anyway;
    # `lane_id() & 1` is a sub-warp lane, the same at 64
    for line in (11, 18, 21):
        assert not rules_at(USES, line) & NAMING, line


def test_the_same_code_counted_by_warpsize_is_quiet(rules_at) -> None:
    ported = USES.replace("#define WARP_LANES 32", "").replace("WARP_LANES", "warpSize") \
        .replace("if (lane < 16)", "if (lane < warpSize / 2)").replace("lane + 16", "lane + warpSize / 2") \
        .replace("float buf[256];", "float buf[256];\n    const int w = threadIdx.x / warpSize;")
    for line in range(1, ported.count("\n") + 1):
        assert "warp-width-mixed" not in rules_at(ported, line), line


def test_a_lane_compared_with_a_ballots_leader_is_not_named(rules_at) -> None:
    source = HELPER + """#define WARP_LANES 32
__global__ void serve(const int *node, int *out)
{
    const unsigned lane = lane_id();
    unsigned long long mask = __ballot_sync(0xffffffffu, node[threadIdx.x] >= 0);
    while (mask) {
        const int active = __ffsll(mask) - 1;
        mask &= mask - 1;
        if (active == lane) out[threadIdx.x] = node[threadIdx.x];
    }
    if (lane == 0) out[blockIdx.x] = WARP_LANES;
}
"""
    assert not rules_at(source, 15) & NAMING
    assert "warp-width-mixed" in rules_at(source, 17)


def test_a_walk_started_at_the_lane_is_named_where_it_starts(rules_at) -> None:
    source = HELPER + """#define WARP_LANES 32
__global__ void walk(const float *x, float *out, int n)
{
    unsigned idx = lane_id();
    float s = 0.f;
    while (idx < n) {
        s += x[idx];
        idx += WARP_LANES;
    }
    out[threadIdx.x] = s;
}
"""
    assert "warp-width-mixed" in rules_at(source, 10)
    assert not rules_at(source, 13) & NAMING  # the walk's body: named at its start


def test_the_helper_in_a_sibling_modules_include_directory_is_followed(tmp_path: Path) -> None:
    # pcl: gpu/features/src/k.cu includes "pcl/warp.hpp", found in gpu/utils/include/
    (tmp_path / "gpu" / "utils" / "include" / "pcl").mkdir(parents=True)
    (tmp_path / "gpu" / "utils" / "include" / "pcl" / "warp.hpp").write_text(
        HELPER + "enum { LOG_WARP_SIZE = 5, STRIDE = 1 << LOG_WARP_SIZE };\n")
    (tmp_path / "gpu" / "features" / "src").mkdir(parents=True)
    kernel = tmp_path / "gpu" / "features" / "src" / "k.cu"
    kernel.write_text('#include "pcl/warp.hpp"\n__global__ void k(int *out)\n{\n    const unsigned lane = lane_id();\n'
                      "    if (lane == 0) out[threadIdx.x >> LOG_WARP_SIZE] = 1;\n}\n")
    assert {f.rule for f in audit_paths([kernel], jobs=1).findings if f.line == 5} & NAMING
    # the header moved where no include directory holds it: nothing is known of lane_id()
    (tmp_path / "gpu" / "utils" / "include").rename(tmp_path / "gpu" / "utils" / "headers")
    assert not {f.rule for f in audit_paths([kernel], jobs=1).findings if f.line == 5} & NAMING


def test_the_lane_as_a_token_of_identity_is_not_named(rules_at) -> None:
    # warp-centric load balancing ("vie for control"): each lane writes its id, the one that reads
    # its own id back wins; ids 32-63 are as unique in their 32-lane warp as 0-31
    source = HELPER + """#define WARP_SIZE 32
__global__ void expand(const int *deg, int *out)
{
    __shared__ int owner[8];
    const unsigned me = lane_id();
    const int warp_id = threadIdx.x / WARP_SIZE;
    int size = deg[threadIdx.x];
    while (__any_sync(0xffffffffu, size > 0)) {
        if (size > 0) owner[warp_id] = me;
        if (owner[warp_id] == me) size = 0;
        for (int i = me; i < 64; i += WARP_SIZE) out[i] = warp_id;
    }
}
"""
    assert not rules_at(source, 15) & NAMING
    assert not rules_at(source, 16) & NAMING
    assert "warp-width-mixed" in rules_at(source, 17)  # a position: the odd warp starts at 32


def test_a_bitmap_named_like_a_ballot_inside_a_loops_condition_stays_a_ballot(rules_at) -> None:
    # the ballot held in the loop's condition is the same function's: the loop is no function
    source = """__global__ void drain(const int *x, int *out)
{
    unsigned work;
    while ((work = __ballot_sync(0xffffffffu, x[threadIdx.x] > 0))) {
        out[threadIdx.x] = __ffs(work);
        break;
    }
}
"""
    assert "ballot-32bit" in rules_at(source, 5)


# (3) a lane bit built from an int 1 for a lane found in a ballot: 0-63 once the ballot is 64 bits
DRAIN = """__global__ void drain(const unsigned *bits, int *out)
{
    unsigned long long mask = SOURCE;
    while (mask) {
        const int lane = __ffsll(mask) - 1;
        mask &= ~(1 << lane);
        out[lane] = 1;
    }
}
"""


def test_an_int_lane_bit_of_a_ballots_lane_is_named(rules_at) -> None:
    assert rules_at(DRAIN.replace("SOURCE", "__ballot_sync(__activemask(), bits[threadIdx.x] != 0)"), 6) & NAMING


def test_an_int_lane_bit_of_a_bitmaps_bit_is_not(rules_at) -> None:
    # the same drain over a word read from memory: its bit positions are no lanes of a wavefront
    assert not rules_at(DRAIN.replace("SOURCE", "bits[blockIdx.x]"), 6) & NAMING


# (3) a ballot returned through the file's alias of a 32-bit integer; a 64-bit alias is no narrowing
ALIAS = """#include <cstdint>
using mask = std::TYPE;
__device__ inline mask ballot(bool predicate)
{
    return __ballot_sync(0xffffffffu, predicate);
}
"""


def test_a_ballot_returned_as_a_32_bit_alias_is_named(rules_at) -> None:
    assert "ballot-32bit" in rules_at(ALIAS.replace("TYPE", "uint32_t"), 5)


def test_a_ballot_returned_as_a_64_bit_alias_is_not(rules_at) -> None:
    assert "ballot-32bit" not in rules_at(ALIAS.replace("TYPE", "uint64_t"), 5)


# (2) a function the file defines is the project's, whatever its prefix; the library's calls inside it are not
def test_a_library_call_inside_the_projects_nvshmem_named_wrapper_is_named(rules_at) -> None:
    source = """__device__ void nvshmem_put_wrapper(int *dest, int v, int pe)
{
    nvshmem_int_p(dest, v, pe);
}
"""
    assert "cuda-only-library" not in rules_at(source, 1)
    assert "cuda-only-library" in rules_at(source, 3)


# (2) a ballot where only lanes 0-31 run, the bound a name the file defines
LOOKBACK = """#define LANES (WIDTH)
__global__ void lookback(const unsigned *status, int *out)
{
    if (threadIdx.x < LANES) {
        unsigned s = status[threadIdx.x];
        out[threadIdx.x] = 31 - __clz((int)__ballot_sync(0xffffffffu, s != 1));
    }
}
"""


def test_a_ballot_under_a_named_32_lane_guard_is_not_flagged(rules_at) -> None:
    assert "ballot-32bit" not in rules_at(LOOKBACK.replace("WIDTH", "32"), 6)


def test_a_ballot_under_a_named_64_lane_guard_is_flagged(rules_at) -> None:
    assert "ballot-32bit" in rules_at(LOOKBACK.replace("WIDTH", "64"), 6)
