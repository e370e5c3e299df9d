"""`port audit --confirm` per line (issue 26): the emulator's 64-lane sites (emu_sites.cpp) tied to
each finding's line through porting.audit.flow. The findings here are made by hand at chosen
lines, so what is tested is the attribution, whatever the audit's rules report on these files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from porting.audit import confirm
from porting.audit.findings import Finding
from porting.audit.flow import Flow

CASES = Path(__file__).parent / "confirm_lines"
needs_emulator = pytest.mark.skipif(not shutil.which("bwrap") or not shutil.which("g++"),
                                    reason="port emulate needs g++ and bubblewrap")

# (file, line, rule): what the finding's line holds is in the comment
CHOSEN = [
    ("two_hazards.cu", 6, "ballot-32bit"),       # the ballot kept in 32 bits (runs, count differs)
    ("two_hazards.cu", 7, "ballot-32bit"),       # the count of it (uses `bits`, set on line 6)
    ("two_hazards.cu", 9, "warp-mask-32bit"),    # a 32-bit mask in a branch never taken
    ("mask_variable.cu", 5, "warp-mask-32bit"),  # #define FULL_MASK: reaches line 7 only (one step)
    ("mask_variable.cu", 7, "warp-mask-32bit"),  # const unsigned mask = FULL_MASK; used on line 10
    ("mask_variable.cu", 9, "warp-size-literal"),  # for (int offset = 16; ...): used on line 10
    ("mask_variable.cu", 10, "warp-mask-32bit"),  # the shuffle itself
    ("helper.cu", 10, "warp-size-literal"),      # the call of from_lane() with `% 32`
    ("consistent.cu", 8, "warp-size-literal"),   # a shuffle that reads across the halves by design
    ("untraced.cu", 6, "shared-warp32"),         # __shared__ int seen[128 / 32]: no collective on the way
    ("refused.cu", 7, "warp-mask-32bit"),        # in a program port emulate refuses (PTX `sad`)
    ("warp_sum.cuh", 5, "warp-size-literal"),    # a header: for (int offset = 16; ...), run through using_header.cu
    ("using_header.cu", 5, "warp-size-literal"),  # the call of the header's helper
    ("mask_only.cu", 5, "warp-mask-32bit"),      # a 32-bit mask on a shuffle that stays in its half
    ("mask_only.cu", 5, "shfl-fixed-lane"),      # another rule on that line
    ("macro.cu", 5, "warp-size-literal"),        # the continued line of a #define used on line 9
]


@pytest.fixture(scope="module")
def judged() -> dict[tuple, Finding]:
    found = {(name, line, rule): Finding(str(CASES / name), line, 1, rule, "warning", "m", "s")
             for name, line, rule in CHOSEN}
    assert confirm.confirm(found.values()) == 8  # refused.cu does not run; using_header.cu runs once for both
    return {**found, **{(name, line): f for (name, line, _), f in found.items()}}


@needs_emulator
def test_of_two_hazards_only_the_one_that_runs_is_confirmed(judged) -> None:
    ballot, count, mask = (judged["two_hazards.cu", n] for n in (6, 7, 9))
    assert ballot.confirmation == "confirmed" and "ballot-64bit on line 6:" in ballot.confirmation_detail
    assert count.confirmation == "confirmed" and "sets bits, used on line 7" in count.confirmation_detail
    assert mask.confirmation == "not-reproduced" and "sites on line 6" in mask.confirmation_detail
    assert "this input did not reach it" in mask.confirmation_detail


@needs_emulator
def test_a_variable_set_on_one_line_and_used_at_the_site(judged) -> None:
    offset, mask_var, shuffle = (judged["mask_variable.cu", n] for n in (9, 7, 10))
    assert offset.confirmation == "confirmed" and "uses offset, set on line 9" in offset.confirmation_detail
    assert mask_var.confirmation == "confirmed" and "uses mask, set on line 7" in mask_var.confirmation_detail
    assert shuffle.confirmation == "confirmed" and "mask-32bit on line 10:" in shuffle.confirmation_detail
    # the input that breaks the variable rule: a #define used to set a variable is two steps away
    assert judged["mask_variable.cu", 5].confirmation == "untraced"


@needs_emulator
def test_a_site_in_a_helper_confirms_the_line_that_calls_it(judged) -> None:
    call = judged["helper.cu", 10]
    assert call.confirmation == "confirmed"
    assert "on line 7 (in from_lane(), called from line 10)" in call.confirmation_detail


@needs_emulator
def test_a_site_in_correct_code_with_the_same_results_confirms_nothing(judged) -> None:
    f = judged["consistent.cu", 8]
    assert f.confirmation == "not-reproduced"
    assert "shuffle-other-half on line 8" in f.confirmation_detail and "results are the same" in f.confirmation_detail


@needs_emulator
def test_a_difference_with_no_collective_on_the_way_is_untraced(judged) -> None:
    f = judged["untraced.cu", 6]
    assert f.confirmation == "untraced" and "results differ" in f.confirmation_detail


@needs_emulator
def test_a_program_the_emulator_refuses_is_not_run_with_the_reason(judged) -> None:
    f = judged["refused.cu", 7]
    assert f.confirmation == "not-run" and "PTX instruction 'sad.u32'" in f.confirmation_detail


@needs_emulator
def test_a_header_is_judged_on_the_program_beside_it_that_includes_it(judged) -> None:
    header = judged["warp_sum.cuh", 5]
    assert header.confirmation == "confirmed"
    assert "uses offset, set on line 5" in header.confirmation_detail
    assert header.confirmation_detail.endswith("(emulated through using_header.cu, which includes it)")
    # the input that breaks the helper rule: the helper is in another file, which is not followed, so the
    # call in the program (no collective of its own) is untraced although the header's site explains it
    assert judged["using_header.cu", 5].confirmation == "untraced"


@needs_emulator
def test_a_macro_is_reported_where_it_is_used_and_tied_to_its_definition(judged) -> None:
    f = judged["macro.cu", 5]
    assert f.confirmation == "confirmed"
    assert "shuffle-other-half on line 9 (uses WARP_REDUCE, set on line 4)" in f.confirmation_detail


@needs_emulator
def test_a_widened_mask_alone_confirms_the_mask_rule_only(judged) -> None:
    assert judged["mask_only.cu", 5, "warp-mask-32bit"].confirmation == "confirmed"
    other = judged["mask_only.cu", 5, "shfl-fixed-lane"]
    assert other.confirmation == "not-reproduced" and "results are the same" in other.confirmation_detail


@needs_emulator
@pytest.mark.parametrize("argv, status, why", [
    ([], "not-reproduced", "this input did not reach it"),  # mode 0: the ballot never runs
    (["1"], "confirmed", "ballot-64bit on line 8"),
])
def test_program_arguments_decide_what_is_reached(argv, status, why) -> None:
    f = Finding(str(CASES / "by_argument.cu"), 8, 1, "ballot-32bit", "warning", "m", "s")
    assert confirm.confirm([f], program_args=argv) == 1
    assert f.confirmation == status and why in f.confirmation_detail


# ---- the flow rules on text alone (no emulator) ---------------------------------------------

SOURCE = """\
#define FULL 0xffffffffu
__device__ int helper(int v) {
  return __shfl_down_sync(FULL, v, 16);
}
__device__ int unused(int v) {
  return __shfl_xor_sync(FULL, v, 1);
}
__global__ void k(int* out) {
  unsigned m = 0xffffffffu;
  int v = threadIdx.x;
  v = helper(v);
  int w = __shfl_sync(m,
                      v, 0);
  auto f = [&](int x) { return x + 1; };
  if (v > 0) { out[0] = f(w); }
}
__global__ void other(int* out) {
  unsigned m = 3;
  out[0] = m;
}
"""


def test_flow_finds_functions_not_control_statements_or_lambdas() -> None:
    names = sorted((f.name, f.first, f.last) for f in Flow.of(SOURCE).functions)
    assert names == [("helper", 2, 4), ("k", 8, 16), ("other", 17, 20), ("unused", 5, 7)]


def test_flow_statement_spans_a_call_over_lines_and_stops_at_its_semicolon() -> None:
    flow = Flow.of(SOURCE)
    assert list(flow.statement(13)) == [12, 13]
    assert list(flow.statement(10)) == [10]


def test_flow_variable_uses_stay_in_their_function() -> None:
    t = Flow.of(SOURCE).targets(9)  # unsigned m = ...: used on line 12, not in other()
    assert t[12] == "uses m, set on line 9" and 19 not in t and 18 not in t


def test_flow_define_reaches_every_use_in_the_file() -> None:
    t = Flow.of(SOURCE).targets(1)
    assert {3, 6} <= set(t)


def test_flow_helper_bodies_are_targets_of_the_calling_line_only() -> None:
    flow = Flow.of(SOURCE)
    assert flow.targets(11)[3] == "in helper(), called from line 11"
    assert 6 not in flow.targets(11)  # unused() is never called
    assert 3 not in flow.targets(14)  # a line that calls no helper (nor do the uses of what it sets)


def test_flow_source_is_the_line_that_sets_a_name_this_line_uses() -> None:
    t = Flow.of(SOURCE).targets(15)  # uses v and w and f
    assert t[12] == "sets w, used on line 15" and t[11] == "sets v, used on line 15"
    assert 18 not in t  # `m` of other() is another function's


def test_flow_a_continued_directive_is_one_statement() -> None:
    text = "#define R(v) \\\n  v += __shfl_down_sync(0xffffffffu, v, 16)\nint k(int v) {\n  R(v);\n  return v;\n}\n"
    flow = Flow.of(text)
    assert list(flow.statement(2)) == [1, 2]
    assert flow.targets(2)[4] == "uses R, set on line 1"
    assert 5 not in flow.targets(2)  # `v = ...` inside the macro's body is not a variable of k()


def test_flow_breaks_on_a_shadowed_name() -> None:
    # documented limit: a name redeclared in an inner block counts as the same name
    text = "__global__ void k(int* o) {\n  int m = 1;\n  { int m = 2; o[0] = __shfl_sync(m, 0, 0); }\n}\n"
    assert 3 in Flow.of(text).targets(2)
