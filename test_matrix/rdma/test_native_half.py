"""Our native layer's float16 / bfloat16 conversions (native/src/half_bits.h, written on raw bits
so one header serves the cpu, CUDA and ROCm builds): each branch of float_to_f16, f16_to_float
and float_to_bf16 reached through pn_reduce (values loaded to float, summed or averaged, stored
back), checked bit for bit against torch's own conversion of the same float result.

NaN results are the exception: torch's CPU conversion writes an all-ones payload (0x7fff /
0xffff) while ours keeps the sign (and bfloat16's payload) and sets the quiet bit; both are
NaN, so that case asserts our bits as half_bits.h defines them (a difference in NaN payload
only, observed with this torch)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.component("native")


@pytest.fixture
def lib(native_libs):
    return native_libs("host")


def _bits(t) -> list[str]:
    import torch

    return [f"{x & 0xffff:#06x}" for x in t.view(torch.int16).tolist()]


def _tensor(values, dtype):
    """Floats converted by torch, or raw 16-bit patterns given as ("bits", [...])."""
    import torch

    if isinstance(values, tuple):
        return torch.tensor([v - 0x10000 if v >= 0x8000 else v for v in values[1]], dtype=torch.int16).view(dtype)
    return torch.tensor(values).to(dtype)


# case -> (dtype, op, buffers): the branch each takes is in its name and comment.
CASES = {
    # a >= 0x477ff000: sums at or past 65520 (the tie above the largest half) become inf, 65512 does not
    "f16_overflow_to_inf": ("float16", "sum", [[40000.0, -40000.0, 65504.0, 65504.0], [40000.0, -40000.0, 16.0, 8.0]]),
    # a < 0x38800000, exponent >= 102: subnormal mantissa rounded to nearest even
    "f16_subnormal_result": ("float16", "sum", [[3e-6, -5e-7, 6e-8], [2.5e-6, -1e-7, 6e-8]]),
    # exponent < 102: below 2^-25 the result is a zero keeping its sign (avg divides past it)
    "f16_underflow_to_signed_zero": ("float16", "avg", [[5.96e-8, -5.96e-8, 5.96e-8], [0.0, 0.0, 5.96e-8],
                                                        [0.0, 0.0, 0.0]]),
    # f16_to_float exp == 0: subnormal inputs scaled by 2^-24
    "f16_subnormal_inputs": ("float16", "sum", [[5.96e-8, 1e-5], [5.96e-8, 3e-5]]),
    # f16_to_float exp == 0x1f: infinities in, inf + finite stays inf
    "f16_infinite_inputs": ("float16", "sum", [[float("-inf"), float("inf"), 65504.0], [1.0, -65504.0, -65504.0]]),
    # the normal path's rounding: exact ties go to the even mantissa (2049 -> 2048, 2051 -> 2052)
    "f16_ties_to_even": ("float16", "sum", [[2048.0, 2048.0, 2050.0], [1.0, 3.0, 1.0]]),
    "bf16_ties_to_even": ("bfloat16", "sum", [[256.0, 256.0, 258.0], [1.0, 3.0, 1.0]]),
    # the rounding carry runs into the exponent: a finite float above bf16's largest rounds to inf
    "bf16_rounds_into_inf": ("bfloat16", "sum", [[3.3895e38, -3.3895e38, 3.3895e38], [1.0e36, -1.0e36, 1.0e35]]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_half_conversion_branches_match_torch(lib, case):
    import torch

    from porting import native

    dtype, op, values = CASES[case]
    bufs = [_tensor(v, getattr(torch, dtype)) for v in values]
    got, ref = native.reduce(bufs, op, lib=lib), native.reduce_reference(bufs, op)
    assert not torch.isnan(ref.float()).any(), "a NaN here belongs in the NaN case"
    assert _bits(got) == _bits(ref), f"{case}: {got.float().tolist()} vs torch {ref.float().tolist()}"


# NaN in (a signalling-looking payload, a negative NaN, the canonical one) plus 1.0: f16 gives
# sign | 0x7e00; bf16 keeps the float's upper bits with the quiet bit (0x40) set.
NAN_CASES = {
    "float16": (("bits", [0x7c01, 0x7e00, 0xfe00]), ["0x7e00", "0x7e00", "0xfe00"]),
    "bfloat16": (("bits", [0x7f81, 0xff81, 0x7fc0]), ["0x7fc1", "0xffc1", "0x7fc0"]),
}


@pytest.mark.parametrize("dtype", list(NAN_CASES))
def test_nan_results_are_quiet_and_keep_their_sign(lib, dtype):
    import torch

    from porting import native

    nans, expected = NAN_CASES[dtype]
    dt = getattr(torch, dtype)
    got = native.reduce([_tensor(nans, dt), torch.ones(3, dtype=dt)], "sum", lib=lib)
    assert bool(torch.isnan(got.float()).all()) and _bits(got) == expected, _bits(got)
