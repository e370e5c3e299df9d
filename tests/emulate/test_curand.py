"""cuRAND's basics in the emulator (runtime/emu_curand.h): the emulator's own xorwow streams,
checked by their properties (range, moments, offsets, subsequences, reseeding), the same at both
widths; a per-warp reduction of the draws with a 32-lane bug diverges."""

from __future__ import annotations

from pathlib import Path

from porting.emulate import refuse

CURAND = Path(__file__).parent / "programs" / "curand"
ALL_TRUE = ("pi within 0.05: 1 (samples counted all)\noffset skips: 1, subsequences differ: 1\n"
            "uniform in (0,1]: 1 mean ~0.5: 1; normal mean ~2: 1 var ~0.25: 1; odd count refused: 1\n"
            "reseeded stream repeats: 1\n")


def test_curand_streams_have_the_right_properties_at_both_widths(emulate_program):
    result = emulate_program(CURAND / "monte_carlo.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == ALL_TRUE


def test_a_32_lane_reduction_of_random_draws_diverges(emulate_program):
    bug = emulate_program(CURAND / "monte_carlo.cu", defines=["WARP_BUG"])
    assert bug.verdict == "diverged"
    by_width = {r.warp: r.stdout for r in bug.runs}
    assert by_width[32] == ALL_TRUE
    assert by_width[64].startswith("pi within 0.05: 0 (samples counted partly)\n")


def test_curand_basics_pass_the_scan_and_quasi_random_generators_do_not(tmp_path):
    src = tmp_path / "r.cu"
    src.write_text("#include <curand_kernel.h>\n__global__ void k() { curandState s; curand_init(1, 0, 0, &s); }\n")
    assert refuse.scan([src]) == []
    src.write_text("#include <curand.h>\nvoid f(curandGenerator_t* g) {\n"
                   " curandCreateGenerator(g, CURAND_RNG_QUASI_SOBOL32); }\n")
    assert [(r.feature, r.where) for r in refuse.scan([src])] == [
        ("uses cuRAND's quasi-random, MTGP32 or discrete generators", f"{src}:3")]


def test_generator_ordering_is_accepted_and_checked(emulate_program):
    result = emulate_program(CURAND / "ordering.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout.splitlines() == ["equal 1000 of 1000, in (0, 1] 1000",
                                                  "quasi ordering on a pseudo generator: 1"]
