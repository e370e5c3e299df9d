"""porting/audit/warp.py rule by rule, on small CUDA snippets: which sites each wave64 rule reports,
with the exact message and suggestion (user-facing text, as `port audit` prints them), and which
sites it leaves alone. The golden files check line and rule; these tests pin the rest and cover
each operator, each boundary of the heuristics, and the fast paths that skip work (a fast path
that skipped a file it must read is a missed hazard). Written against the mutants that survived
the golden files (issue 15, `ci/mutation audit`)."""

from __future__ import annotations

import pytest

from porting.audit import warp

EMULATE = "confirm with `port emulate SOURCES --warp 32,64`"
LANE_FIX = f"use warpSize (or a per-architecture constant): lane = threadIdx.x % warpSize; {EMULATE}"


def where(code: str, hits) -> list[tuple]:
    """Each hit as (line, the rest of the line from its offset, rule, message, suggestion, symbol)."""
    return [(code.count("\n", 0, h[0]) + 1, code[h[0]:].split("\n", 1)[0], *h[1:]) for h in hits]


def lane(line: int, at: str, op: str) -> tuple:
    return (line, at, "warp-size-literal", f"'{op}' on a thread/lane index assumes 32-lane warps; gfx942/gfx950 "
            "wavefronts have 64 lanes, so lane and warp ids come out wrong", LANE_FIX, "")


def shift(line: int, at: str, name: str) -> tuple:
    return (line, at, "warp-size-literal", f"'1 << {name}' builds a lane bit in a 32-bit int: lanes 32-63 of a "
            "64-lane wavefront shift out (undefined behaviour)",
            f"use 1ull << lane and a 64-bit mask; {EMULATE}", "")


# --- lane math ------------------------------------------------------------------------------------

LANE_OPS = """__global__ void k(int* out, int n) {
  int t = threadIdx.x;
  out[0] = t % 32;
  out[1] = t / 32;
  out[2] = t & 31;
  out[3] = t & 0x1F;
  out[4] = t >> 5;
  out[5] = t == 31;
  out[6] = t%32;
  out[7] = t / 5;
  out[8] = (t + 1) % 32;
  out[9] = ((t + 1) - n) / 32;
  out[10] = n % 32;
  out[11] = t && 31;
  if (t < 32) out[12] = 0;
  out[13] = t>>5;
}
"""


def test_each_lane_operator_on_a_thread_index_with_its_text() -> None:
    # `t / 5` is lane-shaped but no lane operation: the ones after it are still read; `n` is not a
    # thread index, `&&` is not `&`, and `t < 32` alone (no shuffle after it) is not the last warp
    assert where(LANE_OPS, warp.lane_math(LANE_OPS)) == [
        lane(3, "% 32;", "% 32"), lane(4, "/ 32;", "/ 32"), lane(5, "& 31;", "& 31"), lane(6, "& 0x1F;", "& 0x1F"),
        lane(7, ">> 5;", ">> 5"), lane(8, "== 31;", "== 31"), lane(9, "%32;", "% 32"),
        lane(11, "% 32;", "% 32"), lane(12, "/ 32;", "/ 32"), lane(16, ">>5;", ">> 5")]


def test_a_derivation_passed_in_is_the_one_used() -> None:
    shared = warp.Derivation(LANE_OPS)
    assert list(warp.lane_math(LANE_OPS, shared)) == list(warp.lane_math(LANE_OPS))
    assert shared.memo  # the caller's memo was filled: one per file, shared by the rules


def test_the_operand_is_read_whole() -> None:
    # names with `_`, a member (`threadIdx.x`), a subscripted array, a name ending in a capital X
    # (a blank-skipping bug would eat it); `ids[0]` and `lane_id` are thread indices, `id` is not
    code = ("__global__ void k(int* out) {\n"
            "  int lane_id = threadIdx.x;\n  int id = 0;\n  int ids[2];\n  ids[0] = threadIdx.x;\n"
            "  int tidX = threadIdx.x;\n"
            "  out[0] = lane_id % 32;\n  out[1] = threadIdx.x % 32;\n  out[2] = ids[0] % 32;\n"
            "  out[3] = tidX % 32;\n  out[4] = id % 32;\n}\n")
    assert where(code, warp.lane_math(code)) == [
        lane(7, "% 32;", "% 32"), lane(8, "% 32;", "% 32"), lane(9, "% 32;", "% 32"), lane(10, "% 32;", "% 32")]


