"""Wave64 hazards found by how values are used, not by what they are called.

- lane math: ``& 31``, ``& 0x1f``, ``% 32``, ``/ 32``, ``>> 5``, ``== 31``, ``< 32``, ``1 << lane``
  whose operand derives from ``threadIdx``/``blockDim`` (followed through assignments), or whose
  result is stored in a variable counting warps;
- warp-width constants: a macro or constant equal to 32 (or 5, its log2) used as the warp width
  in lane math, as a shuffle width or as a shuffle loop's bound, whatever its name; reported once,
  at its definition;
- masks: a 32-bit mask (literal, or a constant/variable holding one) passed to a ``*_sync``
  intrinsic: ROCm 7's amd_warp_sync_functions.h static_asserts ``sizeof(mask) == 8``;
- ballots: a ``__ballot*``/``__activemask`` result kept in a 32-bit variable (same line or a later
  assignment) or counted with ``__popc``/``__ffs``.

Every check works on masked code (comments and literal contents blanked) and yields
``(offset, rule, message, suggestion, symbol)``; checks.py turns them into findings.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache

from .tokenize import brace_end

Hit = tuple[int, str, str, str, str]

EMULATE = "confirm with `port emulate SOURCES --warp 32,64`"
_SYNC = (r"__shfl(?:_up|_down|_xor)?_sync|__ballot_sync|__any_sync|__all_sync|__match_any_sync|__match_all_sync"
         r"|__reduce_\w+_sync|__syncwarp|__uni_sync")
_SYNC_CALL = re.compile(r"(" + _SYNC + r")\s*\(\s*([^,()]+?)\s*[,)]")
_MASK32_LIT = re.compile(r"\(?\s*(?:0[xX][fF]{8}[uU]?|~0[uU]?|-1|4294967295[uU]?)\s*\)?\Z")
_LANE_OP = re.compile(r"(%|/|&|>>|==|<)\s*(32|31|0[xX]1[fF]|5)\b(?![.\w])")
# the numbers of a lane operation, one pattern per literal start (see merged): 31/32, 0x1f, 5
_LANE_NUMS = (re.compile(r"3[12](?![\w.])"), re.compile(r"0[xX]1[fF](?![\w.])"), re.compile(r"5(?![\w.])"))
_SHIFT_LANE = re.compile(r"1[uU]?\s*<<\s*\(?\s*([A-Za-z_]\w*)")
_ROOT_WORDS = ("threadIdx", "blockDim", "__lane_id", "__lanemask", "laneid", "thread_rank")
_ROOTS = re.compile(r"\b(?:threadIdx|blockDim|__lane_id|__lanemask\w*|laneid|thread_rank)\b")
_WORDS = re.compile(r"[A-Za-z_]\w*")
_ASSIGN_AT = re.compile(r"\s*(?:\[[^\]\n]*\])?\s*[-+*/%&|^]?=(?!=)([^;{}]*)")
# `i = 4 * threadIdx.x`, `(... + threadIdx.x) * 4`: an element offset (a vector width per thread),
# not a thread or lane index, so `% 32` on it is data layout
_SCALED = re.compile(r"(?<![\w.])\d+[uUlL]*\s*\*(?!\*)|\*\s*\d+[uUlL]*(?![\w.])")
_SUBSCRIPT = re.compile(r"\[[^\[\]]*\]")
_CALL_ARGS = re.compile(r"(?<=[\w>])\s*\([^()]*\)")  # the arguments of f(...) / tpl<T>(...)
_TARGET = re.compile(r"([A-Za-z_]\w*)\s*(?:\[[^\]\n]*\]\s*){0,3}[-+*/%&|^]?=(?!=)[^=]*\Z")
# `words_per_warp`, `bytesPerWarp`: an amount per warp, not a number of warps
_WARP_COUNT_NAME = re.compile(r"(?i)(?<!per_)(?<!per)warps?(?:_?(?:num|count|cnt|per\w*))?$|num_?warps|n_?warps|nwarps")
# two regexes, each starting with a literal, are several times faster than their alternation
_DEFINE_32 = re.compile(r"#[ \t]*define[ \t]+(\w+)[ \t]+\(?[ \t]*(32|5)[uU]?[ \t]*\)?[ \t]*$", re.MULTILINE)
# `const int NAME = 32;` found from the value (digits are rarer than the word const), then checked
_VALUE_32S = (re.compile(r"(32)[uU]?\)?\s*[;},]"), re.compile(r"(5)[uU]?\)?\s*[;},]"))
_CONST_BEFORE = re.compile(r"\bconst(?:expr)?\b[^;=(){}]*?\b([A-Za-z_]\w*)\s*(?:=|\{)\s*\(?\Z")
# looser than _DEFINE_32 (raw text: a comment may follow), it only has to include every definition
_DEFINE_32_LOOSE = re.compile(r"#[ \t]*define[ \t]+(\w+)[ \t]+\(?[ \t]*(?:32|5)[uU]?\b")
_WIDTH_USE = re.compile(r"(%|/|>>)\s*\(?\s*([A-Za-z_]\w*)\b(?!\s*[(.])")
_WIDTH_MASK = re.compile(r"(&)\s*\(\s*([A-Za-z_]\w*)\s*-\s*1[uU]?\s*\)")  # lane = tid & (WARP_SZ - 1)
# `enum { kWarp = 32 }`: an enumerator is a constant of the unit too
_ENUM_BEFORE = re.compile(r"\benum\b[^;{}]*\{[^;{}]*?\b([A-Za-z_]\w*)\s*=\s*\(?\Z")
_LOOP_WIDTH = re.compile(r"=\s*\(?\s*([A-Za-z_]\w*)\s*(?:/\s*2|>>\s*1)\b|<=?\s*([A-Za-z_]\w*)\s*;")
# `int width = NAME` at a word start: the pattern has no leading \b so that the engine jumps from
# one "int" to the next (see word_start_matches) instead of trying \b at every offset
_WIDTH_DEFAULT = re.compile(r"int\s+width\s*=\s*([A-Za-z_]\w*)")
_SHFL = re.compile(r"(__shfl(?:_up|_down|_xor)?(?:_sync)?)\s*\(")
# any shuffle, cooperative groups' tile.shfl_down(...) included: "a shuffle follows"
_ANY_SHFL = re.compile(r"shfl(?:_up|_down|_xor)?(?:_sync)?\s*\(")  # no leading \b: it would disable skipping
_FOR_HEAD = re.compile(r"for\s*\(([^;()]*;[^;()]*;[^()]*(?:\([^()]*\)[^()]*)*)\)")
_LOOP32 = re.compile(r"=\s*16\s*;|<=?\s*32\s*;|<\s*32\b")
_WIDTH32 = re.compile(r",\s*32\s*\Z")
_LAST_ARG = re.compile(r",\s*([A-Za-z_]\w*)\s*\Z")
# a cooperative group's ballot (coalesced_group::ballot, tile.ballot) returns 64 bits on HIP too
# a match mask (__match_any_sync / __match_all_sync) is a wavefront's lane mask too: 64 bits on HIP
_BALLOT = re.compile(r"(__ballot_sync|__ballot|__activemask|__match_any_sync|__match_all_sync|\.ballot)\s*\(")
# `unsigned int x =` is matched by `unsigned\s+int` and also by `int` alone (\b before it): dropping
# either alternative by itself changes nothing (an equivalent mutant); tests/audit/golden/ballot_forms.cu
# fails when both go, or when `unsigned`, `int32_t` or `u32` goes.
_INT32_NAMES = r"unsigned\s+int|unsigned|uint32_t|int32_t|int|u32|uint32|uint"  # uint32: nvbio's typedef
_INT32 = "(?:" + _INT32_NAMES + ")"
_WRAPPED_ASSIGN = re.compile(r"[ \t]*[-+*/%&|^]?=(?!=)")  # a line that starts with `=` / `+=` ...
# `uint32_t e = (__ballot_sync(...)) & MASK`: a parenthesis before the call stores it all the same
_DECL32_BEFORE = re.compile(r"\b" + _INT32 + r"\s+\w+\s*=\s*(?:\(\s*)*\Z")
_MASK_ARG_BEFORE = re.compile(r"(?:" + _SYNC + r")\s*\(\s*\Z")  # `__shfl_sync(` just before a call
_POPC = re.compile(r"(__popc|__ffs|__clz|__brev)\s*\(")
# a 32-bit full mask by name: `#define M 0xffffffff` or `const int M = -1;`, one pattern per literal
# start (see merged: the alternation of the two was tried at every offset, 30x slower); group 1 names it
_MASK_DEFS = (re.compile(r"#[ \t]*define[ \t]+(\w+)[ \t]+\(?(?:0[xX][fF]{8}[uU]?|~0[uU]?)\)?[ \t]*$", re.MULTILINE),
              re.compile(r"const(?:expr)?\s+(?:const\s+)?(?:" + _INT32 + r")\s+(\w+)\s*=\s*"
                         r"(?:0[xX][fF]{8}[uU]?|~0[uU]?|-1)\s*;"))


def word(name: str) -> str:
    r"""``name`` (escaped) where no word character or '.' precedes it, as a pattern that opens with
    the name's literal: the same matches as ``(?<![\w.])`` + name, but the engine jumps from one
    occurrence of the name to the next instead of trying the lookbehind at every offset (a
    pattern that opens with an assertion has no literal prefix to search for)."""
    escaped = re.escape(name)
    return escaped + r"(?<![\w.]" + escaped + ")"


def anchored_matches(pattern: re.Pattern[str], code: str, literal: str,
                     starts: Callable[[str, int], Iterable[int]]) -> Iterator[re.Match[str]]:
    """``pattern.finditer(code)`` for a pattern whose every match holds ``literal``, and can start only
    at one of the offsets ``starts(code, at)`` gives for that literal's occurrence at ``at`` (in
    increasing order, none past ``at``): each candidate is tried with one ``match`` (which reads the
    characters before it, as finditer's lookbehinds and ``\\b`` do) instead of the pattern being tried
    at every offset of the file. A candidate inside the last match is skipped, as finditer skips it."""
    pos = 0
    at = code.find(literal)
    while at >= 0:
        for start in starts(code, at):
            if start >= pos:
                m = pattern.match(code, start)
                if m is not None:
                    yield m
                    pos = m.end()
                    break
        at = code.find(literal, at + 1)


def _after_word(code: str, at: int) -> bool:
    # character sets as tuples, here and below: each member is then a choice a test must make
    return at > 0 and (code[at - 1].isalnum() or code[at - 1] in ("_", "."))


def _left_operand(code: str, at: int) -> str:
    """The expression just left of offset ``at``: a parenthesised group or a name/member chain."""
    # Equivalent mutants: `i > 0` / `i >= 1` for `i >= 0` in the first two tests (a blank or `)` at
    # index 0 has nothing left of it: the operand is empty either way), `i + 2` for `i + 1` in both
    # slices (code[i + 1] is a blank or the operator itself: no name, so no other answer).
    i = at - 1
    while i >= 0 and code[i] in (" ", "\t"):
        i -= 1
    if i >= 0 and code[i] == ")":
        depth = 0
        j = i
        while j >= 0:
            depth += code[j] == ")"
            depth -= code[j] == "("
            if depth == 0:
                return code[j:i + 1]
            j -= 1
        # unbalanced: `)` is no name character, so the loop below stops at once (empty operand)
    j = i
    while j >= 0 and (code[j].isalnum() or code[j] in ("_", ".", "[", "]")):
        j -= 1
    return code[j + 1:i + 1]


def _call_args(code: str, open_at: int) -> str:
    """The text between the parenthesis at ``open_at`` and its match (at most 400 characters)."""
    end = min(len(code), open_at + 400)
    if open_at >= end or code[open_at] not in "()":
        return ""  # (the depth is 0 after the first character: nothing between)
    depth = 0
    # only the parentheses change the depth, so only they are visited (a regex jumps to each)
    for m in _PARENS.finditer(code, open_at, end):
        depth += 1 if m.group() == "(" else -1
        if depth == 0:
            # `open_at - 1`/`+ 2` are equivalent mutants: callers match `, last-argument` at the end;
            # the two characters added (`f(`) hold no comma, the one dropped is a comma only in `f(, x)`
            return code[open_at + 1:m.start()]
    return ""  # "XXXX" is an equivalent mutant: no comma, so neither caller's pattern matches


_PARENS = re.compile(r"[()]")


class Derivation:
    """Which names hold a thread/lane index: asked on demand (per operand the rules meet), by
    following the name's assignments back to threadIdx/blockDim/lane ids, three hops at most.
    Only assignments in the same function are followed (from the last top-level '}' before the
    use), so a name reused by another kernel does not leak. A root inside a subscript or a call's
    arguments is data (``qh = x[threadIdx.x]``), and a scaled one (``4 * threadIdx.x``) an element
    offset: neither is a thread index."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.memo: dict[tuple[str, tuple[int, int]], bool] = {}
        self.active: set[tuple[str, tuple[int, int]]] = set()  # lookups in progress (a cycle)
        self.cut = 0  # lookups answered False only because of a cycle or the hop limit
        self.any_root = any(root in code for root in _ROOT_WORDS)  # str.find: far faster than a \b regex

    def scope(self, at: int) -> tuple[int, int]:
        """The function around offset ``at``: from after the previous top-level '}' to the next."""
        # Equivalent mutants: rfind from None or 1 instead of 0 (a "\n}" at index 0 only moves `lo`
        # over that newline); `hi < 0` as `hi <= 0`/`hi < 1` (hi is 0 only with at == 0, a newline,
        # never an operator) or dropped (an end of -1 cuts the last character: no name occurrence
        # there has an assignment after it).
        lo = self.code.rfind("\n}", 0, at) + 1
        hi = self.code.find("\n}", at)
        return lo, len(self.code) if hi < 0 else hi

    def name(self, name: str, scope: tuple[int, int], depth: int) -> bool:
        if not self.any_root or name in _KEYWORDS:
            return False
        key = (name, scope)
        known = self.memo.get(key)
        if known is not None:
            return known
        if depth > 3 or key in self.active:
            self.cut += 1
            return False
        self.active.add(key)
        cut_before = self.cut
        try:
            found = self._derive(name, scope, depth)
        finally:
            self.active.discard(key)
        # A "no" reached through a cycle or the hop limit depends on where the question started
        # (`a = b; b = a; a = threadIdx.x`: asked first for `a`, `b` would be cut off by the cycle):
        # only answers that hold from anywhere are kept. Equivalent mutants (same answers, less
        # caching or a longer walk): `cut` counting from 1 or by -1/+2 (only a change is read);
        # `cut_before = None` or `found and ...` (no "no" is cached); `active.add(None)` (a cycle
        # then runs to the hop limit, which cuts it the same way).
        if found or self.cut == cut_before:
            self.memo[key] = found
        return found

    def _derive(self, name: str, scope: tuple[int, int], depth: int) -> bool:
        code = self.code
        # dropping scope[1] here is an equivalent mutant: the name is a word of an expression inside
        # the scope, so its first occurrence is inside it too (the next finds below need the bound)
        at = code.find(name, scope[0], scope[1])
        while at >= 0:  # str.find to each occurrence, then one precompiled match: no regex per name
            end = at + len(name)
            # a word character after the name (`t` in `tid`) needs no test: _ASSIGN_AT cannot match there
            whole = not _after_word(code, at) and code[at - 1:at] != ">"
            m = _ASSIGN_AT.match(code, end) if whole else None
            if m is not None and not _SCALED.search(m.group(1)) and self.expr(
                    _unindexed(m.group(1)), scope, depth + 1):
                return True
            at = code.find(name, end, scope[1])
        return False

    def expr(self, expr: str, scope: tuple[int, int], depth: int = 0) -> bool:
        if _ROOTS.search(expr):
            return True
        return any(self.name(w, scope, depth) for w in dict.fromkeys(_WORDS.findall(expr)))

    def at(self, expr: str, offset: int) -> bool:
        """Does ``expr``, written at ``offset``, hold a thread/lane index?"""
        return self.expr(expr, self.scope(offset))


# never a thread index: keywords, casts, and the grid builtins (blockIdx / gridDim are not lanes)
_KEYWORDS = frozenset({"int", "unsigned", "const", "auto", "long", "short", "char", "float", "double", "bool",
                       "static_cast", "reinterpret_cast", "return", "sizeof", "true", "false", "x", "y", "z",
                       "blockIdx", "gridDim", "warpSize", "int64_t", "uint32_t", "int32_t", "uint64_t", "size_t"})


def _unindexed(expr: str) -> str:
    """``expr`` without subscripts and call arguments (casts and plain parentheses kept)."""
    prev = None  # "" is an equivalent mutant: the loop is then skipped only for "", which has nothing to remove
    while prev != expr:
        prev = expr
        expr = _SUBSCRIPT.sub(" ", expr)  # "XX XX": equivalent unless the code has a variable XX holding a lane
        expr = _CALL_ARGS.sub(" ", expr)
    return expr


WRAP_WINDOW = 400  # how far before a call a declaration or assignment wrapped onto lines is read


def _wrap_start(at: int) -> int:
    """Where a statement wrapped across lines is read from. A plain window suffices: the patterns
    read in it (_DECL32_BEFORE, _TARGET) are anchored at the call and cannot reach over a `;`.
    (`max(1, ...)` is an equivalent mutant: a call has a function's text before it.)"""
    return max(0, at - WRAP_WINDOW)


def _assigned_name(code: str, at: int) -> str:
    """The variable a statement containing offset ``at`` assigns to (``int warps = ...``), if any:
    read on the line of ``at``; a line that starts with the assignment (``x\n    = __ballot_sync(...)``,
    wrapped before its ``=``) is read from further back."""
    # rfind from 1 or None instead of 0 is an equivalent mutant: a boundary at index 0 has no name
    # before it; so is dropping one of the boundaries (_TARGET is anchored at the last `=`)
    start = max(code.rfind(c, 0, at) for c in (";", "{", "}", "\n")) + 1
    # matching up to the end instead of `at` is equivalent: the line's blanks and `=` come before `at`
    if _WRAPPED_ASSIGN.match(code, start, at):
        start = _wrap_start(at)
    m = _TARGET.search(code, start, at)
    # "XXXX" is equivalent unless the code names a variable XXXX
    return m.group(1) if m else ""


def merged(patterns: tuple[re.Pattern[str], ...], code: str) -> Iterator[re.Match[str]]:
    """The matches of the alternation of ``patterns`` in order, for patterns that each begin with a
    literal and whose matches share no character that could start another's: the engine jumps
    from one literal to the next instead of trying every offset of the file (2-4x faster)."""
    # sorted() is stable and each pattern's matches come in order, so ties keep the patterns'
    # order, as heapq.merge's do; one C-level sort costs less than merge's generator per match
    return iter(sorted([m for p in patterns for m in p.finditer(code)], key=_START))


_START = operator.methodcaller("start")


def _lane_ops(code: str) -> Iterator[re.Match[str]]:
    """The '<op> <32|31|0x1f|5>' sites: found from the numbers (rarer than operators), then the
    operator just before each is checked."""
    for n in merged(_LANE_NUMS, code):
        if _after_word(code, n.start()):
            continue
        k = n.start() - 1
        # `k > 0`/`k >= 1` are equivalent mutants: when only blanks precede the number from index 0,
        # there is no operator either way
        while k >= 0 and code[k] in (" ", "\t"):
            k -= 1
        m = _LANE_OP.match(code, k - 1 if code[k - 1:k + 1] in (">>", "==") else k)
        if m is None or m.end(2) != n.end():
            continue
        # Dropping '&', '|', '<', '=' or '!' here is an equivalent mutant: after those the operand left
        # of the operator is empty (no thread index), and `/ 32`, `>> 5` (the warp-count forms) cannot
        # follow them in C; '>' can (`width_v<64>/32`), and a test pins it.
        if code[m.start() - 1:m.start()] in ("&", "|", "<", ">", "=", "!"):
            continue  # &&, ||, <<, >>=, ==, != ...
        yield m


_WARP_DIV = re.compile(r"/\s*\(?\s*(?:warpSize|32)\s*\)?\s*\Z")
_IDENT = re.compile(r"[A-Za-z_]\w*")


def _warp_uniform(code: str, name: str, scope: tuple[int, int], depth: int = 0) -> bool:
    """Is ``name`` a warp's index, the same value in every lane of the warp: assigned (in its
    function) a thread index divided by the warp width (``warpId = tid / warpSize``) or a copy of
    such a name (``i = warpId``)? Its `% 32` / `/ 32` then split a row number (bit-packed data),
    not lanes."""
    if depth > 2 or not _IDENT.fullmatch(name) or name in _KEYWORDS:
        return False
    at = code.find(name, scope[0], scope[1])
    while at >= 0:
        end = at + len(name)
        if not _after_word(code, at) and code[at - 1:at] not in (".", ">"):
            m = _ASSIGN_AT.match(code, end)
            if m is not None and code[end:m.start(1)].strip() == "=":  # a plain `name = expr`
                rhs = _unindexed(m.group(1)).strip()
                return bool(_WARP_DIV.search(rhs)) or _warp_uniform(code, rhs, scope, depth + 1)
        at = code.find(name, end, scope[1])
    return False


def _bit_packed(code: str, at: int, operand: str) -> bool:
    """Does the statement around ``at`` split ``operand`` into a 32-bit word and a bit of it
    (``words[e / 32] |= 1u << (e % 32)``)? A bitmap of 32-bit words is indexed the same whatever the
    wavefront's width, so neither the `/ 32` nor the `% 32` there is lane math."""
    name = operand.strip().rsplit("[", 1)[-1]  # `words[e` read back from `words[e / 32]`: e
    if not name:
        return False
    lo = max(code.rfind(c, 0, at) for c in (";", "{", "}")) + 1
    hi = code.find(";", at)
    stmt = code[lo:hi if hi >= 0 else len(code)]
    if "<<" not in stmt or "[" not in stmt or name not in stmt:
        return False  # neither pattern below can match (each is compiled per name: skipped when it cannot)
    x = re.escape(name)
    word = re.search(r"\[[^\[\]]*(?<![\w.])" + x + r"\s*(?:/\s*32|>>\s*5)\b[^\[\]]*\]", stmt)
    bit = re.search(r"<<\s*\(\s*" + x + r"\s*(?:%\s*32|&\s*(?:31|0[xX]1[fF]))\s*\)", stmt)
    return word is not None and bit is not None


def _call_operand(code: str, at: int) -> str:
    """_left_operand, with a call's name kept (``block.thread_rank() % 32``: the rank, a thread
    index; ``hash(threadIdx.x) % 32``: data) and its arguments dropped."""
    operand = _left_operand(code, at)
    end = len(code[:at].rstrip())
    start = end - len(operand)
    if not operand.startswith("(") or not _after_word(code, start):
        return operand
    return _unindexed(_left_operand(code, start) + operand).strip()


def lane_math(code: str, derived: Derivation | None = None) -> Iterator[Hit]:
    derived = derived or Derivation(code)
    for m in _lane_ops(code):
        op, num = m.group(1), m.group(2).lower()
        pair = (op, "31" if num == "0x1f" else num)
        if pair not in (("%", "32"), ("/", "32"), ("&", "31"), (">>", "5"), ("==", "31"), ("<", "32")):
            continue
        operand = _call_operand(code, m.start())
        by_use = derived.at(operand, m.start())
        if by_use and _warp_uniform(code, operand.strip(), derived.scope(m.start())):
            continue  # a warp's index (the same in all its lanes): `row % 32` picks a bit of packed data
        if by_use and _bit_packed(code, m.start(), operand):
            continue
        if pair == ("<", "32") and not (by_use and _ANY_SHFL.search(code, m.end(), m.end() + 600)):
            continue  # `tid < 32` is "the last warp" only when a shuffle follows
        if not by_use and not (pair in (("/", "32"), (">>", "5"))
                               and _WARP_COUNT_NAME.search(_assigned_name(code, m.start()))):
            continue
        text = f"{op} {m.group(2)}"
        yield (m.start(), "warp-size-literal", f"'{text}' on a thread/lane index assumes 32-lane warps; "
               f"gfx942/gfx950 wavefronts have 64 lanes, so lane and warp ids come out wrong",
               f"use warpSize (or a per-architecture constant): lane = threadIdx.x % warpSize; {EMULATE}", "")
    # each `... if FAST else ()` below only skips a search that cannot match (a `1 << x` needs "<<"):
    # forcing it (`or True`) is an equivalent mutant
    for m in _SHIFT_LANE.finditer(code) if "<<" in code else ():
        if _after_word(code, m.start()):
            continue  # 31 << x, x1 << y
        if derived.at(m.group(1), m.start()) and not _bit_packed(code, m.start(), m.group(1)):
            yield (m.start(), "warp-size-literal", f"'1 << {m.group(1)}' builds a lane bit in a 32-bit int: lanes "
                   "32-63 of a 64-lane wavefront shift out (undefined behaviour)",
                   f"use 1ull << lane and a 64-bit mask; {EMULATE}", "")


def _ballot_lane(code: str, name: str, at: int) -> bool:
    """Is ``name``, last assigned before ``at``, a lane found in a ballot (``active_lane =
    __ffs(mask) - 1`` with ``mask = __ballot_sync(..)``)? Once the ballot is kept in 64 bits, as
    it must be, the lane runs to 63: ``mask &= ~(1 << active_lane)`` shifts an int past its width
    and the drain loop never clears the bits of lanes 32-63."""
    if "__ffs" not in code:
        return False
    assigned = list(re.finditer(rf"(?<![\w.]){re.escape(name)}\s*=\s*__ffs(?:ll)?\s*\(\s*(?:\(\s*\w+\s*\)\s*)?"
                                r"([A-Za-z_]\w*)\s*\)\s*-\s*1\b", code[:at]))
    found = assigned[-1] if assigned else None
    return found is not None and re.search(rf"(?<![\w.]){re.escape(found.group(1))}\s*=\s*(?:\(\s*\w+\s*\)\s*)?"
                                           r"(?:__ballot|__activemask|__match_any)", code) is not None


def _shuffle_loops(code: str, shuffles: re.Pattern[str]) -> dict[int, str]:
    """{offset of a `for`: its header} for the loops whose body (the next 300 characters) has a
    shuffle (a match of ``shuffles``: _SHFL, intrinsics only, or _ANY_SHFL). Found from the shuffles
    backwards, so a file with many loops and few shuffles stays cheap."""
    out: dict[int, str] = {}
    windows: list[list[int]] = []  # the 300 characters before each shuffle, overlapping ones merged
    for s in shuffles.finditer(code):
        lo = max(0, s.start() - 300)
        if windows and lo <= windows[-1][1]:
            windows[-1][1] = s.start()
        else:
            windows.append([lo, s.start()])
    for lo, hi in windows:
        for f in _FOR_HEAD.finditer(code, lo, hi):
            if not _after_word(code, f.start()):
                out[f.start()] = f.group(1)
    return out


def width_names(code: str, derived: Derivation | None = None, candidates: frozenset[str] | None = None) -> set[str]:
    """Names this file uses as the warp width: divisor/shift of a thread index, last argument of a
    shuffle, or the start/bound of a loop whose body shuffles. ``candidates`` (the tree's
    constants equal to 32 or 5) limits the work to names that can matter."""
    out: set[str] = set()
    if ("threadIdx" not in code and "shfl" not in code) or candidates is not None and not candidates:
        return out
    derived = derived or Derivation(code)
    uses = (_WIDTH_USE, _WIDTH_MASK) if "& (" in code or "&(" in code else (_WIDTH_USE,)
    for m in merged(uses, code) if derived.any_root else ():  # no root: no operand is a thread index
        name = m.group(2)
        if (candidates is None or name in candidates) and name not in out and derived.at(
                _left_operand(code, m.start()), m.start()):
            out.add(name)
    for m in _SHFL.finditer(code) if "__shfl" in code else ():  # fast path (see lane_math)
        last = _LAST_ARG.search(_call_args(code, m.end() - 1))
        if last:
            out.add(last.group(1))
    if "__shfl" in code:  # intrinsics only: a cooperative-groups tile's shuffles span the tile, not the warp
        for head in _shuffle_loops(code, _SHFL).values():
            out.update(name for pair in _LOOP_WIDTH.findall(head) for name in pair if name)
        # `template <int width = WARP_SIZE>`: the default of a shuffle-width parameter (ggml)
        out.update(m.group(1) for m in word_start_matches(_WIDTH_DEFAULT, code))
    return out


def constant_names(text: str) -> set[str]:
    """Names a file defines as 32 or 5 (the candidates for warp-width constants)."""
    return set(_constant_names(text))


# Per text, cached by the text itself (as branches._directives): a file's masked code is asked by
# checks._warp and again by the model it builds, a header's raw text by each file including it.
# A few entries, not one: a file's own asks interleave with its headers'. The answers depend on
# the text alone, so a cache hit is the same answer.
_TEXT_CACHE = 16


@lru_cache(maxsize=_TEXT_CACHE)
def _constant_names(text: str) -> frozenset[str]:
    if "32" not in text and "5" not in text:
        return frozenset()
    return frozenset(_DEFINE_32_LOOSE.findall(text)) | {name for _at, name, _value in _const_32_found(text)}


def _const_32(code: str) -> list[tuple[int, str, str]]:
    """(offset, name, value) of `const[expr] T NAME = 32;` (or 5) definitions."""
    return list(_const_32_found(code))


@lru_cache(maxsize=_TEXT_CACHE)
def _const_32_found(code: str) -> tuple[tuple[int, str, str], ...]:
    out: list[tuple[int, str, str]] = []
    if "const" not in code and "enum" not in code:
        return ()
    for v in merged(_VALUE_32S, code):
        k = v.start() - 1
        # `k > 0`, `k >= 1` here and `k <= 0`, `k < 1` below are equivalent mutants: a value preceded
        # only by blanks, parentheses and at most an `=`/`{` from index 0 has no `const NAME` before it;
        # so is `k < 0 and ...` below: this test is a fast path, _CONST_BEFORE checks the `=`/`{` again
        while k >= 0 and code[k] in (" ", "\t", "(", "\n", "\r"):  # `const int W =\n    32;` too
            k -= 1
        if k < 0 or code[k] not in ("=", "{"):
            continue  # not an initialiser: 0.5, x + 32, f(32)
        m = _CONST_BEFORE.search(code, max(0, v.start() - 120), v.start())
        if m is None and "enum" in code:
            m = _ENUM_BEFORE.search(code, max(0, v.start() - 200), v.start())
        if m is not None:
            out.append((m.start(1), m.group(1), v.group(1)))
    return tuple(out)


def warp_constants(code: str) -> list[tuple[Hit, str]]:
    """Macros/constants equal to 32 (or 5): (the finding at the definition, the name). The caller
    keeps those whose name the tree uses as the warp width (see ``width_names``)."""
    out: list[tuple[Hit, str]] = []
    if "32" not in code and "5" not in code:
        return out
    found = [(m.start(1), m.group(1), m.group(2)) for m in _DEFINE_32.finditer(code)] + _const_32(code)
    for at, name, value in found:
        what = "log2 of a 32-lane warp" if value == "5" else "a 32-lane warp width"
        out.append(((at, "warp-size-literal",
                     f"{name} = {value} is used as {what} (lane math, shuffle width or shuffle loop); "
                     "gfx942/gfx950 wavefronts have 64 lanes",
                     f"derive it from warpSize at run time or a per-architecture constant (64 on CDNA); {EMULATE}",
                     name), name))
    return out


# `assert(warpSize == 32)`, `assert(W == warpSize)`; `if (warpSize != 32) __trap();` (or abort, exit, return).
# The word's literal first, then the lookbehind (see word()): not tried at every offset
_WS_ASSERT = re.compile(r"assert(?<![\w.]assert)\s*\(\s*\(?\s*(?:warpSize\s*==\s*([A-Za-z_][\w:]*|\d+)[uU]?|"
                        r"([A-Za-z_][\w:]*|\d+)[uU]?\s*==\s*warpSize)\s*\)?\s*[),&]")
_WS_GUARD = re.compile(r"if(?<![\w.]if)\s*\(\s*(?:warpSize\s*!=\s*([A-Za-z_][\w:]*|\d+)[uU]?|"
                       r"([A-Za-z_][\w:]*|\d+)[uU]?\s*!=\s*warpSize)\s*\)\s*\{?\s*"
                       r"(?:__trap|__builtin_trap|trap|abort|exit|return|asm|throw)\b")


def word_start_matches(pattern: re.Pattern[str], code: str) -> Iterator[re.Match[str]]:
    """The matches of ``\\b`` + ``pattern`` (a pattern that begins with a word character and never
    matches empty): ``pattern``'s leftmost match from each position on is kept where no word
    character precedes it, else the search goes on one character later, as the engine would with
    the ``\\b``; the same matches, found by the pattern's literal start."""
    pos = 0
    while (m := pattern.search(code, pos)) is not None:
        at = m.start()
        if at and (code[at - 1].isalnum() or code[at - 1] == "_"):
            pos = at + 1
            continue
        yield m
        pos = m.end()


def statements_with(code: str, word: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each `;`-delimited stretch of ``code`` that contains ``word``, in order. A
    pattern whose matches all contain the word and never a `;` finds the same matches in these
    stretches as over the whole file, without being tried at every offset (its lookbehind still
    sees the character before a stretch)."""
    at = code.find(word)
    while at >= 0:
        lo = code.rfind(";", 0, at) + 1
        hi = code.find(";", at)
        hi = len(code) if hi < 0 else hi
        yield lo, hi
        at = code.find(word, hi)

# the host refusing the device: `if (prop.warpSize != 32) LOGERROR(...)` / `{ fprintf(...); exit(1); }`
# (a device property, so host code; the condition is that test alone: `!= 32 && != 64` accepts 64)
_WS_REFUSAL = re.compile(r"if(?<![\w.]if)\s*\(\s*(?:[\w\]\[.>-]+?\s*(?:\.|->)\s*warpSize\s*!=\s*(32)[uU]?|"
                         r"(32)[uU]?\s*!=\s*[\w\]\[.>-]+?\s*(?:\.|->)\s*warpSize)\s*\)\s*(\{[^{}]*\}|[^;{}]*;)")
_REFUSES = re.compile(r"(?<![\w.])(?:exit|abort|throw|return|std::exit|_exit|\w*(?:error|Error|ERROR|fatal|Fatal|FATAL"
                      r"|fail|Fail|FAIL|panic|PANIC)\w*)\b")


# `&& NAME == warpSize` / `warpSize == NAME &&` inside an assert's condition (judged by _in_assert)
_WS_CONJUNCT = re.compile(r"(?:&&|\()\s*(?:warpSize\s*==\s*([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*==\s*warpSize)\s*(?=&&|\))")


def _in_assert(code: str, at: int, lo: int) -> int:
    """Where the ``assert(`` whose condition holds offset ``at`` starts (searched from ``lo``, the
    statement's start), or -1."""
    m = re.compile(r"assert(?<![\w.]assert)\s*\(").search(code, lo, at + 1)
    return m.start() if m is not None and _call_args(code, m.end() - 1) and m.end() + len(
        _call_args(code, m.end() - 1)) >= at else -1


def warpsize_checks(code: str, names32: Iterable[str], is32: Callable[[str], bool] | None = None) -> Iterator[Hit]:
    """A check that the warp has 32 lanes, ``assert(warpSize == 32)`` (or a constant equal to 32, the
    unit's or a local ``W = 32;``) or ``if (warpSize != 32) __trap();``: warpSize is 64 on
    gfx942/gfx950, so the check fails there; the kernel traps (an assert: where NDEBUG is off) or
    returns without its work. A check against a name not known to be 32 is not judged."""
    if "warpSize" not in code:
        return
    known = set(names32)
    spans = list(statements_with(code, "warpSize"))
    found = [(m, what) for pattern, what in ((_WS_ASSERT, "assert"), (_WS_GUARD, "guard"))
             for lo, hi in spans for m in pattern.finditer(code, lo, hi)]
    if is32 is not None:  # `assert(A <= n && MAXWARPS == warpSize)`: a conjunct of the assert
        starts = {m.start() for m, _ in found}
        found += [(m, "conjunct") for lo, hi in spans for m in _WS_CONJUNCT.finditer(code, lo, hi)
                  if _in_assert(code, m.start(), lo) not in starts and _in_assert(code, m.start(), lo) >= 0]
    for m, what in found:
        width = (m.group(1) or m.group(2)).split("::")[-1]
        if width != "32" and width not in known and not re.search(
                word(width) + r"\s*=\s*32[uU]?\s*;", code) and not (is32 is not None and is32(width)):
            continue
        fails = ("the check fails and the kernel traps or returns without its work" if what == "guard"
                 else "the assert fails and the kernel traps (in every build where NDEBUG is off)")
        at = m.start() if what != "conjunct" else m.start(1) if m.group(1) else m.start(2)
        yield (at, "warp-size-literal",
               f"checks that warpSize equals 32 ({code[at:m.end()].strip()[:50]}): gfx942/gfx950 "
               f"wavefronts have 64 lanes, so {fails}",
               f"make the code work for warpSize 64 (or 32-lane tiles) and check warpSize % 32 == 0; {EMULATE}",
               "warpSize")
    # the refusal's statement runs past the stretch's `;` (a `{ ...; exit(1); }` block): searched
    # from each stretch on, kept where it starts inside it
    for m in (m for lo, hi in spans for m in _WS_REFUSAL.finditer(code, lo, min(len(code), hi + 400))
              if m.start() < hi):
        if _REFUSES.search(m.group(3)):
            yield (m.start(), "warp-size-literal",
                   f"refuses any device whose warp is not 32 lanes ({code[m.start():m.start(3)].strip()[:50]}): "
                   "gfx942/gfx950 report warpSize 64, so the program stops before any kernel runs",
                   f"make the kernels work for warpSize 64 (or 32-lane tiles) and accept 64 here; {EMULATE}",
                   "warpSize")


_OVER_WARPSIZE = re.compile(r"([A-Za-z_]\w*)\s*(?:/|%)\s*\Z")  # just before a `warpSize`
_NO_WORD_WIDTH = re.compile(r"threadIdx|__lane_id|__shfl|__ballot|__any|__all|__syncwarp|__match_|\.shfl|\.ballot")


def warpsize_word_widths(code: str) -> Iterator[Hit]:
    """``limb = offset / warpSize`` in a function that touches no thread index and no warp
    operation, where ``offset`` is also a shift amount (``__funnelshift_r(lo, hi, offset)``, ``v >>
    offset``): a bit offset divided by the 32-bit word's width, spelled warpSize because both are 32
    on CUDA. warpSize is 64 on gfx942/gfx950, so the word index (or bit within it) is wrong."""
    if "warpSize" not in code or not ("shift" in code or ">>" in code or "<<" in code):
        return
    at = code.find("warpSize")
    while at >= 0:
        m = _OVER_WARPSIZE.search(code, max(0, at - 60), at)
        after = at + len("warpSize")
        at = code.find("warpSize", after)
        if m is None or code[after:after + 1].isalnum() or code[after:after + 1] == "_":
            continue
        head = _enclosing_function_head(code, m.start())
        brace = code.find("{", head.end()) if head is not None else -1
        if brace < 0:
            continue  # not in a function body we can read
        body = code[brace:brace_end(code, brace, len(code))]
        name = m.group(1)
        shifted = re.search(r"__funnelshift_\w+\s*\([^;]*,\s*" + word(name) + r"\s*\)|(?:>>|<<)\s*\(?\s*"
                            + word(name) + r"\s*[);]", body)
        if shifted is None or _NO_WORD_WIDTH.search(body):
            continue
        yield (m.start(), "warp-size-literal", f"'{m.group(0).strip()} warpSize' divides a bit offset (also a shift "
               "amount here) by warpSize, which this code means as the 32-bit word's width: warpSize is 64 on "
               "gfx942/gfx950, so the word index and the bit within it are wrong",
               f"use the word width (32, or sizeof(word) * 8); {EMULATE}", "warpSize")


# the first step of a reduction written out by hand (`v += __shfl_down_sync(m, v, 16); ... 8); ...`):
# its offset is the last argument, with no width after it
_UNROLLED16 = re.compile(r",\s*16[uU]?\s*\Z")
_STEP32 = re.compile(r"__shfl_(?:down|xor)(?:_sync)?\s*\([^;]*,\s*32[uU]?\s*\)")
UNROLLED = "unrolled shuffle: "  # how an unrolled step's hit begins (judged only where widths mix)


def split_args(args: str) -> list[str]:
    """A call's arguments split at the commas outside brackets, each stripped ([] for none). Only
    brackets and commas are visited (a regex jumps to each), not every character."""
    if not args.strip():
        return []
    out: list[str] = []
    depth = last = 0
    for m in _ARG_PUNCT.finditer(args):
        ch = m.group()
        if ch == ",":
            if depth == 0:
                out.append(args[last:m.start()].strip())
                last = m.end()
        else:
            depth += 1 if ch in "([{" else -1
    out.append(args[last:].strip())
    return out


_ARG_PUNCT = re.compile(r"[()\[\]{},]")


def shuffle_widths(code: str) -> Iterator[Hit]:
    """A literal 32 as a shuffle's width, and shuffle loops over 32 lanes (start 16 / bound 32)."""
    if "shfl" not in code:
        return
    for m in _SHFL.finditer(code) if "__shfl" in code else ():  # fast path (see lane_math)
        args = _call_args(code, m.end() - 1)
        # the arguments before the width: (mask,) value, lane or offset; `__shfl_down_sync(m, v, 32)`
        # has no width: its 32 is an offset (a 64-lane reduction's first step)
        given = len(split_args(args)) - 1 - (1 if m.group(1).endswith("_sync") else 0)
        if given >= 2 and _WIDTH32.search(args):
            yield (m.start(), "warp-size-literal", f"{m.group(1)} with width 32: on a 64-lane wavefront it shuffles "
                   "within halves, so a 'whole warp' reduction covers 32 of 64 lanes",
                   f"use warpSize as the width; {EMULATE}", "")
        elif _UNROLLED16.search(args) and ("down" in m.group(1) or "xor" in m.group(1)) and given == 1 and \
                _STEP32.search(code, max(code.rfind("\n}", 0, m.start()), m.start() - 600, 0), m.start()) is None:
            # (a step by 32 before it in the function: the reduction spans 64 lanes, 16 is its second)
            yield (m.start(), "warp-size-literal", f"{UNROLLED}{m.group(1)} by 16 (an unrolled 16, 8, 4, 2, 1 "
                   "reduction): on a 64-lane wavefront lanes 32-63 never join it",
                   f"start from warpSize / 2; {EMULATE}", "")
    for at, head in sorted(_shuffle_loops(code, _ANY_SHFL).items()):
        if _LOOP32.search(head):
            yield (at, "warp-size-literal", "shuffle loop over 32 lanes (offset 16 / bound 32): on a 64-lane "
                   "wavefront lanes 32-63 never join the reduction",
                   f"start at warpSize / 2 (or loop to warpSize); {EMULATE}", "")


def masks(code: str) -> Iterator[Hit]:
    if "_sync" not in code:  # every _SYNC name has it, __syncwarp included
        return
    consts: dict[str, int] = {}
    for m in merged(_MASK_DEFS, code):
        consts[m.group(1)] = m.start(1)
    vars32 = None
    reported: set[str] = set()
    for m in _SYNC_CALL.finditer(code):
        func, arg = m.group(1), m.group(2).strip()
        msg = (f"{func} with a 32-bit mask ({arg}): ROCm 7's amd_warp_sync_functions.h static_asserts a 64-bit "
               "mask, so this does not compile; on CUDA it also covers only 32 lanes")
        fix = "use a 64-bit mask: __activemask() or ~0ull (uint64_t)"
        if _MASK32_LIT.match(arg):
            yield (m.start(), "warp-mask-32bit", msg, fix, func)
        elif arg in consts:
            if arg not in reported:
                reported.add(arg)
                yield (consts[arg], "warp-mask-32bit", f"{arg} is a 32-bit full lane mask passed to {func}: ROCm 7's "
                       "amd_warp_sync_functions.h static_asserts a 64-bit mask, so this does not compile",
                       "make the mask 64-bit (0xffffffffffffffffull)", func)
        elif re.fullmatch(r"[A-Za-z_]\w*", arg):
            if vars32 is None:
                vars32 = set(re.findall(r"\b" + _INT32 + r"\s+([A-Za-z_]\w*)\s*=\s*[^;]*;", code))
            if arg in vars32:
                yield (m.start(), "warp-mask-32bit", f"{func} with mask {arg} held in a 32-bit variable: ROCm 7's "
                       "amd_warp_sync_functions.h static_asserts a 64-bit mask, so this does not compile",
                       "declare the mask uint64_t (unsigned long long)", func)


_TILE_WIDTH = re.compile(r"(?:thread_block_tile|tiled_partition)\s*<\s*(\d+)\s*>")


def _narrow_tile(code: str, name: str, at: int) -> bool:
    """Is ``name`` (a group whose ballot is called at ``at``) declared, in the function around it,
    as a cooperative-groups tile of at most 32 lanes (``thread_block_tile<32> t = ...``,
    ``auto t = tiled_partition<16>(...)``)?"""
    lo = code.rfind("\n}", 0, at) + 1
    decl = re.search(r"[^;{}]*(?<![\w.])" + re.escape(name) + r"\s*(?:=|\()[^;]*;", code[lo:at]) if name else None
    width = _TILE_WIDTH.search(decl.group()) if decl is not None else None
    return width is not None and int(width.group(1)) <= 32


def _tile_at_most_32(code: str, name: str, at: int) -> bool:
    """Is ``name`` a cooperative-groups tile of at most 32 lanes: a literal width <= 32 (see
    ``_narrow_tile``), or a width set by a template (``thread_block_tile<cg_size()>``, declared in
    the function or as its parameter)? CUDA gives ``ballot`` to tiles of at most 32 threads only, so
    CUDA code balloting on a tile of a compile-time size uses one of <= 32, and HIP compacts a tile's
    ballot to the tile's own bits: exact in 32 bits. A literal width over 32 is not."""
    narrow = _narrow_tile(code, name, at)
    if narrow or not name or "tile" not in code:
        return narrow
    lo = code.rfind("\n}", 0, at) + 1
    n = re.escape(name)
    decl = re.search(r"(?:thread_block_tile|tiled_partition)\s*<([^<>;{}]+)>\s*(?:const\s*)?[&*]?\s*" + n +
                     r"\b|(?<![\w.])" + n + r"\s*=\s*(?:\w+::)*tiled_partition\s*<([^<>;{}]+)>", code[lo:at])
    if decl is None:
        return False
    width = (decl.group(1) or decl.group(2)).strip()
    return not width.isdigit() or int(width) <= 32


_HEX32 = re.compile(r"0[xX][0-9a-fA-F]{1,8}[uU]?")
_AND_AFTER = re.compile(r"\)\s*&\s*\(?\s*(0[xX][0-9a-fA-F]+[uU]?|[A-Za-z_]\w*)\s*\)?\s*;")


def _masked_to_32(code: str, m: re.Match[str]) -> tuple[str, int] | None:
    """The 32-bit constant a ballot is ANDed with, if its result goes straight into a ``bool`` or
    an ``auto`` (``bool hit = __ballot_sync(...) & 0x55555554;``): the name or literal and where the
    declaration starts, else None.
    A name counts when the file #defines it as a hex literal of at most 8 digits."""
    args = _call_args(code, m.end() - 1)
    tail = _AND_AFTER.match(code, m.end() + len(args))
    if tail is None:
        return None
    start = max(code.rfind(c, 0, m.start()) for c in (";", "{", "}")) + 1
    decl = re.match(r"\s*((?:const\s+)?(?:bool|auto)\s+\w+\s*=\s*)\Z", code[start:m.start()])
    if decl is None:
        return None
    value = tail.group(1)
    define = re.search(r"#[ \t]*define[ \t]+" + re.escape(value) + r"[ \t]+\(?[ \t]*(0[xX][0-9a-fA-F]+[uU]?)", code)
    if _HEX32.fullmatch(value) or define is not None and _HEX32.fullmatch(define.group(1)):
        return value, start + decl.start(1)
    return None


# a 32-bit all-ones constant: zero-extended to 64 bits when compared with a 64-bit ballot (`~0`
# and `-1` are signed ints, sign-extended to all 64 ones: right at 64, so not matched)
# (also -1 cast to a 32-bit unsigned type: `static_cast<unsigned>(-1)`, `(uint32_t)-1`)
_ONES32 = (r"(?:~\s*0[uU]|~\s*\(\s*0[uU]\s*\)|0[xX][fF]{8}[uU]?"
           r"|static_cast\s*<\s*(?:unsigned(?:\s+int)?|uint32_t)\s*>\s*\(\s*-\s*1\s*\)"
           r"|\(\s*(?:unsigned(?:\s+int)?|uint32_t)\s*\)\s*-\s*1)(?![\w.])")
_CMP_ONES_AFTER = re.compile(r"\s*[!=]=\s*" + _ONES32)
_CMP_ONES_BEFORE = re.compile(r"(?<![\w.])" + _ONES32 + r"\s*[!=]=\s*\Z")


def _compared_to_ones32(code: str, m: re.Match[str]) -> bool:
    """Is the ballot called at ``m`` compared (``==`` / ``!=``) with a 32-bit all-ones constant,
    ``__ballot_sync(~0u, done) == ~0u``? At 64 lanes the ballot has 64 bits, so "every lane voted"
    is never equal to 0xffffffff: the test is false when all 64 lanes vote, and the early exit it
    guards waits for nothing (or never happens)."""
    args = _call_args(code, m.end() - 1)
    after = m.end() + len(args) + 1
    return bool(_CMP_ONES_AFTER.match(code, after) or _CMP_ONES_BEFORE.search(code, max(0, m.start() - 24), m.start()))


def _declared_int32(code: str, name: str, before: int) -> bool:
    """Is ``name`` declared as a 32-bit integer in an earlier statement than the one holding
    ``before``: ``unsigned m;``, ``int a, m;`` or with an initializer, ``unsigned int m =
    __ballot_sync(...);`` (a ballot re-assigned to a variable declared, and first filled, before)?
    The last declaration of the name wins, so a wider redeclaration in between (``uint64_t m``)
    keeps it quiet; a declaration in the call's own statement (``while (auto q = __ballot(..))``,
    ``int m = __match_any_sync(__activemask(), p)``) is not a re-assignment: the direct-store check
    judges those."""
    stmt = max(code.rfind(c, 0, before) for c in ";{}") + 1
    # earlier declarators may be arrays (`uint32_t a[LIMBS], q, ballot;`: CGBN's modular inverse)
    typed = (r"\b(" + _INT32 + r"|u?int64_t|(?:unsigned\s+)?long\s+long|size_t|auto|bool)\s+"
             r"(?:\w+\s*(?:\[[^\];]*\]\s*)*(?:=[^;,]*)?,\s*)*"
             + re.escape(name) + r"\s*[;,=)\[]")  # `[`: an array of 32-bit words (FZ-GPU's dataChunk[32][33])
    if re.search(typed, code[stmt:before]):
        return False
    decls = list(re.finditer(typed, code[:stmt]))
    return bool(decls) and re.fullmatch(_INT32, decls[-1].group(1)) is not None


# a function header just before its body: `unsigned Group::ballot(bool p) const`, `MACRO(unsigned)::f(int x)`
_PARAMS = r"\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)"  # a parameter list (one level of nested parentheses)
_FN_HEAD = re.compile(r"(?:^|[\s(])(" + _INT32 + r"|[\w:<>]+)\s*\)?\s*(?:[\w:]*::)?~?([A-Za-z_]\w*)\s*" + _PARAMS
                      + r"\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?\Z")
_NOT_FUNCTIONS = frozenset({"if", "for", "while", "switch", "return", "catch", "sizeof", "decltype"})
# a comparison or a logical operator after the ballot: the statement returns a truth value, not the ballot
_TO_BOOL = re.compile(r"[!=<>]=|&&|\|\||(?<![<>])[<>](?![<>=])")


def _enclosing_function_head(code: str, at: int) -> re.Match[str] | None:
    """The header of the innermost function whose body holds offset ``at`` (None at top level, or
    when the enclosing braces belong to no function header we can read)."""
    depth = 0
    i = at - 1
    lo = code.rfind("\n}", 0, at) + 1  # a top-level function starts after the previous top-level `}`
    while i >= lo:
        c = code[i]
        depth += (c == "}") - (c == "{")
        if depth < 0:  # an unmatched `{`: a block opened here
            start = max(code.rfind(ch, 0, i) for ch in (";", "{", "}")) + 1
            head = _FN_HEAD.search(code, max(start, i - 300), i)
            if head is not None and head.group(2) not in _NOT_FUNCTIONS:
                return head
            depth = 0
        i -= 1
    return None


def _returned_32(code: str, m: re.Match[str]) -> bool:
    """Is the ballot called at ``m`` the value a ``return`` statement gives back from a function
    declared to return a 32-bit integer (``unsigned ballot(bool p) { return __ballot_sync(m, p); }``)?
    The conversion drops lanes 32-63 as a 32-bit store does. Not when the ballot is an argument of
    another call or the statement tests it (``return __ballot(p) != 0``)."""
    stmt = max(code.rfind(c, 0, m.start()) for c in (";", "{", "}")) + 1
    before = code[stmt:m.start()]
    if not re.match(r"\s*return\b", before) or _open_call(before):
        return False
    end = code.find(";", m.end())
    args = _call_args(code, m.end() - 1)
    if _TO_BOOL.search(code[m.end() + len(args) + 1:end if end >= 0 else m.end()]):
        return False
    head = _enclosing_function_head(code, m.start())
    # the return type spelled as a 32-bit integer or as the file's alias of one (gpu_selection's
    # `using mask = std::uint32_t; mask ballot(..) { return __ballot(p) & amask; }`)
    return head is not None and (re.fullmatch(_INT32, head.group(1)) is not None
                                 or head.group(1) in _aliases32(code))


def _open_call(text: str) -> bool:
    """Is a call's parenthesis (a name or ``>`` before it, not a keyword such as ``return``) still
    open at the end of ``text``?"""
    opened: list[bool] = []
    for i, c in enumerate(text):
        if c == "(":
            word = re.search(r"([\w>]*)\s*\Z", text[max(0, i - 40):i])
            w = word.group(1) if word else ""
            opened.append(bool(w) and w not in _NOT_FUNCTIONS and not w.isdigit())
        elif c == ")" and opened:
            opened.pop()
    return any(opened)


_ONE_PARAM = r"%s\s*\(\s*(?:const\s+)?([\w:]+(?:\s+(?:int|long))*)\s+[A-Za-z_]\w*\s*\)\s*(?:const\s*)?[{;]"


def _param_32(code: str, name: str) -> bool:
    """Does this file declare ``name`` only as a function of one parameter, a 32-bit integer
    (``unsigned __msb(unsigned word) {``)? A ballot passed to it is cut to lanes 0-31. A template
    parameter or any 64-bit overload (``__msb(unsigned long long)``) keeps it quiet: overload
    resolution then takes the ballot's 64 bits."""
    types = re.findall(_ONE_PARAM % word(name), code)
    return bool(types) and all(re.fullmatch(_INT32, t.strip()) for t in types)


_CALLER_BEFORE = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*\(\s*\Z")


def _passed_to_32(code: str, m: re.Match[str]) -> str:
    """The name of the file's function with one 32-bit parameter that the ballot at ``m`` is passed
    to directly (``lane = find_msb(__ballot_sync(m, p))``), else ""."""
    call = _CALLER_BEFORE.search(code, max(0, m.start() - 60), m.start())
    if call is None or _POPC.match(call.group(0)) or call.group(1) in _NOT_FUNCTIONS:
        return ""
    return call.group(1) if _param_32(code, call.group(1)) else ""


BALLOT_HANDED_ON = "result handed on:"  # the messages of the returned / passed ballots (checks.py filters them)


# a file's own names for a 32-bit integer: `typedef unsigned int mask_t;`, `using lanes_t = uint32_t;`
_ALIAS32 = re.compile(r"\btypedef\s+(?:std::)?" + _INT32 + r"\s+([A-Za-z_]\w*)\s*;|\busing\s+([A-Za-z_]\w*)\s*=\s*"
                      r"(?:std::)?" + _INT32 + r"\s*;")


def _aliases32(code: str) -> set[str]:
    """The file's names for a 32-bit integer (``typedef unsigned mask_t;``, ``using mask =
    std::uint32_t;``)."""
    if "typedef" not in code and "using" not in code:
        return set()
    return {a or b for a, b in _ALIAS32.findall(code)} - {"uint64_t"}


def _decl32_before(code: str) -> re.Pattern[str]:
    """_DECL32_BEFORE, with the file's aliases of a 32-bit integer as the type too (a ballot kept in
    ``mask_t m = __ballot_sync(...)`` is as narrow as one kept in ``unsigned``)."""
    if "typedef" not in code and "using" not in code:
        return _DECL32_BEFORE
    names = sorted(_aliases32(code))
    if not names:
        return _DECL32_BEFORE
    return re.compile(r"\b(?:" + _INT32_NAMES + "|" + "|".join(map(re.escape, names)) + r")\s+\w+\s*=\s*(?:\(\s*)*\Z")


def _lower_lanes_only(code: str, at: int) -> bool:
    """Is ``at`` inside ``if (threadIdx.x < N) { ... }`` with N at most 32, in a file with one block
    dimension? Only lanes 0-31 of a wavefront run there, so a ballot or ``__activemask()`` kept in 32
    bits loses nothing (ParaFROST's ``unsigned mask = __activemask()`` in its warp reduction). With
    ``threadIdx.y`` in the file a wavefront may hold two rows whose x is below 32: not judged."""
    if "threadIdx.x" not in code or ".y" in code and _SECOND_DIM.search(code):
        return False
    for m in _LOWER_LANES.finditer(code, max(0, at - 4000), at):
        bound = m.group(1).rstrip("uU")
        # a literal up to 32, or a name the file defines as 32 (libcubwt's CUDA_WARP_THREADS)
        if not (int(bound) <= 32 if bound.isdigit() else bound in constant_names(code)):
            continue
        if brace_end(code, m.end() - 1, at) == at:  # the block is still open at the call
            return True
    return False


def halves_alike_at(code: str, at: int) -> bool:
    """_halves_alike for the ballot call that starts at ``at``."""
    m = _BALLOT.match(code, at)
    return m is not None and _halves_alike(code, m)


def _halves_alike(code: str, m: re.Match[str]) -> bool:
    """Does the ballot at ``m`` vote a predicate that lane l and lane l + 32 compute alike? Its
    thread terms all folded below 32 (``idx = k + threadIdx.x % 32``, ``& 31``), followed through
    the values it is computed from: at 64 the upper 32 bits repeat the lower ones, so a 32-bit copy
    loses nothing, and ``__ffs`` of it names a lane whose value lane + 32 holds too (ggnn's
    cache walk). In a file with a second block dimension a wavefront may hold two rows: not judged."""
    if "threadIdx" not in code or ".y" in code and _SECOND_DIM.search(code):
        return False
    open_at = code.find("(", m.start())
    args = split_args(_call_args(code, open_at)) if open_at >= 0 else []
    if not args:
        return False
    folded: list[bool] = []
    return _mirrored(code, max(0, m.start() - 4000), m.start(), args[-1], 0, folded) and any(folded)


_FOLD32 = re.compile(r"\(?\s*threadIdx\.x\s*\)?\s*(?:%\s*32|&\s*(?:31|0[xX]1[fF]))[uU]?\b")
_THREAD_TERM = re.compile(r"threadIdx|__lane_id|laneid|lane_id\s*\(|\bthis_thread\b|thread_rank")


def _mirrored(code: str, lo: int, at: int, expr: str, depth: int, folded: list[bool]) -> bool:
    if _FOLD32.search(expr):
        folded.append(True)
        expr = _FOLD32.sub(" 0 ", expr)
    if _THREAD_TERM.search(expr) or depth > 4:
        return False
    for name in dict.fromkeys(_WORDS.findall(expr)):
        last = None
        for a in re.finditer(word(name) + r"\s*=(?!=)\s*([^;]*);", code[lo:at]) \
                if name in code[lo:at] else ():
            last = a
        if last is not None and not _mirrored(code, lo, lo + last.start(), last.group(1), depth + 1, folded):
            return False
    return True


_LOWER_LANES = re.compile(r"\bif\s*\(\s*threadIdx\.x\s*<\s*(\d+[uU]?|[A-Za-z_]\w*)\s*\)\s*\{")
_SECOND_DIM = re.compile(r"\b(?:threadIdx|blockDim)\.[yz]\b")


# a function's head before its body's `{`: `name(...)` then qualifiers (not a control statement's)
# what may stand between a function's `)` and its body's `{`: qualifiers and a trailing return type
_AFTER_PARAMS = re.compile(r"(?:\s*(?:const|noexcept|override|final|mutable|volatile)\b|\s*->\s*[\w:<>,*&\s]+?)*\s*\Z")
_CONTROL = frozenset({"if", "for", "while", "switch", "catch", "do", "return", "sizeof", "defined"})


@lru_cache(maxsize=64)
def function_bodies(code: str) -> tuple[tuple[int, int, str], ...]:
    """(open, close, name) of every function body in ``code`` (member functions of a struct too,
    which the warp model's scopes fold into the struct): its brace pairs whose head is
    ``name(...)``, the parentheses balanced back from the ``)`` before the brace, and the name no
    control statement (`while ((m = __ballot_sync(..))) {` is a loop's body; a lambda's
    ``[..](..) {`` belongs to the function around it)."""
    out: list[tuple[int, int, str]] = []
    stack: list[int] = []
    for b in _BRACES.finditer(code):
        i = b.start()
        if code[i] == "{":
            stack.append(i)
        elif stack:
            lo = stack.pop()
            name = _head_name(code, lo)
            if name and name not in _CONTROL:
                out.append((lo, i, name))
    return tuple(out)


_BRACES = re.compile(r"[{}]")


def _head_name(code: str, brace: int) -> str:
    """The name before the balanced ``( .. )`` that ends just before ``brace`` ("" if none)."""
    close = brace - 1
    while close >= 0 and code[close].isspace():
        close -= 1
    if close >= 0 and code[close] != ")" and (code[close].isalnum() or code[close] in "_>*&"):
        tail = _AFTER_PARAMS.search(code, max(0, brace - 200), brace)  # `) const {`, `) -> T {`
        close = (tail.start() if tail is not None else brace) - 1
        while close >= 0 and code[close].isspace():
            close -= 1
    if close < 0 or code[close] != ")":
        return ""
    depth = 0
    for j in range(close, max(-1, close - 2000), -1):
        depth += (code[j] == ")") - (code[j] == "(")
        if depth == 0:
            word = re.search(r"(operator\s*(?:\(\s*\)|[^\s\w(]+)|[A-Za-z_]\w*)\s*\Z", code[max(0, j - 80):j])
            return word.group(1) if word is not None else ""
    return ""


def _same_function(code: str, a: int, b: int) -> bool:
    """Are offsets ``a`` and ``b`` in the same function body (or both outside any)?"""
    bodies = function_bodies(code)
    return innermost_body(bodies, a) == innermost_body(bodies, b)


def innermost_body(bodies: Sequence[tuple[int, int, str]], at: int) -> tuple[int, int, str] | None:
    """The innermost function body holding ``at`` (a lambda's body inside a function is one too)."""
    best = None
    for body in bodies:
        if body[0] < at < body[1] and (best is None or body[0] > best[0]):
            best = body
    return best


def _only_sync_mask(code: str, name: str, at: int, calls: str = r"__\w*sync\w*") -> bool:
    """Is every later use of ``name`` in its block (from ``at`` to the brace that closes it) the
    mask, the first argument, of a ``*_sync`` call or ``__syncwarp``? Such a 32-bit copy of a
    ballot or ``__activemask()`` is only a mask, and warp-mask-32bit already names each call."""
    depth, end = 0, len(code)
    for i in range(at, len(code)):
        c = code[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                end = i
                break
    uses = [u.start() for u in re.finditer(r"(?<![\w.])" + re.escape(name) + r"\b", code[at:end])]
    first = re.compile(r"\b" + calls + r"\s*\(\s*(" + re.escape(name) + r")\s*[,)]")
    masks = {u.start(1) for u in first.finditer(code[at:end])}
    return bool(uses) and all(u in masks for u in uses)


def ballots(code: str, cuda_only: Callable[[int], bool] | None = None) -> Iterator[Hit]:
    """ballot-32bit / activemask. ``cuda_only`` says which offsets only CUDA compiles: a mask
    assigned there (atomicAggInc's ``mask = __match_any_sync(..)`` under ``__CUDA_ARCH__ >= 700``)
    does not make its variable a wavefront mask in the code ROCm builds."""
    if "__ballot" not in code and "__activemask" not in code and ".ballot" not in code and "__match_" not in code:
        return
    held: set[str] = set()
    narrow: set[str] = set()  # the names a ballot is stored into as a 32-bit integer (base_shifts)
    wide_tile: set[str] = set()  # tile ballots kept in 64 bits (auto): exact, but no __ffs overload
    decl32 = _decl32_before(code)
    homes: dict[str, list[int]] = {}  # where each held name is stored a ballot (judged per function body)
    for m in _BALLOT.finditer(code):
        if cuda_only is not None and cuda_only(m.start()):
            continue  # its findings are dropped with the branch; its variable holds no ROCm mask
        # from the statement's start, so that a declaration wrapped before the call (clang-format's
        # `unsigned m =\n    __ballot_sync(...)`) is read too
        start = m.start() if m.group(1) != ".ballot" else m.start() - len(_left_operand(code, m.start()))
        decl = decl32.search(code, _wrap_start(start), start)
        func = m.group(1) if m.group(1) != ".ballot" else code[start:m.start()] + ".ballot"
        target = _assigned_name(code, start)
        if not target and decl is not None:  # `unsigned mask =\n    __activemask();`: wrapped before the call
            named = re.search(r"(\w+)\s*=\s*(?:\(\s*)*\Z", decl.group(0))
            target = named.group(1) if named is not None else ""
        if target and _MASK_ARG_BEFORE.search(code, max(0, start - 40), start):
            # `temp = __shfl_xor_sync(__activemask(), v, 1)`: the mask is the shuffle's member mask;
            # what is stored is the shuffled value, not the mask
            target = ""
        if func.endswith(".ballot") and _tile_at_most_32(code, func[:-len(".ballot")], start):
            if target and decl is None and not _declared_int32(code, target, m.start()):
                wide_tile.add(target)  # still 64 bits wide on HIP: __ffs of it does not compile
            continue  # a tile of at most 32 lanes: its ballot has 32 meaningful bits, tile-relative
        if (decl is not None or target) and (_lower_lanes_only(code, m.start()) or _halves_alike(code, m)):
            continue  # only lanes 0-31 can be active, or both halves vote alike: 32 bits hold the whole mask
        if target:
            held.add(target)
            homes.setdefault(target, []).append(m.start())
        if decl is not None and target and (func == "__activemask" and _only_sync_mask(code, target, m.end())
                                            or _only_sync_mask(code, target, m.end(), r"__match_(?:any|all)_sync")):
            # the mask rule names the *_sync calls; a 32-bit finding would repeat it. Not for a
            # ballot in general: its truncated result drops lanes 32-63 from the shuffles it masks
            # (ADEPT's `unsigned mask = __ballot_sync(...)`: a hazard named at the ballot); but a
            # ballot used only as __match_any_sync's member mask decides no value (ATOS's pushes)
            continue
        reassigned32 = decl is None and bool(target) and _declared_int32(code, target, m.start())
        if target and (decl is not None or reassigned32):
            narrow.add(target)
        if decl is not None:
            yield (decl.start(), "ballot-32bit", f"{func} result stored in a 32-bit integer: on a 64-lane wavefront "
                   "it returns 64 bits (unsigned long long) and lanes 32-63 are dropped",
                   f"store it in uint64_t and use __popcll/__ffsll; {EMULATE}", "")
        elif reassigned32:
            yield (m.start(), "ballot-32bit", f"{func} result assigned to {target}, declared as a 32-bit integer: "
                   "lanes 32-63 of a 64-lane wavefront are dropped", f"declare {target} uint64_t; {EMULATE}", "")
        elif _compared_to_ones32(code, m):
            yield (m.start(), "ballot-32bit", f"{func} result compared with the 32-bit all-ones 0xffffffff: on a "
                   "64-lane wavefront the ballot has 64 bits, so the test is false even when every lane votes",
                   f"compare with the wavefront's full mask (~0ull, or __activemask()); {EMULATE}", "")
        elif (masked := _masked_to_32(code, m)) is not None:  # named at the declaration, like a 32-bit store
            yield (masked[1], "ballot-32bit", f"{func} result masked with the 32-bit constant {masked[0]}: on a "
                   "64-lane wavefront the bits of lanes 32-63 are dropped: the upper half reads the lower half's vote",
                   f"widen the mask to 64 bits (repeat the pattern in the upper half) or shift by the half's "
                   f"base lane; {EMULATE}", "")
        elif _returned_32(code, m):
            yield (m.start(), "ballot-32bit", f"{func} {BALLOT_HANDED_ON} returned from a function declared "
                   "to return a 32-bit integer: lanes 32-63 of a 64-lane wavefront are dropped",
                   f"return uint64_t (unsigned long long); {EMULATE}", "")
        elif callee := _passed_to_32(code, m):
            yield (m.start(), "ballot-32bit", f"{func} {BALLOT_HANDED_ON} passed to {callee}, whose only "
                   "parameter is a 32-bit integer: lanes 32-63 of a 64-lane wavefront are dropped",
                   f"give {callee} a 64-bit overload (uint64_t, __ffsll / __clzll); {EMULATE}", "")
        elif func == "__activemask" and not _MASK_ARG_BEFORE.search(code, max(0, m.start() - 40), m.start()):
            # (passed straight as a *_sync mask it is 64-bit on HIP, which is right: nothing to say)
            yield (m.start(), "activemask", "__activemask() returns a 64-bit mask on AMD",
                   "keep it in uint64_t; loop to warpSize, not 32", "")
    for m in _POPC.finditer(code):
        end = code.find(";", m.end())
        arg = code[m.end():end if end >= 0 else m.end() + 200]  # `end > 0`: equivalent (end >= m.end() > 0)
        inner = _BALLOT.search(arg)
        first = _WORDS.findall(arg.split(")")[0])
        if inner is not None and inner.group(1) == ".ballot" and _tile_at_most_32(
                code, _left_operand(arg, inner.start()), m.start()) or wide_tile.intersection(first):
            if m.group(1) == "__ffs":
                yield (m.start(), "ballot-32bit", "__ffs of a cooperative-groups tile ballot, which HIP returns "
                       "as unsigned long long: ROCm 7 declares __ffs(int) and __ffs(unsigned int) only, so the "
                       "call is ambiguous and does not compile", f"use __ffsll on the 64-bit ballot; {EMULATE}", "")
            continue  # __popc(tile32.ballot(...)): a tile's ballot has the tile's bits only
        if m.group(1) == "__popc" and _threshold_count(code, m):
            continue
        if inner is not None and _lower_lanes_only(code, m.start()):
            continue  # `__clz(__ballot_sync(..))` where only lanes 0-31 run: 32 bits hold every vote
        if inner is not None or held and any(_same_function(code, m.start(), at)
                                             for n in held.intersection(first) for at in homes[n]):
            # (a held name counts in the function that stored the ballot in it: `unsigned mask =
            # ~bitmap` in another function is no ballot)
            yield (m.start(), "ballot-32bit", f"{m.group(1)} on a ballot/activemask: the 32-bit intrinsic sees lanes "
                   "0-31 only of a 64-lane wavefront's mask", f"use {m.group(1)}ll on the 64-bit mask; {EMULATE}", "")
    yield from _base_shifts(code, narrow)
    yield from _ballot_lane_bits(code)


def _ballot_lane_bits(code: str) -> Iterator[Hit]:
    """warp-size-literal at ``1 << lane`` (an int 1) where the lane was found in a ballot
    (``_ballot_lane``): judged here, with the ballots, not as lane math from the thread index."""
    for m in _SHIFT_LANE.finditer(code) if "__ffs" in code else ():
        if not _after_word(code, m.start()) and _ballot_lane(code, m.group(1), m.start()):
            yield (m.start(), "warp-size-literal", f"'1 << {m.group(1)}' builds the bit of a lane found in a "
                   "ballot in a 32-bit int: once the ballot is kept in 64 bits the lane reaches 63, the shift "
                   "goes past the int's width (undefined behaviour) and lanes 32-63's bits are never cleared",
                   f"use 1ull << {m.group(1)} with the 64-bit mask; {EMULATE}", "")


_THREAD_WORD = re.compile(r"([A-Za-z_]\w*)\s*=(?!=)[^;,]*?\bthreadIdx\.x\b")  # one declarator: no `,`
_FUNNEL = r"(?:uright_wrap|uleft_wrap|__funnelshift_[lr]c?)\s*\(\s*%s\s*,"  # with word(name)


def _base_shifts(code: str, narrow: set[str]) -> Iterator[Hit]:
    """A ballot kept in 32 bits, shifted (``>>`` / ``<<``, or a funnel shift such as
    ``uright_wrap(mask, 0, amt)``) by an amount computed from the thread's place in the warp
    (``threadIdx.x ^ group_thread``, ``warp_thread - group_thread``): the bits of the thread's
    group. At 64 lanes that base reaches 32-63: a plain shift goes past the value's width
    (undefined) and a funnel shift wraps at 32, so groups in lanes 32-63 read lanes 0-31's bits."""
    if not narrow or "threadIdx" not in code:
        return
    thread = {m.group(1) for m in _THREAD_WORD.finditer(code)} | {"threadIdx"}
    # a value computed from such ballots (CGBN's carry sum `sum = make_wide(g, g) + make_wide(p, p)`)
    # funnel-shifted the same way: `uright_wrap(sum >> 32, 0, threadIdx.x - group_thread + tpi)`
    votes = "|".join(map(re.escape, sorted(narrow)))
    made = {m.group(1) for m in re.finditer(r"([A-Za-z_]\w*)\s*=(?!=)[^;]*?\b(?:" + votes + r")\b", code)} - narrow
    funnels = [(n, re.compile(_FUNNEL % (word(n) + r"[^,;]*"))) for n in sorted(made)]
    for name, pattern in [(n, re.compile(word(n) + r"\s*(?:>>|<<)(?![<>=])|" + _FUNNEL % word(n)))
                          for n in sorted(narrow)] + funnels:
        shifts = pattern
        for m in shifts.finditer(code):
            if m.group(0).rstrip().endswith(","):
                args = split_args(_call_args(code, code.find("(", m.start())))
                amount = args[2] if len(args) > 2 else ""
            else:
                amount = _right_operand(code, m.end())
            if not set(_WORDS.findall(amount)) & thread:
                continue
            what = "a ballot kept in 32 bits" if name in narrow else "computed from ballots kept in 32 bits"
            yield (m.start(), "ballot-32bit", f"{name}, {what}, shifted by the thread's place in "
                   f"the warp ({amount.strip()[:40]}): at 64 lanes that reaches 32-63, past the value's 32 bits (a "
                   "funnel shift wraps at 32), so groups in lanes 32-63 read lanes 0-31's votes",
                   f"keep the ballot in 64 bits (uint64_t) and shift it with 64-bit operations; {EMULATE}", "")


_ACTIVE_COUNT = re.compile(r"__popc\s*\(\s*__activemask\s*\(\s*\)\s*\)")
_ORDER_AFTER = re.compile(r"\s*(?:<=?|>=?)(?![<>=])\s*([A-Za-z_][\w.]*(?:->[\w.]+)*)\s*\)")
_ORDER_BEFORE = re.compile(r"\(\s*([A-Za-z_][\w.]*(?:->[\w.]+)*)\s*(?:<=?|>=?)\s*\Z")
_WIDTH_WORD = re.compile(r"(?i)warp|wave|lane|32|64")


def _threshold_count(code: str, m: re.Match[str]) -> bool:
    """Is ``__popc(__activemask())`` at ``m`` the whole of one side of a condition that orders it
    against a run-time value (``if (__popc(__activemask()) <= cfg.threshold)``): a count of the
    active lanes picking one of two ways to do the same work? At 64 lanes the count sees lanes
    0-31 only, which moves the switch point, not the result. Not against a literal or a name of
    the warp's width (``< 32``, ``== warpSize``: "is the whole warp here", a hazard), not a ballot
    (its count is data), not when the count is stored or used in arithmetic."""
    whole = _ACTIVE_COUNT.match(code, m.start())
    if whole is None:
        return False
    after = _ORDER_AFTER.match(code, whole.end())
    before = _ORDER_BEFORE.search(code, max(0, m.start() - 80), m.start())
    other = after.group(1) if after else before.group(1) if before else ""
    if not other or _WIDTH_WORD.search(other):
        return False
    head = code[max(0, code.rfind("\n", 0, m.start())):m.start()]
    return re.search(r"\b(?:if|while)\s*\(\s*(?:\(\s*)*(?:[A-Za-z_][\w.]*(?:->[\w.]+)*\s*(?:<=?|>=?)\s*)?\Z",
                     head) is not None


# the hardware lane: HIP's __lane_id(), or a lane helper of the file (`lane_id()`, `getLaneId()`)
# whose body reads it: PTX %laneid (hipify makes it __lane_id()), __lane_id() or `% warpSize`: 0-63
# on a 64-lane wavefront. A helper defined elsewhere is not judged (groute's lane_id() is
# `threadIdx.x & (WARP_SIZE - 1)` with WARP_SIZE 32: a logical lane, 0-31)
_HW_LANE_CALL = re.compile(r"(?<![\w.])(?:\w+::)?(__lane_id|(?i:get_?lane_?id|lane_?id))\s*\(\s*\)")
_LANE_DEF = r"%s\s*\(\s*\)[^;{}]*\{"  # with word(name)
_WIDE_LEFT = re.compile(r"(?i)\d+u?ll\b|\d+llu\b|uint64_t|long\s+long|size_t|u64|int64_t")
_WIDE_DECL = r"\b(?:u?int64_t|(?:unsigned\s+)?long\s+long(?:\s+int)?|size_t|u64)\s+(?:const\s+)?%s\b"


def _right_operand(code: str, at: int) -> str:
    """The expression right of the operator ending at ``at``: up to a `;`, `,`, `?`, `:` or an
    unmatched `)` (at most 200 characters)."""
    depth = 0
    for i in range(at, min(len(code), at + 200)):
        c = code[i]
        depth += c == "("
        if c == ")":
            if depth == 0:
                return code[at:i]
            depth -= 1
        elif depth == 0 and c in (";", ",", "?", ":", "{", "}") and not (c == ":" and ":" in code[i - 1:i + 2:2]):
            return code[at:i]  # (a `::` of a qualified name is no `:` of a conditional)
    return code[at:at + 200]


# "ane_id", "aneId" or "aneid": a text without any holds no call _lane_call_at_lane looks for (one
# pass from each "ane" instead of a str.find per spelling)
_LANE_SPELLINGS = re.compile(r"ane(?:_id|Id|id)")


@lru_cache(maxsize=_TEXT_CACHE)
def has_lane_call(code: str) -> bool:
    """Does ``code`` call ``__lane_id()`` or a lane helper (the only shifts hardware_lane_shifts judges)?
    (Cached per text: checks._warp asks, then hardware_lane_shifts.)"""
    return _LANE_SPELLINGS.search(code) is not None and _lane_call_at_lane(code)


def _lane_call_at_lane(code: str) -> bool:
    """Does _HW_LANE_CALL match anywhere in ``code``? A match with a ``ns::`` prefix implies one
    without it (the name after `::` passes the lookbehind), and that one starts at most 4
    characters before its "lane" ("get_lane_id", "__lane_id"): the pattern is tried there only,
    at each "lane" followed by "id" or "_id" in any case, not at every offset of the file. Non-ASCII
    text is searched whole: the pattern's (?i) also folds 'ı' and 'K', and lower() may change lengths."""
    if not code.isascii():
        return _HW_LANE_CALL.search(code) is not None
    low = code.lower()
    at = low.find("lane")
    while at >= 0:
        if low.startswith(("id", "_id"), at + 4) and any(
                _HW_LANE_CALL.match(code, start) for start in range(max(0, at - 4), at + 1)):
            return True
        at = low.find("lane", at + 4)
    return False


def _hardware_helper(code: str, name: str, laneid_at: tuple[int, ...], headers: Iterable[str]) -> bool:
    """Is ``name`` ``__lane_id``, or a helper this file (else a quoted header it includes, read raw)
    defines whose body reads the hardware lane?"""
    if name == "__lane_id":
        return True
    d = re.search(_LANE_DEF % word(name), code)
    if d is not None:
        end = code.find("}", d.end())
        body = code[d.end():end]
        return "__lane_id" in body or "warpSize" in body or any(d.end() <= at < end for at in laneid_at)
    for text in headers:
        d = re.search(_LANE_DEF % word(name), text) if name in text else None
        if d is not None:
            body = text[d.end():text.find("}", d.end())]
            return "%laneid" in body or "__lane_id" in body or "warpSize" in body
    return False


def hardware_lane_shifts(code: str, laneid_at: tuple[int, ...] = (), headers: Iterable[str] = ()) -> Iterator[Hit]:
    """``mask << (lane_id() & ~(N - 1))``, ``pred << __lane_id()``: a value that is not 64-bit
    shifted by the hardware lane. On a 64-lane wavefront the lane reaches 63, so a 32-bit mask
    shifts past its width (undefined behaviour) and lanes 32-63 lose their bit."""
    if "<<" not in code or not has_lane_call(code):
        return
    hardware: dict[str, bool] = {}
    at = code.find("<<")
    while at >= 0:
        nxt = code.find("<<", at + 2)
        if code[at + 2:at + 3] in ("=", "<") or code[at - 1:at] == "<":
            at = nxt
            continue
        right = _right_operand(code, at + 2)
        call = _HW_LANE_CALL.search(right)
        if call is not None:
            name = call.group(1)
            if name not in hardware:
                hardware[name] = _hardware_helper(code, name, laneid_at, headers)
            left = _left_operand(code, at).strip()
            wide = _WIDE_LEFT.search(left) or re.fullmatch(r"[A-Za-z_]\w*", left) and re.search(
                _WIDE_DECL % re.escape(left), code[:at])
            if left and hardware[name] and not wide:
                yield (at, "warp-size-literal", f"'{left} << {right.strip()[:40]}' shifts a 32-bit value by the "
                       "hardware lane: on a 64-lane wavefront it reaches 63, so lanes 32-63 shift past the "
                       "value's width (undefined behaviour) and lose their bit",
                       f"use a 64-bit value (1ull, uint64_t) for lane masks; {EMULATE}", "")
        at = nxt
