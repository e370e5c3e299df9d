"""Issue 26, corpus 10 (tests/audit/fresh/labels_tenth.toml): the classes its one run missed or
named falsely, each as an own program (written here, not the third-party code) for the next round.

The audit that ran on corpus 10 (a7e0e46, the code after round 13) gets each of these wrong; the
tests say what a rule that describes the class would do and are marked ``xfail(strict=True)``, so
the round that fixes a class sees its test pass and must drop the marker (and keep the quiet
variant beside it quiet). Misses:

- warpSize spelled where 32 is a constant that is not a lane width: a bit offset divided by the
  32-bit limb width (era-bellman-cuda), a slot width defaulting to warpSize against a layout that
  requires a divisor of 32 (cuda-fixnum);
- a 32-bit ballot shifted by the group's base in the warp, a funnel shift whose amount wraps at 32
  (CGBN): the ballot line is named, the shift that picks the group's bits is not;
- a fixed-lane broadcast through a project helper (``warp_uniform(v)`` = ``__shfl_sync(.., v, 0)``)
  of ``threadIdx.y`` in a kernel launched ``dim3(32, n)``: lanes 32-63 take the even row's value;
- a static member ballot wrapper returning 32 bits (``layout<8>::ballot(p)``), named in its body
  but not at its calls (cuda-fixnum);
- a ballot stored into a variable declared after arrays in one declaration (``unsigned x[4], q,
  ballot;``, CGBN's modular inverse).

False classes:

- a lane-0 broadcast after a block reduction whose second stage both 32-lane halves compute from
  the same shared slots (``lane < WPT ? smem[lane] : init``): lane 0's value is lane 32's;
- a 32-bit mask inside ``if constexpr`` whose condition the file's own constant makes false: the
  branch is never instantiated."""

from __future__ import annotations

import pytest

from porting.audit.evaluate import WAVE64_RULES

NAMING = WAVE64_RULES - {"warp-mask-32bit"}  # the rules that can name a hazard (the scorer's set)



LIMB = """__device__ unsigned extract_bits(const unsigned *limbs, unsigned offset, unsigned count)
{
    const unsigned limb = offset / WIDTH;
    const unsigned lo = limbs[limb], hi = limbs[limb + 1];
    return __funnelshift_r(lo, hi, offset) & ((1u << count) - 1);
}
"""


def test_warpsize_as_limb_width_is_named(rules_at) -> None:
    assert rules_at(LIMB.replace("WIDTH", "warpSize"), 3) & NAMING


def test_limb_width_of_32_is_quiet(rules_at) -> None:
    assert not rules_at(LIMB.replace("WIDTH", "32"), 3) & NAMING


SLOT = """constexpr int WARPSIZE = 32;
template <int width = WARPSIZE> struct slot {
    static_assert(!(WARPSIZE & (width - 1)), "slot width must divide 32");
    static __device__ unsigned shfl(unsigned v, int src) { return __shfl_sync(0xffffffffull, v, src, width); }
};
template <int WIDTH = warpSize> __device__ unsigned top_digit(unsigned v)
{
    return slot<WIDTH>::shfl(v, WIDTH - 1);
}
"""


@pytest.mark.xfail(strict=True, reason="corpus 10 miss: a slot width defaulting to warpSize in 32-lane layouts")
def test_slot_width_of_warpsize_is_named(rules_at) -> None:
    assert rules_at(SLOT, 6) & NAMING


GROUP_BITS = """template <unsigned TPI> __device__ bool group_all_zero(unsigned x)
{
    const unsigned group_thread = threadIdx.x & (TPI - 1);
    unsigned mask = __ballot_sync(0xffffffffull, x == 0);
    mask = __funnelshift_r(mask, 0, threadIdx.x ^ group_thread) & ((1ull << TPI) - 1);
    return mask == ((1ull << TPI) - 1);
}
"""


def test_ballot_of_the_group_is_named(rules_at) -> None:
    assert "ballot-32bit" in rules_at(GROUP_BITS, 4)


def test_group_shift_wrapping_at_32_is_named(rules_at) -> None:
    assert rules_at(GROUP_BITS, 5) & NAMING