def test_blanks_between_operand_operator_and_number_are_spaces_or_tabs() -> None:
    code = "__global__ void k(int* o) {\n  int t = threadIdx.x;\n  o[0] = t\t% 32;\n  o[1] = t %\t32;\n}\n"
    assert where(code, warp.lane_math(code)) == [lane(3, "% 32;", "% 32"), lane(4, "%\t32;", "% 32")]


def test_a_name_is_a_whole_word() -> None:
    # `my_t`, `s.t`, `p->t` and `at` are other names than `t` (a parameter here): their assignments do
    # not count
    code = ("__global__ void k(int* o, int t, S s, S* p) {\n  int at = threadIdx.x;\n  int my_t = threadIdx.x;\n"
            "  s.t = threadIdx.x;\n  p->t = threadIdx.x;\n  o[0] = t % 32;\n}\n")
    assert list(warp.lane_math(code)) == []


def test_an_operator_right_after_another_operator_character_is_part_of_it() -> None:
    # `nwarps = width_v<64>/32`: the `/` follows a template's `>`, so `>/` is not read as `/ 32` on `>`
    code = "void f() {\n  int nwarps = width_v<64>/32;\n}\n"
    assert list(warp.lane_math(code)) == []


def test_parenthesised_operands_are_read_whole() -> None:
    # the last name of the group (`t` in `(n + t)`), a call inside it, and a group or member chain at
    # offset 0; `t-n % 32` is `t - (n % 32)`: the operand is `n`
    code = ("__global__ void k(int* o, int n) {\n  int t = threadIdx.x;\n  o[0] = (n + t) % 32;\n"
            "  o[1] = (t + f(n)) % 32;\n  o[2] = t-n % 32;\n}\n")
    assert where(code, warp.lane_math(code)) == [lane(3, "% 32;", "% 32"), lane(4, "% 32;", "% 32")]
    for fragment in ("(threadIdx.x + 1) % 32;\n", "threadIdx.x % 32;\n"):
        assert where(fragment, warp.lane_math(fragment)) == [lane(1, "% 32;", "% 32")]


def test_an_unbalanced_parenthesis_is_no_operand() -> None:
    code = "int t = threadIdx.x;\nint a = t) % 32;\n"
    assert list(warp.lane_math(code)) == []


def test_less_than_32_is_the_last_warp_only_when_a_shuffle_follows() -> None:
    code = ("__device__ float red(float v, int n, int* o) {\n  int t = threadIdx.x;\n"
            "  if (t < 32) v += __shfl_down_sync(~0ull, v, 1);\n"
            "  if (n < 32) v += __shfl_down_sync(~0ull, v, 2);\n"
            "  if (t < 32) o[0] = 0;\n  o[1] = t % 32;\n  return v;\n}\n")
    assert where(code, warp.lane_math(code)) == [lane(3, "< 32) v += __shfl_down_sync(~0ull, v, 1);", "< 32"),
                                                 lane(6, "% 32;", "% 32")]


@pytest.mark.parametrize("gap, found", [(0, True), (1, False)])
def test_the_shuffle_after_less_than_32_is_looked_for_in_600_characters(gap: int, found: bool) -> None:
    head = "int t = threadIdx.x;\nif (t < 32) {"
    call = "v = __shfl_down_sync(m, v, 1); }\n"
    # the match `shfl_down_sync(` ends exactly 600 characters after `32` (gap 0), or 601
    pad = 600 + gap - (len(head) - (head.index("32") + 2)) - len("v = __shfl_down_sync(")
    code = head + " " * pad + call
    assert code.index("shfl_down_sync(") + len("shfl_down_sync(") - (code.index("32") + 2) == 600 + gap
    assert bool(list(warp.lane_math(code))) is found


def test_a_warp_count_by_its_name() -> None:
    # not derived from threadIdx, but stored in a variable counting warps: `/ 32` and `>> 5` only; the
    # name must be the one this statement assigns (not one from before `;`, `{` or the line break)
    code = ("void f(int n) {\n  int num_warps = n / 32;\n  int nwarps = n >> 5;\n  int warps = n % 32;\n"
            "  int blocks = n / 32;\n  int num_warps2 = 4; use(n / 32);\nwarp_count = n / 32;\n"
            "  int nwarpsX = n / 32;\n"
            "  if ((nwarps = count()) > 0) { use(n / 32); }\n#define SET_WARPS nwarps = 4\n  use(n / 32);\n}\n")
    # (`warp_count` starts its line: the name is read from the line's first character)
    assert where(code, warp.lane_math(code)) == [lane(2, "/ 32;", "/ 32"), lane(3, ">> 5;", ">> 5"),
                                                 lane(7, "/ 32;", "/ 32"), lane(8, "/ 32;", "/ 32")]


