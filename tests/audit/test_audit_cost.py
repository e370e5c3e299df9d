"""Issue 26's speed-ups change no answer: the rewritten scanners against the character loops they
replaced, on random texts made of the characters that matter (seeded, so a failure reproduces)."""

from __future__ import annotations

import random
import re

from porting.audit import checks, model, warp
from porting.audit.mask import Masked, mask
from porting.walk import read_regular


def _split_args_by_char(args: str) -> list[str]:
    """warp.split_args (model._split_args before) as it was: one step per character."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in args:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return out if args.strip() else []


def _call_args_by_char(code: str, open_at: int) -> str:
    """warp._call_args as it was: one step per character, at most 400."""
    depth = 0
    for i in range(open_at, min(len(code), open_at + 400)):
        depth += code[i] == "("
        depth -= code[i] == ")"
        if depth == 0:
            return code[open_at + 1:i]
    return ""


def test_split_args_and_call_args_agree_with_the_character_loops() -> None:
    rng = random.Random(26)
    for _ in range(20000):
        text = "".join(rng.choice("ab ,()[]{}\n") for _ in range(rng.randint(0, 30)))
        assert warp.split_args(text) == _split_args_by_char(text), repr(text)
        at = rng.randint(0, len(text) + 1)
        assert warp._call_args(text, at) == _call_args_by_char(text, at), (repr(text), at)


def test_call_args_stops_after_400_characters() -> None:
    deep = "(" * 300 + "x" + ")" * 300
    for at in range(0, len(deep) + 2, 7):
        assert warp._call_args(deep, at) == _call_args_by_char(deep, at)
    assert warp._call_args("f(" + "a" * 500 + ")", 1) == ""  # the match is past the window
    assert warp._call_args("f(a, (b))", 1) == "a, (b)"


def _line_starts_by_find(text: str) -> list[int]:
    """Masked.line_starts as it was: a str.find loop."""
    starts = [0]
    i = text.find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    return starts


def test_line_starts_agree_with_the_find_loop() -> None:
    rng = random.Random(17)
    for _ in range(20000):
        text = "".join(rng.choice("ab\n\r ") for _ in range(rng.randint(0, 20)))
        assert Masked(text, "").line_starts() == _line_starts_by_find(text), repr(text)


def test_comments_are_still_listed_when_asked() -> None:
    text = 'int a; // one\nchar* s = "/* no */"; /* two\n lines */ int b;\n'
    assert [(c.start, c.text) for c in mask(text, "c").comments] == [(7, "// one"), (36, "/* two\n lines */")]
    assert [c.text for c in mask("let a = 1; // r\n/* n /* e */ */", "rust").comments] == ["// r", "/* n /* e */ */"]


# The second cost pass (after round 8): each rewritten search against the whole-file pattern it
# replaced, kept here as it was.
_OLD_MASK_DEF = re.compile(r"#[ \t]*define[ \t]+(\w+)[ \t]+\(?(?:0[xX][fF]{8}[uU]?|~0[uU]?)\)?[ \t]*$"
                           r"|const(?:expr)?\s+(?:const\s+)?(?:" + warp._INT32 + r")\s+(\w+)\s*=\s*"
                           r"(?:0[xX][fF]{8}[uU]?|~0[uU]?|-1)\s*;", re.MULTILINE)
_OLD_WIDTH_DEFAULT = re.compile(r"\bint\s+width\s*=\s*([A-Za-z_]\w*)")
_OLD_IDENT = re.compile(r"(?:cu(?:da[A-Z]|[A-Z]|blas|sparse|rand|fft|solver|dnn)|CU[a-zA-Z_]|nv(?:rtc|tx|ml|shmemx?_)"
                        r"|NVRTC_|nccl|NCCL_|__nv_)\w*")


def _texts(rng: random.Random, atoms: list[str], n: int = 20000, most: int = 25):
    for _ in range(n):
        yield "".join(rng.choice(atoms) for _ in range(rng.randint(0, most)))


def test_lane_call_and_warpsize_checks_agree_with_whole_file_searches() -> None:
    atoms = ["lane_id()", "LaneId ( )", "__lane_id()", "get_lane_id()", "getLaneId()", "x::lane_id()", "a.lane_id()",
             "_lane_id()", "laneid", "lane", "Lane_Id(", " ", "\n", ";", "(", ")", "ns::", "GET_LANEID()", "1lane_id()",
             "lane_ıd()", "assert(warpSize == 32)", "assert( warpSize==W)", "if (warpSize != 32) __trap();",
             "if(32 != warpSize) return", "warpSize", "{", "}", "assert((W == warpSize) &&", "x.assert(warpSize == 32)"]
    for code in _texts(random.Random(2611), atoms):
        assert warp._lane_call_at_lane(code) == (warp._HW_LANE_CALL.search(code) is not None), repr(code)
        spans = list(warp.statements_with(code, "warpSize"))
        for pattern in (warp._WS_ASSERT, warp._WS_GUARD):
            assert [m.span() for lo, hi in spans for m in pattern.finditer(code, lo, hi)] == [
                m.span() for m in pattern.finditer(code)], repr(code)


def test_mask_defines_and_width_defaults_agree_with_the_old_patterns() -> None:
    atoms = ["int width = W", "xint width = int width = K", "int", " width", "=", " K2", "\n", "_", "é",
             "uint  width=W3", "#define M 0xffffffff", "#define const 0xffffffff", "const int M2 = -1;",
             "constexpr unsigned M3 = ~0u;", "  ", "\t", "#", "define", "const", " x", ";", "0xFFFFFFFF", "(", ")"]
    for code in _texts(random.Random(2612), atoms):
        assert [m.group(1) for m in warp.word_start_matches(warp._WIDTH_DEFAULT, code)] == \
            _OLD_WIDTH_DEFAULT.findall(code), repr(code)
        old = [(m.group(1) or m.group(2), m.start(1) if m.group(1) else m.start(2))
               for m in _OLD_MASK_DEF.finditer(code)]
        assert [(m.group(1), m.start(1)) for m in warp.merged(warp._MASK_DEFS, code)] == old, repr(code)


def test_warp_op_words_and_cuda_names_agree_with_the_old_searches() -> None:
    atoms = ["__shfl", "__ballot", "__any", "__all", "__uni", "__syncwarp", "__reduce_", "__match_", ".shfl", "_", "__",
             "x", "shfl", " ", "a.", "cudaMalloc", "cuInit", "CUresult", "nvtxRange", "NVRTC_X", "ncclAllReduce",
             "NCCL_OK", "__nv_bfloat16", "$", "->", "cu", "nv", "CU_", "é", "1", "::", "cudnnX", "nvshmemx_y"]

    def word_start(code: str, m: re.Match[str]) -> bool:  # checks._identifiers skips the others
        return not (m.start() and (code[m.start() - 1].isalnum() or code[m.start() - 1] in "_$"))

    for code in _texts(random.Random(2613), atoms):
        assert sorted(model._warp_op_words(code)) == sorted(model._occurrences(code, model._WARP_OP_WORDS)), repr(code)
        assert [m.span() for m in warp.merged(checks._IDENT_STARTS, code) if word_start(code, m)] == [
            m.span() for m in _OLD_IDENT.finditer(code) if word_start(code, m)], repr(code)


def test_read_regular_reads_past_a_stale_size_and_keeps_the_limit(tmp_path) -> None:
    status = read_regular("/proc/self/status")  # st_size 0: read on, as when a file grew after fstat
    assert status is not None and b"Name:" in status
    f = tmp_path / "a.cu"
    f.write_bytes(b"x" * 10)
    assert read_regular(f) == b"x" * 10 and read_regular(f, limit=10) == b"x" * 10
    assert read_regular(f, limit=9) is None
    f.write_bytes(b"")
    assert read_regular(f) == b""


def test_last_assignment_agrees_with_finditer() -> None:
    atoms = ["n", "nn", "x.n", "n =", "n==", "n{", "n(", "= 32 *", "m = n * 32", ";", " ", "\n", "_n", "n1", "(", "="]
    for code in _texts(random.Random(2614), atoms):
        for name in ("n", "nn", "n1"):
            found = list(re.finditer(r"(?<![\w.])" + re.escape(name) + r"\s*(?:=(?!=)|\{|\()([^;]*)", code))
            new = model._last_assignment(code, name)
            assert (new and (new.span(), new.group(1))) == (found and (found[-1].span(), found[-1].group(1))) \
                or (new is None and not found), (code, name)


def _word_start_by_char(code: str, floor: int, end: int) -> int:
    """model._name_before_params's walk back over the name as it was: one step per character."""
    j = end
    while j > floor and (code[j - 1].isalnum() or code[j - 1] == "_"):
        j -= 1
    return j