UNIFORM = """__device__ __forceinline__ int warp_uniform(int v)
{
    return __shfl_sync(0xffffffffull, v, 0);
}
__global__ void rows(int *out)
{
    const int warp = warp_uniform(VALUE);
    out[blockIdx.x * blockDim.y + warp] = threadIdx.x;
}
void launch(int *out)
{
    rows<<<1, dim3(32, 4)>>>(out);
}
"""


@pytest.mark.xfail(strict=True, reason="corpus 10 miss: a lane-0 broadcast helper of threadIdx.y in dim3(32, n) blocks")
def test_broadcast_helper_of_the_row_is_named(rules_at) -> None:
    assert rules_at(UNIFORM.replace("VALUE", "threadIdx.y"), 7) & NAMING


def test_broadcast_helper_of_a_block_value_is_quiet(rules_at) -> None:
    # blockIdx.x is the same in every lane of the block: the broadcast is right at 64
    assert not rules_at(UNIFORM.replace("VALUE", "blockIdx.x"), 7) & NAMING


MEMBER = """template <int width> struct layout {
    static __device__ int offset() { const int tid = threadIdx.x & 31; return tid - (tid & (width - 1)); }
    static __device__ unsigned ballot(int p) { unsigned b = __ballot_sync(0xffffffffull, p); return b >> offset(); }
};
__device__ unsigned nonzero_mask(unsigned digit)
{
    return layout<8>::ballot(digit != 0);
}
"""


def test_member_wrapper_body_is_named(rules_at) -> None:
    assert "ballot-32bit" in rules_at(MEMBER, 3)


def test_member_wrapper_call_is_named(rules_at) -> None:
    assert "ballot-32bit" in rules_at(MEMBER, 7)


DECLARED = """__device__ bool all_zero(const unsigned *a)
{
    unsigned x[4], q, ballot;
    for (int i = 0; i < 4; i++) x[i] = a[i];
    q = x[0] | x[1] | x[2] | x[3];
    ballot = __ballot_sync(0xffffffffull, q == 0);
    return ballot == 0xffffffffu;
}
"""


def test_ballot_declared_after_arrays_is_named(rules_at) -> None:
    assert "ballot-32bit" in rules_at(DECLARED, 6)


def test_ballot_declared_alone_is_named(rules_at) -> None:
    alone = DECLARED.replace("unsigned x[4], q, ballot;", "unsigned x[4], q;\n    unsigned ballot;")
    assert "ballot-32bit" in rules_at(alone, 7)


BLOCK_MAX = """template <int WPT> __device__ float block_max(float reducing, float *shared_mem)
{
    constexpr int WARP_SIZE = 32;
    const int lane_id = threadIdx.x % WARP_SIZE;
    const int warp_id = threadIdx.x / WARP_SIZE;
    for (int mask = WARP_SIZE / 2; mask >= 1; mask /= 2) {
        reducing = fmaxf(reducing, __shfl_xor_sync(uint32_t(-1), reducing, mask));
    }
    if (lane_id == 0) {
        shared_mem[warp_id] = reducing;
    }
    __syncthreads();
    if (lane_id < WPT) reducing = shared_mem[lane_id];
    else reducing = -1e30f;
    for (int mask = WPT / 2; mask >= 1; mask /= 2) {
        reducing = fmaxf(reducing, __shfl_xor_sync(uint32_t(-1), reducing, mask));
    }
    reducing = __shfl_sync(uint32_t(-1), reducing, 0);
    return reducing;
}
"""


def test_broadcast_of_a_result_both_halves_hold_is_quiet(rules_at) -> None:
    assert "shfl-fixed-lane" not in rules_at(BLOCK_MAX, 18)


OFF_BRANCH = """constexpr int ELTS = 16;
template <typename T> __device__ T pair_max(T v)
{
    if constexpr (ELTS == 8) {
        v = max(v, __shfl_xor_sync(0xffffffff, v, 1, 32));
    }
    return v;
}
"""


def test_mask_in_a_discarded_branch_is_quiet(rules_at) -> None:
    assert "warp-mask-32bit" not in rules_at(OFF_BRANCH, 5)


def test_mask_in_a_taken_branch_is_named(rules_at) -> None:
    assert "warp-mask-32bit" in rules_at(OFF_BRANCH.replace("ELTS = 16", "ELTS = 8"), 5)