def test_lane_bits() -> None:
    code = ("__global__ void k(unsigned* out) {\n  int lane = threadIdx.x & 31;\n  int n = 3;\n"
            "  out[0] = 31 << lane;\n  out[1] = 1u << lane;\n  out[2] = 1 << n;\n  out[3] = x1 << lane;\n"
            "  out[4] = 1U << (lane);\n}\n")
    assert where(code, warp.lane_math(code)) == [
        lane(2, "& 31;", "& 31"), shift(5, "1u << lane;", "lane"), shift(8, "1U << (lane);", "lane")]


def test_every_root_is_a_thread_index() -> None:
    roots = ("threadIdx.x", "blockDim.x", "__lane_id()", "__lanemask_lt()", "laneid", "tile.thread_rank()")
    code = "".join(f"__device__ void k{i}(int* o) {{\n  int v = {r};\n  o[0] = v % 32;\n}}\n"
                   for i, r in enumerate(roots))
    assert [h[0] for h in where(code, warp.lane_math(code))] == [3, 7, 11, 15, 19, 23]


def test_a_name_inside_a_word_at_offset_1() -> None:
    # `at` (offset 0) is assigned, not `t`: the `t` at offset 1 follows a word character
    assert list(warp.lane_math("at = threadIdx.x;\nint l = t % 32;\n")) == []


def test_the_function_is_the_text_since_the_last_closing_line() -> None:
    # c's `t` is its parameter: b's assignment, between the first and the last `}` line before it, is
    # another function's
    code = ("__global__ void a() {\n}\n__global__ void b(int* o) {\n  int t = threadIdx.x;\n  o[0] = t;\n}\n"
            "__global__ void c(int* o, int t) {\n  o[0] = t % 32;\n}\n")
    assert list(warp.lane_math(code)) == []


def test_a_file_without_a_final_line_break() -> None:
    # the name at offset 0 has no word before it, whatever the file's last character is
    code = "t = threadIdx.x;\nint l = t % 32 + t"
    assert where(code, warp.lane_math(code)) == [lane(2, "% 32 + t", "% 32")]


def test_a_block_index_is_no_lane_even_next_to_a_variable_named_x() -> None:
    code = "__global__ void k(int* o) {\n  float x = threadIdx.y;\n  int b = blockIdx.x;\n  o[0] = b % 32;\n}\n"
    assert list(warp.lane_math(code)) == []


# --- derivation: scope and hops ---------------------------------------------------------------------

def test_a_name_is_followed_within_its_function_only() -> None:
    code = ("__global__ void a(int* o) {\n  int lane = threadIdx.x;\n  o[0] = lane;\n}\n"
            "__global__ void b(int* o) {\n  o[1] = 0;\n}\n"
            "__global__ void c(int* o, int lane) {\n  o[2] = lane % 32;\n}\n"
            "__global__ void d(int* o, int t) {\n  o[3] = t % 32;\n}\n"
            "__global__ void e(int* o) {\n  int t = threadIdx.x;\n  o[4] = t % 32;\n}\n")
    assert [h[0] for h in where(code, warp.lane_math(code))] == [16]


def test_the_first_function_and_a_fragment_at_offset_0() -> None:
    first = "__global__ void a(int* o) {\n  int t = threadIdx.x;\n  o[0] = t % 32;\n}\n__global__ void b() {\n}\n"
    fragment = "t = threadIdx.x;\nint l = t % 32;\n"
    assert [h[0] for h in where(first, warp.lane_math(first))] == [3]
    assert where(fragment, warp.lane_math(fragment)) == [lane(2, "% 32;", "% 32")]


def test_a_one_line_kernel_without_a_closing_line() -> None:
    code = "__global__ void k(int* o) { int t = threadIdx.x; o[0] = t % 32; }"
    assert [h[0] for h in where(code, warp.lane_math(code))] == [1]


@pytest.mark.parametrize("hops, found", [(4, True), (5, False)])
def test_assignments_are_followed_three_hops(hops: int, found: bool) -> None:
    # t0 = threadIdx.x; t1 = t0; ...: the operand t{hops-1} needs hops-1 more names to reach the root
    chain = "".join(f"  int t{i} = {'threadIdx.x' if i == 0 else f't{i - 1}'};\n" for i in range(hops))
    code = f"__global__ void k(int* o) {{\n{chain}  o[0] = t{hops - 1} % 32;\n}}\n"
    assert bool(list(warp.lane_math(code))) is found