def test_word_start_agrees_with_the_character_loop() -> None:
    rng = random.Random(2615)
    for code in _texts(rng, ["a", "Z", "9", "_", " ", "(", "é", "ß", "٣", "·", "-", "\n"], most=30):
        for _ in range(4):
            end = rng.randint(0, len(code))
            floor = rng.randint(0, end)
            assert model._word_start(code, floor, end) == _word_start_by_char(code, floor, end), (code, floor, end)


def test_word_patterns_agree_with_the_lookbehind_first_ones() -> None:
    """warp.word(name) + tail finds what ``(?<![\\w.])`` + name + tail found, from any start offset
    (the lookbehind still reads the character before it), for names with regex metacharacters too."""
    names = ["block", "b", "x+y", "a.b", "", "é", "WARP_SIZE"]
    atoms = [*names, ".", "x", "_", "1", "é", " ", "\n", "=", "32", ";", "(", ")", "{", "->", "[", "]", "*"]
    tails = [r"\s*=(?!=)\s*([^;]*);", r"\s*(?:=(?!=)|\{|\()([^;]*)", r"\s*((?:\[[^\]]*\]\s*)+)", ""]
    rng = random.Random(2614)
    for code in _texts(rng, atoms, n=4000):
        name = rng.choice(names)
        tail = rng.choice(tails)
        pos = rng.randint(0, len(code))
        old = re.compile(r"(?<![\w.])" + re.escape(name) + tail)
        new = re.compile(warp.word(name) + tail)
        assert [(m.span(), m.groups()) for m in new.finditer(code, pos)] == [
            (m.span(), m.groups()) for m in old.finditer(code, pos)], (name, tail, pos, code)


