"""cuFFT on the CPU (runtime/emu_cufft.h): transforms checked against values a DFT fixes."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.emulate.refuse import scan_text

PROGRAM = Path(__file__).parent / "programs" / "cufft" / "fft.cu"


def test_transforms_match_the_dft_at_both_widths(emulate_program):
    """A cosine of 3 cycles in 16 samples has 8 at bins 3 and 13; the ramp 0..9 sums to 45, its
    alternating sum is -5 and X1 = -5 + 5i cot(pi/10); the 4 x 8 grid of i % 5 sums to 61; a delta
    at b has X1 = exp(-2 pi i b / 16); round trips return the input times the count."""
    result = emulate_program(PROGRAM)
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout.splitlines() == [
        "c2c round trips exact to 1e-5: n=64 1, n=12 1, n=1 1",
        "cosine: X3 8.0000 X13 8.0000 others 0.0000",
        "r2c: X0 45.0000 X5 -5.0000, X1 = (-5.0000, 15.3884), c2r back 1",
        "c2c on an r2c plan: 1",
        "2d: DC 61.0000 = sum 61.0000, round trip 1",
        "batched X1: (1.0000, 0.0000) (0.9239, -0.3827) (0.7071, -0.7071)",
        "destroyed twice: 1",
    ]


@pytest.mark.parametrize("src, refused", [
    ("#include <cufft.h>\nvoid f() { cufftHandle p; cufftPlan1d(&p, 8, CUFFT_C2C, 1); }\n", []),
    ("#include <cufftXt.h>\nvoid f() { cufftXtSetGPUs(p, 2, gpus); }\n",
     ["uses cuFFT's Xt API (multi-GPU, callbacks, half precision)"]),
])
def test_cufft_passes_the_scan_and_its_xt_api_does_not(src, refused):
    assert [r.feature for r in scan_text(src, "f.cu")] == refused