def test_a_name_known_to_hold_a_lane_counts_at_any_depth() -> None:
    # the hop limit bounds the search, not the answer: once `t1` is known (from `t1 % 32`), `t4`,
    # four hops from the root but three from `t1`, is a lane index too
    chain = "".join(f"  int t{i} = {'threadIdx.x' if i == 0 else f't{i - 1}'};\n" for i in range(5))
    code = f"__global__ void k(int* o) {{\n{chain}  o[0] = t1 % 32;\n  o[1] = t4 % 32;\n}}\n"
    assert [h[0] for h in where(code, warp.lane_math(code))] == [7, 8]


def test_cycles_and_scaled_or_indexed_roots_are_no_lanes() -> None:
    code = ("__global__ void k(int* o, const int* x) {\n  int a = b;\n  int b = a;\n  int i = 4 * threadIdx.x;\n"
            "  int q = x[threadIdx.x];\n  int r = f(threadIdx.x);\n"
            "  o[0] = a % 32 + i % 32 + q % 32 + r % 32;\n}\n")
    assert list(warp.lane_math(code)) == []


# --- warp-width constants ---------------------------------------------------------------------------

def const(line: int, at: str, name: str, value: str) -> tuple:
    what = "log2 of a 32-lane warp" if value == "5" else "a 32-lane warp width"
    return (line, at, "warp-size-literal", f"{name} = {value} is used as {what} (lane math, shuffle width or shuffle "
            "loop); gfx942/gfx950 wavefronts have 64 lanes",
            f"derive it from warpSize at run time or a per-architecture constant (64 on CDNA); {EMULATE}", name)


def test_constants_equal_to_32_or_5_at_their_definition() -> None:
    code = ("#define WARP 32\n#define LOG_WARP 5\n#define HALF (16)\nconstexpr int kW = 32;\nconst int kL =5;\n"
            "const int kP = (32);\nconst int kX = x + 32;\nconst float kF = 0.5;\nint f(32);\n")
    assert where(code, (h for h, _name in warp.warp_constants(code))) == [
        const(1, "WARP 32", "WARP", "32"), const(2, "LOG_WARP 5", "LOG_WARP", "5"),
        const(4, "kW = 32;", "kW", "32"), const(5, "kL =5;", "kL", "5"), const(6, "kP = (32);", "kP", "32")]
    assert [name for _h, name in warp.warp_constants(code)] == ["WARP", "LOG_WARP", "kW", "kL", "kP"]
    assert warp.constant_names(code) == {"WARP", "LOG_WARP", "kW", "kL", "kP"}


@pytest.mark.parametrize("code, names", [
    ("#define W 32\n", {"W"}),  # a file without the digit 5 (the fast path must not skip it)
    ("#define L 5\n", {"L"}),  # nor one without 32
    ("const int W = 32;\n", {"W"}),
    ("constexpr int L = 5;\n", {"L"}),
    ("#define W 64\nconst int X = 16;\n", set()),
])
def test_constant_names_with_one_digit_string_only(code: str, names: set[str]) -> None:
    assert warp.constant_names(code) == names
    assert {name for _h, name in warp.warp_constants(code)} == names


def test_constant_initialisers_brace_and_tab() -> None:
    code = "constexpr int kW{32};\nconst int kT =\t32;\n"
    assert [name for _h, name in warp.warp_constants(code)] == ["kW", "kT"]


def test_values_that_are_no_initialisers_do_not_stop_the_search() -> None:
    code = "const int a = x + 32;\nconst float f = 0.5;\nint g = f(32);\nconstexpr int W = 32;\n"
    assert [name for _h, name in warp.warp_constants(code)] == ["W"]


@pytest.mark.parametrize("width, found", [(120, True), (121, False)])
def test_const_is_looked_for_in_the_120_characters_before_the_value(width: int, found: bool) -> None:
    name = "W" * (width - len("const int  = "))
    code = f"x; const int {name} = 32;\n"
    assert code.index("32") - code.index("const") == width
    assert bool(warp.warp_constants(code)) is found


def test_a_constant_at_the_start_of_a_file() -> None:
    assert [name for _h, name in warp.warp_constants("const int W = 32;")] == ["W"]


# --- width uses -------------------------------------------------------------------------------------