def test_warpsize_check_patterns_agree_with_the_lookbehind_first_ones() -> None:
    atoms = ["assert(warpSize == 32)", "assert( warpSize==W)", "if (warpSize != 32) __trap();", "x.assert(",
             "if(32 != warpSize) return", "warpSize", "{", "}", "assert((W == warpSize) &&",
             "_if (warpSize != 32) exit",
             "if (prop.warpSize != 32) { exit(1); }", "if (32 != p->warpSize) fail();", ".if", "é", " ", "\n", ";"]
    pairs = [(warp._WS_ASSERT, r"(?<![\w.])assert\s*"), (warp._WS_GUARD, r"(?<![\w.])if\s*"),
             (warp._WS_REFUSAL, r"(?<![\w.])if\s*")]
    olds = [(new, re.compile(head + new.pattern.split(r"\s*", 1)[1])) for new, head in pairs]
    for code in _texts(random.Random(2615), atoms, n=4000):
        for new, old in olds:
            assert [(m.span(), m.groups()) for m in new.finditer(code)] == [
                (m.span(), m.groups()) for m in old.finditer(code)], (old.pattern, code)


def test_text_caches_answer_as_the_scans_do() -> None:
    """has_lane_call, constant_names and _const_32 are cached per text: a cached answer is the
    scan's, a caller changing the set it got changes no later answer."""
    atoms = ["lane_id()", "LaneId()", "laneid", "lane_ıd()", "LANE_ID()", "x", " ", "\n", ";", "getLaneId()",
             "#define W 32\n", "const int K = 32;", "constexpr int L = 5;", "enum { E = 32 };", "32", "5"]
    for code in _texts(random.Random(2616), atoms, n=3000):
        gate = "ane_id" in code or "aneId" in code or "aneid" in code
        assert warp.has_lane_call(code) == (gate and warp._HW_LANE_CALL.search(code) is not None), repr(code)
        first = warp.constant_names(code)
        first.add("NOT_A_NAME")
        assert "NOT_A_NAME" not in warp.constant_names(code)
        found = warp._const_32(code)
        found.append((0, "X", "32"))
        assert warp._const_32(code) == found[:-1]


