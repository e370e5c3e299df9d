"""`port fix`'s repair classes, without compiling: what each proposes, what it leaves as a note,
what it never touches, and that a second run over repaired text proposes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.errors import UsageError
from porting.fix import header
from porting.fix.plan import CLASSES, apply, plan_text, select

PROGRAMS = Path(__file__).parent / "programs"
ALL = list(CLASSES)


def kinds(text: str) -> list[str]:
    repairs, _notes = plan_text("x.cu", text, ALL)
    return [r.kind for r in repairs]


def program(name: str) -> str:
    return (PROGRAMS / name).read_text()


@pytest.mark.parametrize("name,expected", [
    ("mask_bug.cu", ["header", "mask", "mask"]),
    ("ballot_bug.cu", ["ballot", "ballot"]),
    ("shift_bug.cu", ["shift"]),
    ("lanemath_bug.cu", ["warp-array", "lane-math", "lane-math", "lane-math"]),
    ("width_bug.cu", ["header", "mask", "shuffle-width", "mask", "shuffle-width"]),
    ("clean.cu", []),
])
def test_each_class_on_its_program(name: str, expected: list[str]) -> None:
    assert kinds(program(name)) == expected


@pytest.mark.parametrize("name", sorted(p.name for p in PROGRAMS.glob("*.cu")))
def test_a_second_run_changes_nothing(name: str) -> None:
    text = program(name)
    repairs, _ = plan_text(name, text, ALL)
    again, _ = plan_text(name, apply(text, repairs), ALL)
    assert again == []


def test_logical_warp_keeps_its_lane_math() -> None:
    repaired = apply(program("width_bug.cu"), plan_text("w.cu", program("width_bug.cu"), ALL)[0])
    assert "threadIdx.x & 31" in repaired and "d < 32" in repaired and "i / 32" in repaired
    assert "__shfl_up_sync(GPU_FULL_MASK, v, d, 32)" in repaired
    assert "__shfl_sync(GPU_FULL_MASK, v, 31, 32)" in repaired


def test_hardware_warp_moves_to_warpsize() -> None:
    repaired = apply(program("lanemath_bug.cu"), plan_text("l.cu", program("lanemath_bug.cu"), ALL)[0])
    assert "threadIdx.x % warpSize" in repaired and "threadIdx.x / warpSize" in repaired
    assert "__shared__ int partial[64]" in repaired and "blockDim.x / warpSize" in repaired


LANE_FORMS = """
__global__ void k(int* out) {
  unsigned long long b = __ballot_sync(__activemask(), 1);
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  bool last = (threadIdx.x & 0x1f) == 31;
  for (int o = 16; o > 0; o /= 2) out[0] += __shfl_down_sync(__activemask(), lane, o, 32);
  out[warp] = last + (int)b;
}
"""


def test_lane_forms_and_precedence() -> None:
    repaired = apply(LANE_FORMS, plan_text("k.cu", LANE_FORMS, ALL)[0])
    assert "threadIdx.x & (warpSize - 1)" in repaired
    assert "threadIdx.x >> (__ffs(warpSize) - 1)" in repaired  # a shift stays a shift (precedence)
    assert "int o = warpSize / 2" in repaired and "o, warpSize)" in repaired


def test_rocm_guarded_code_is_never_touched() -> None:
    text = ("#if defined(__HIP_PLATFORM_AMD__)\n__device__ int f(int v) { return __shfl_xor_sync(0xffffffff, v, 1); }\n"
            "#else\n__device__ int f(int v) { return __shfl_xor_sync(0xffffffff, v, 1); }\n#endif\n"
            "__device__ int g(int v) { return __shfl_xor_sync(0xffffffff, v, 1); }\n")
    repairs, _ = plan_text("g.cu", text, ALL)
    assert [(r.kind, r.line) for r in repairs if r.kind == "mask"] == [("mask", 6)]


def test_mask_macro_repaired_only_when_used_as_a_mask_only() -> None:
    only = "#define FULL 0xffffffff\n__device__ int f(int v) { return __shfl_xor_sync(FULL, v, 1); }\n"
    repairs, notes = plan_text("m.cu", only, ALL)
    assert [r.kind for r in repairs] == ["header", "mask-const"] and not notes
    compared = only + "__device__ bool all(unsigned b) { return b == FULL; }\n"
    repairs, notes = plan_text("m.cu", compared, ALL)
    assert repairs == [] and [n.rule for n in notes] == ["warp-mask-32bit"]


@pytest.mark.parametrize("use", ["out[0] = ~votes;", "out[0] = __clz(votes);", 'printf("%x", votes);',
                                 "unsigned copy = votes; out[0] = copy;", "votes = 0;"])
def test_ballot_width_bound_uses_are_notes(use: str) -> None:
    text = ("__global__ void k(unsigned* out, int p) {\n  unsigned votes = __ballot_sync(__activemask(), p);\n"
            f"  {use}\n}}\n")
    repairs, notes = plan_text("b.cu", text, ALL)
    assert not [r for r in repairs if r.kind == "ballot"] and [n.rule for n in notes] == ["ballot-32bit"]


def test_a_function_with_lane_masks_is_converted_whole() -> None:
    """A ballot makes the function one on the hardware warp: its 32-lane lane math moves with it."""
    text = ("__global__ void j(int* out, int p) {\n  int lane = threadIdx.x % 32;\n"
            "  unsigned b = __ballot_sync(__activemask(), p); out[lane] = __popc(b);\n}\n")
    repaired = apply(text, plan_text("b.cu", text, ALL)[0])
    assert "threadIdx.x % warpSize" in repaired and "unsigned long long b" in repaired and "__popcll(b)" in repaired


def test_a_tree_constant_as_warp_width_makes_the_function_mixed() -> None:
    text = ("#define WARP 32\n__global__ void k(int* out) {\n"
            "  unsigned long long b = __ballot_sync(__activemask(), 1);\n"
            "  int lane = threadIdx.x % WARP;\n  int w = threadIdx.x / 32;\n  out[w] = lane + (int)b;\n}\n")
    repairs, notes = plan_text("c.cu", text, ALL)
    assert not [r for r in repairs if r.kind == "lane-math"] and [n.rule for n in notes] == ["warp-size-literal"]
    text = text.replace("unsigned long long b", "unsigned b")
    repairs, notes = plan_text("c.cu", text, ALL)
    assert not repairs and sorted(n.rule for n in notes) == ["ballot-32bit", "warp-size-literal"]


def test_the_inlined_definition_is_the_portable_headers() -> None:
    block = header.block()
    assert "#define GPU_FULL_MASK (~0ull)" in block
    text = ("#include <cstdio>\n#define GPU_FULL_MASK (~0ull)\n"
            "__device__ int f(int v) { return __shfl_sync(0xffffffff, v, 0); }\n")
    assert [r.kind for r in plan_text("h.cu", text, ALL)[0]] == ["mask"]  # defined already: no second block


def test_select_rules() -> None:
    assert select(["warp-mask-32bit"]) == ["mask"]
    assert select(["ballot", "warp-size-literal"])[:2] == ["ballot", "shift"]
    with pytest.raises(UsageError, match="--rules: unknown 'nope'"):
        select(["nope"])


def test_rules_restrict_the_classes() -> None:
    repairs, _ = plan_text("w.cu", program("width_bug.cu"), ["shuffle-width"])
    assert {r.kind for r in repairs} == {"shuffle-width"}


def test_a_bit_per_thread_is_not_a_lane_bit() -> None:
    """`1 << tid` on a grid index (cuda-samples' atomics) is a bitmap, not a lane: not widened."""
    text = ("__global__ void k(unsigned* out) {\n  int tid = blockDim.x * blockIdx.x + threadIdx.x;\n"
            "  atomicOr(out, 1 << tid);\n  int lane = threadIdx.x % warpSize;\n  int l2 = threadIdx.x & 31;\n"
            "  out[1] = (1 << lane) | (1u << l2);\n}\n")
    repairs, _ = plan_text("s.cu", text, ALL)
    assert [(r.kind, r.line) for r in repairs if r.kind == "shift"] == [("shift", 6), ("shift", 6)]


def test_mask_variable_initialised_to_the_full_mask() -> None:
    """cuda-samples' `int mask = 0xffffffff; __any_sync(mask, p)`: widened and made the full mask;
    a mask variable used for something else too, or holding another value, is a note."""
    text = "__global__ void k(int* r, int p) {\n  int mask = 0xffffffff;\n  r[0] = __any_sync(mask, p);\n}\n"
    repaired = apply(text, plan_text("v.cu", text, ALL)[0])
    assert "unsigned long long mask = GPU_FULL_MASK;" in repaired
    for body in ("  int mask = 0xffffffff;\n  r[0] = __any_sync(mask, p) + mask;\n",
                 "  unsigned mask = 0xffff;\n  r[0] = __any_sync(mask, p);\n"):
        repairs, notes = plan_text("v.cu", "__global__ void k(int* r, int p) {\n" + body + "}\n", ALL)
        assert not repairs and [n.rule for n in notes] == ["warp-mask-32bit"]