@pytest.mark.parametrize("code, candidates, names", [
    ("__global__ void k(int* o) {\n  o[0] = threadIdx.x / W;\n  o[1] = threadIdx.x >> L;\n  o[2] = n % M;\n}\n",
     None, {"W", "L"}),
    ("__global__ void k(int* o) {\n  o[0] = threadIdx.x / W;\n  o[1] = threadIdx.x >> L;\n}\n",
     frozenset({"W"}), {"W"}),
    ("__global__ void k(int* o) {\n  o[0] = threadIdx.x / W;\n}\n", frozenset(), set()),
    ("__device__ float r(float v, int o) {\n  return __shfl_xor_sync(m, v, o, W);\n}\n", None, {"W"}),
    ("__device__ float r(float v, int o) {\n  return __shfl_xor_sync(m, v, o, W);\n}\n", frozenset(), set()),
    ("__device__ float r(float v) {\n  for (int o = W / 2; o > 0; o >>= 1) v += __shfl_xor_sync(m, v, o);\n"
     "  for (int i = 0; i < N; i++) v += __shfl_down_sync(m, v, i);\n  return v;\n}\n", None, {"W", "N", "o", "i"}),
])
def test_width_names(code: str, candidates: frozenset[str] | None, names: set[str]) -> None:
    assert warp.width_names(code, None, candidates) == names
    assert warp.width_names(code, warp.Derivation(code), candidates) == names


def test_width_uses_are_scoped_to_the_function() -> None:
    code = ("__global__ void a(int* o) {\n  int t = threadIdx.x;\n  o[0] = t;\n}\n"
            "__global__ void b(int* o, int t) {\n  o[0] = t / W;\n}\n")
    assert warp.width_names(code) == set()


def test_a_width_use_on_a_name_in_the_first_of_two_functions() -> None:
    code = ("__global__ void a(int* o) {\n  int t = threadIdx.x;\n  o[0] = t / W;\n}\n"
            "__global__ void b(int* o) {\n  o[0] = 0;\n}\n")
    assert warp.width_names(code) == {"W"}


def test_a_tile_loop_is_no_warp_width_loop() -> None:
    # cooperative groups' tile.shfl_down spans the tile: its loop bound is the tile's size, not the warp's
    tile = "__device__ float r(float v) {\n  for (int o = T / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);\n"
    code = tile + " " * 320 + "\n  return __shfl_sync(m, v, 0);\n}\n"
    assert warp.width_names(code) == set()


# --- shuffle widths and loops -----------------------------------------------------------------------

def width32(line: int, at: str, func: str) -> tuple:
    return (line, at, "warp-size-literal", f"{func} with width 32: on a 64-lane wavefront it shuffles within halves, "
            "so a 'whole warp' reduction covers 32 of 64 lanes", f"use warpSize as the width; {EMULATE}", "")


def loop32(line: int, at: str) -> tuple:
    return (line, at, "warp-size-literal", "shuffle loop over 32 lanes (offset 16 / bound 32): on a 64-lane "
            "wavefront lanes 32-63 never join the reduction", f"start at warpSize / 2 (or loop to warpSize); {EMULATE}",
            "")


def test_shuffle_widths_and_loops() -> None:
    code = ("__device__ float r(float v) {\n  v += __shfl_xor_sync(~0ull, v, 1, 32);\n"
            "  v += __shfl_sync(~0ull, f(v), 0, 32);\n  v += __shfl_down(v, 1, 16);\n"
            "  for (int o = 16; o > 0; o /= 2) v += tile.shfl_down(v, o);\n"
            "  for (int i = 1; i < 32; i *= 2) v += __shfl_up_sync(~0ull, v, i);\n  return v;\n}\n")
    assert where(code, warp.shuffle_widths(code)) == [
        width32(2, "__shfl_xor_sync(~0ull, v, 1, 32);", "__shfl_xor_sync"),
        width32(3, "__shfl_sync(~0ull, f(v), 0, 32);", "__shfl_sync"),
        loop32(5, "for (int o = 16; o > 0; o /= 2) v += tile.shfl_down(v, o);"),
        loop32(6, "for (int i = 1; i < 32; i *= 2) v += __shfl_up_sync(~0ull, v, i);")]


@pytest.mark.parametrize("gap, found", [(0, True), (1, False)])
def test_a_shuffle_call_is_read_up_to_400_characters(gap: int, found: bool) -> None:
    # the closing parenthesis 399 characters after the opening one (gap 0) is read; 400 is not
    tail = ", 0, 32)"
    call = "__shfl_sync(~0ull, v" + " " * (399 + gap - len("(~0ull, v") - len(tail) + 1) + tail
    assert call.index(")") - call.index("(") == 399 + gap
    code = "__device__ float r(float v) {\n  return " + call + ";\n}\n"
    assert bool(list(warp.shuffle_widths(code))) is found