def test_anchored_matches_agree_with_finditer() -> None:
    """model._CUB_WARP found from its literal ("cub::Warp") finds what finditer found, overlapping
    occurrences and a `hip` prefix after a word character included."""
    atoms = ["1", "1u", "1U", "u", " ", "\t", "\n", "\u2003", "<<", "<<<", "<<=", "(", "lane", "x1", "_", ";",
             "hip", "xhip", "cub::", "cub::Warp", "WarpReduce", "Scan", "<", ">", "float", "cub::WarpScan<int>",
             "hipcub::WarpReduce<T>(", "::", "é", "ns"]
    for code in _texts(random.Random(2617), atoms, n=6000):
        assert [m.span() for m in warp.anchored_matches(model._CUB_WARP, code, "cub::Warp", model._cub_start)] == [
            m.span() for m in model._CUB_WARP.finditer(code)], repr(code)


# round 12's helper patterns as they were (name first, run over the whole text); round 13 reads
# from the body back to the name (layouts._helpers_in)
_MASKED_LANE_FN = re.compile(r"\b([A-Za-z_]\w*)\s*\(\s*(?:void)?\s*\)\s*\{\s*return\s*\(?\s*threadIdx\.x\s*"
                             r"(?:&\s*\(\s*warpSize\s*-\s*1\s*\)|%\s*warpSize\b)\s*\)?\s*;\s*\}")
_WARP32_FN = re.compile(r"\b([A-Za-z_]\w*)\s*\(\s*(?:void)?\s*\)\s*\{\s*return\s*\(?\s*threadIdx\.x\s*"
                        r"(?:>>\s*5|/\s*32)\s*\)?\s*;\s*\}")


def test_thread_helpers_found_from_their_bodies_as_by_the_whole_text_patterns() -> None:
    from porting.audit import layouts

    rng = random.Random(1326)
    # helper definitions piece by piece, each piece sometimes dropped, doubled or replaced by noise
    pieces = [["int ", "static int ", "9", ""], ["lane", "warp_id", "a_b", "x9"], [" (", "("], ["", "void", " void "],
              [")", ") "], ["\n", " ", ""], ["{"], [" return ", "return"], ["(", ""], ["threadIdx.x", "threadIdx.y"],
              [" & (warpSize - 1)", "&(warpSize-1)", " % warpSize", "% warpSizeX", " >> 5", ">>5", " / 32", " / 320"],
              [")", ""], [";"], [" }", "}"]]
    noise = ["(", ")", "{", "}", ";", " ", "x", "::"]
    hits = 0
    for _ in range(6000):
        out = []
        for _def in range(rng.randint(1, 3)):
            for choices in pieces:
                roll = rng.random()
                piece = rng.choice(choices)
                out.append("" if roll < 0.04 else piece * 2 if roll < 0.06 else rng.choice(noise) if roll < 0.09
                           else piece)
            out.append(rng.choice(["\n", " ", "", ";\n"]))
        text = "".join(out)
        lanes = set(_MASKED_LANE_FN.findall(text))
        warps = set(_WARP32_FN.findall(text))
        hits += bool(lanes or warps)
        assert layouts._helpers_in(text) == (frozenset(lanes), frozenset(warps)), repr(text)
    assert hits > 1000  # the texts do hold helpers: the comparison is not of empty sets
    text = "int lane() { return threadIdx.x & (warpSize - 1); }\nint warp_id(void) { return (threadIdx.x >> 5); }"
    assert layouts._helpers_in(text) == (frozenset({"lane"}), frozenset({"warp_id"}))