def test_touching_windows_are_merged() -> None:
    # the loop's header holds a shuffle; the body's shuffle is exactly 300 characters after it, so the
    # two 300-character windows touch: merged, they hold the whole header
    head = "{\n  for (int o = 16; o > 0; o = __shfl_xor_sync(~0ull, o, 1) / 2) {"
    pad = head.index("shfl") + 300 - len(head) - len("v += __")
    code = head + " " * pad + "v += __shfl_down_sync(~0ull, v, o); }\n}\n"
    assert code.index("shfl_down") - code.index("shfl_xor") == 300
    assert [h[1] for h in where(code, warp.shuffle_widths(code))] == [code.split("\n")[1].lstrip()]


def test_a_loop_after_the_last_shuffle_is_no_shuffle_loop() -> None:
    code = "v = __shfl_down_sync(~0ull, v, 1);\nfor (int i = 0; i < 32; i++) out[i] = 0;\n"
    assert list(warp.shuffle_widths(code)) == []


def test_a_loop_at_offset_0() -> None:
    code = "for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(~0ull, v, o);\n"
    assert where(code, warp.shuffle_widths(code)) == [loop32(1, code.rstrip("\n"))]


@pytest.mark.parametrize("gap, found", [(0, True), (1, False)])
def test_a_shuffle_loop_starts_within_300_characters_of_the_shuffle(gap: int, found: bool) -> None:
    # the shuffle starts 300 characters after the `for` (gap 0), or 301
    head = "{\n  for (int o = 16; o > 0; o /= 2) {"
    pad = head.index("for") + 300 + gap - len(head) - len("v += __")
    code = head + " " * pad + "v += __shfl_down_sync(~0ull, v, o); }\n}\n"
    assert code.index("shfl") - code.index("for") == 300 + gap  # `shfl(`: any shuffle
    assert bool(list(warp.shuffle_widths(code))) is found


# --- masks --------------------------------------------------------------------------------------------

def mask_lit(line: int, at: str, func: str, arg: str) -> tuple:
    return (line, at, "warp-mask-32bit", f"{func} with a 32-bit mask ({arg}): ROCm 7's amd_warp_sync_functions.h "
            "static_asserts a 64-bit mask, so this does not compile; on CUDA it also covers only 32 lanes",
            "use a 64-bit mask: __activemask() or ~0ull (uint64_t)", func)


def mask_const(line: int, at: str, name: str, func: str) -> tuple:
    return (line, at, "warp-mask-32bit", f"{name} is a 32-bit full lane mask passed to {func}: ROCm 7's "
            "amd_warp_sync_functions.h static_asserts a 64-bit mask, so this does not compile",
            "make the mask 64-bit (0xffffffffffffffffull)", func)


def mask_var(line: int, at: str, func: str, name: str) -> tuple:
    return (line, at, "warp-mask-32bit", f"{func} with mask {name} held in a 32-bit variable: ROCm 7's "
            "amd_warp_sync_functions.h static_asserts a 64-bit mask, so this does not compile",
            "declare the mask uint64_t (unsigned long long)", func)


def test_masks_literal_constant_and_variable() -> None:
    code = ("#define FULL 0xffffffff\n__device__ float r(float v) {\n  unsigned mask = 0xffffffff;\n"
            "  unsigned Mask2 = 0xffffffffu;\n  uint64_t wide = ~0ull;\n"
            "  v += __shfl_sync(0xffffffff, v, 0);\n  v += __shfl_sync(FULL, v, 0);\n"
            "  v += __shfl_down_sync(FULL, v, 1);\n"
            "  v += __shfl_sync(mask, v, 0);\n  v += __shfl_sync(Mask2, v, 0);\n  v += __shfl_sync(wide, v, 0);\n"
            "  v += __shfl_sync(m.bits, v, 0);\n  return v;\n}\n")
    assert where(code, warp.masks(code)) == [
        mask_lit(6, "__shfl_sync(0xffffffff, v, 0);", "__shfl_sync", "0xffffffff"),
        mask_const(1, "FULL 0xffffffff", "FULL", "__shfl_sync"),
        mask_var(9, "__shfl_sync(mask, v, 0);", "__shfl_sync", "mask"),
        mask_var(10, "__shfl_sync(Mask2, v, 0);", "__shfl_sync", "Mask2")]


def test_a_mask_without_syncwarp_in_the_file() -> None:
    code = "__device__ float r(float v) { return __any_sync(0xffffffff, v > 0); }\n"
    assert [h[1] for h in where(code, warp.masks(code))] == ["__any_sync(0xffffffff, v > 0); }"]
    assert list(warp.masks("__device__ int r() { return 0xffffffff; }\n")) == []


# --- ballots ------------------------------------------------------------------------------------------

def ballot_decl(line: int, at: str, func: str) -> tuple:
    return (line, at, "ballot-32bit", f"{func} result stored in a 32-bit integer: on a 64-lane wavefront it returns "
            "64 bits (unsigned long long) and lanes 32-63 are dropped",
            f"store it in uint64_t and use __popcll/__ffsll; {EMULATE}", "")


def ballot_later(line: int, at: str, func: str, target: str) -> tuple:
    return (line, at, "ballot-32bit", f"{func} result assigned to {target}, declared as a 32-bit integer: lanes "
            "32-63 of a 64-lane wavefront are dropped", f"declare {target} uint64_t; {EMULATE}", "")


def popc(line: int, at: str, func: str) -> tuple:
    return (line, at, "ballot-32bit", f"{func} on a ballot/activemask: the 32-bit intrinsic sees lanes 0-31 only of "
            "a 64-lane wavefront's mask", f"use {func}ll on the 64-bit mask; {EMULATE}", "")


ACTIVEMASK = (1, "__activemask() returns a 64-bit mask on AMD", "keep it in uint64_t; loop to warpSize, not 32", "")


def test_ballots_declared_assigned_and_counted() -> None:
    code = ("__global__ void k(const float* x, int* o, int n) {\n  float v = x[0];\n  unsigned a = __ballot(v > 0);\n"
            "  unsigned b;\n  b = __ballot_sync(~0ull, v > 1);\n  uint64_t c = __ballot(v > 2);\n"
            "  o[0] = __popc(c);\n  o[1] = __ffs(__ballot(v > 3));\n  o[2] = __popc(n);\n"
            "  o[4] = __clz(c) + __brev(b);\n}\n")
    assert where(code, warp.ballots(code)) == [
        ballot_decl(3, "unsigned a = __ballot(v > 0);", "__ballot"),
        ballot_later(5, "__ballot_sync(~0ull, v > 1);", "__ballot_sync", "b"),
        popc(7, "__popc(c);", "__popc"), popc(8, "__ffs(__ballot(v > 3));", "__ffs"),
        popc(10, "__clz(c) + __brev(b);", "__clz"), popc(10, "__brev(b);", "__brev")]


def test_a_declaration_at_column_0_and_what_a_count_reads() -> None:
    # __popc reads its argument list up to the first `)`: `n | c` counts c, `__popc(n) + c` does not
    code = ("__device__ void k(float v, int* o, int n) {\nunsigned a = __ballot(v > 0);\n"
            "  uint64_t c = __ballot(v > 1);\n  o[0] = __popc(n | c);\n  o[1] = __popc(n) + c;\n}\n")
    assert where(code, warp.ballots(code)) == [ballot_decl(2, "unsigned a = __ballot(v > 0);", "__ballot"),
                                               popc(4, "__popc(n | c);", "__popc")]


def test_activemask_alone_in_a_file() -> None:
    code = "__device__ void k(unsigned long long* o) {\n  uint64_t m = __activemask();\n  o[0] = m;\n}\n"
    assert where(code, warp.ballots(code)) == [(2, "__activemask();", "activemask", *ACTIVEMASK[1:])]


def test_a_count_reads_its_own_statement() -> None:
    # __popc(x) is followed by a ballot in the next statement: not a count of it
    code = "__device__ void k(int* o, float v, int n) {\n  o[0] = __popc(n); uint64_t b = __ballot(v > 0);\n}\n"
    assert list(warp.ballots(code)) == []


@pytest.mark.parametrize("gap, found", [(0, True), (1, False)])
def test_a_count_without_a_semicolon_reads_200_characters(gap: int, found: bool) -> None:
    # a macro body has no `;`: the ballot must start within the next 200 characters
    head = "#define COUNT(v) __popc("
    code = head + " " * (200 - len("__ballot(") + gap) + "__ballot(v))\n"
    assert bool(list(warp.ballots(code))) is found


# --- statements wrapped across lines (clang-format's style), and derivations in any order ----------

def test_a_ballot_declaration_wrapped_before_the_call() -> None:
    code = ("__global__ void k(float v, int* o) {\n  unsigned mask =\n      __ballot_sync(~0ull, v > 0);\n"
            "  o[0] = mask;\n}\n")
    assert where(code, warp.ballots(code)) == [ballot_decl(2, "unsigned mask =", "__ballot_sync")]


def test_an_assignment_wrapped_before_its_equals_sign() -> None:
    code = ("__global__ void k(float v, int* o) {\n  unsigned votes;\n  votes\n      = __ballot_sync(~0ull, v > 0);\n"
            "  o[0] = votes;\n}\n")
    assert where(code, warp.ballots(code)) == [
        ballot_later(4, "__ballot_sync(~0ull, v > 0);", "__ballot_sync", "votes")]
    # a statement ending the previous line is not read for the name (`x = 4;` then a call)
    other = "void f(float v) {\n  int x = 4;\n  use(__ballot_sync(~0ull, v > 0));\n}\n"
    assert warp._assigned_name(other, other.index("__ballot")) == ""


def test_a_constant_whose_value_is_on_the_next_line() -> None:
    code = "const int kWarp =\n    32;\n__global__ void k(int* o) { o[threadIdx.x % kWarp] = 1; }\n"
    assert [name for _h, name in warp.warp_constants(code)] == ["kWarp"]
    assert warp.constant_names(code) == {"kWarp"}


@pytest.mark.parametrize("first", ["a", "b"])
def test_a_derivation_does_not_depend_on_which_name_is_asked_first(first: str) -> None:
    # `b = a` and `a = b` form a cycle; `a = threadIdx.x` makes both lanes, whichever is asked first
    code = ("__device__ void k(int* o) {\n  int a, b;\n  a = b;\n  b = a;\n  a = threadIdx.x;\n"
            "  o[b % 32] = a % 32;\n}\n")
    d = warp.Derivation(code)
    scope = d.scope(code.index("o[b"))
    other = "b" if first == "a" else "a"
    assert d.name(first, scope, 0) is True
    assert d.name(other, scope, 0) is True


@pytest.mark.parametrize("gap, found", [(0, True), (1, False)])
def test_a_wrapped_declaration_is_read_within_400_characters_of_the_call(gap: int, found: bool) -> None:
    head = "__global__ void k(float v, int* o) {\n  unsigned mask ="
    call = "__ballot_sync(~0ull, v > 0);\n  o[0] = mask;\n}\n"
    # `unsigned` starts exactly WRAP_WINDOW characters before the call (gap 0), or one more
    pad = warp.WRAP_WINDOW + gap - len("unsigned mask =")
    code = head + "\n" + " " * (pad - 1) + call
    assert code.index("__ballot_sync") - code.index("unsigned") == warp.WRAP_WINDOW + gap
    assert bool([h for h in warp.ballots(code) if h[1] == "ballot-32bit"]) is found


def test_a_constant_on_the_next_line_of_a_crlf_file() -> None:
    code = "const int kWarp =\r\n    32;\r\n__global__ void k(int* o) { o[threadIdx.x % kWarp] = 1; }\r\n"
    assert [name for _h, name in warp.warp_constants(code)] == ["kWarp"]


def test_no_answer_cut_by_one_cycle_is_kept_after_another_cycle_was_cut() -> None:
    # two independent cycles: the first question cuts one, the second must still not cache `d`
    code = ("__device__ void k(int* o) {\n  int a, b, c, d;\n  a = b;\n  b = a;\n  a = threadIdx.x;\n"
            "  c = d;\n  d = c;\n  c = threadIdx.y;\n  o[d % 32] = b % 32;\n}\n")
    d = warp.Derivation(code)
    scope = d.scope(code.index("o[d"))
    assert d.name("a", scope, 0) and d.name("c", scope, 0)
    assert d.name("d", scope, 0) and d.name("b", scope, 0)


MASKED_VOTE = """#define PIVOT_MASK 0x55555554
__global__ void find(const unsigned* keys, unsigned key, int* found) {
  int lane = threadIdx.x % 32;
  unsigned k = keys[blockIdx.x * blockDim.x + threadIdx.x];
  bool exists = __ballot_sync(~0ull, k == key) & PIVOT_MASK;
  if (exists && lane == 0) atomicAdd(found, 1);
}
"""


def test_a_ballot_masked_to_32_bits_into_a_bool(tmp_path) -> None:
    """`bool b = __ballot_sync(...) & MASK32;` keeps lanes 0-31 only: at 64 lanes the upper half
    reads the lower half's vote (named at the declaration). Shifted by the half's base lane first,
    each half reads its own bits: quiet."""
    from porting.audit.scan import audit_paths

    (tmp_path / "vote.cu").write_text(MASKED_VOTE)
    vote = "__ballot_sync(~0ull, k == key)"
    (tmp_path / "half.cu").write_text(MASKED_VOTE.replace(f"{vote} &", f"({vote} >> (threadIdx.x & 32)) &"))
    found = {(f.path.rsplit("/", 1)[-1], f.line) for f in audit_paths([tmp_path], jobs=1).findings
             if f.rule == "ballot-32bit"}
    assert found == {("vote.cu", 5)}
