"""Which lines of a file ROCm compiles as CUDA code: preprocessor branches and Rust cfgs.

A branch whose condition names a HIP/ROCm platform macro (``__HIP_PLATFORM_AMD__``,
``USE_ROCM``, ``GGML_USE_HIP``, ``__gfx942__``...) is already ported (``HIP``); the other branch
of such an ``#if`` (``#ifndef``, ``!defined``, ``#else``, a later ``#elif``) is the CUDA side of
a port and is never compiled for ROCm (``CUDA``). A branch under a CUDA version or arch check
(``#if __CUDA_ARCH__ >= 800``, ``#if CUDART_VERSION >= 12000``) is false on ROCm, since HIP
defines neither, so it is CUDA-side too; its ``#else`` is what ROCm compiles. Rust items under
``#[cfg(use_rocm)]`` are HIP, under ``#[cfg(not(use_rocm))]`` CUDA.

``regions(code)`` returns a bytearray indexed by line number (1-based): ``NEUTRAL``, ``HIP`` or
``CUDA``, and the version-check directives it saw (for the ``cuda-version-check`` rule).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from .tokenize import brace_end

NEUTRAL, HIP, CUDA = 0, 1, 2

# starts at '#' (a literal the regex engine can skip to); "only indentation before it" is checked by hand
_DIRECTIVE = re.compile(r"#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b((?:[^\n\\]|\\.)*)", re.DOTALL)
_ONE_MACRO = re.compile(r"\s*(!)?\s*(?:defined\s*\(?\s*)?([A-Za-z_]\w*)\s*\)?\s*\Z")
_DEFINE = re.compile(r"#[ \t]*define[ \t]+(\w+)")
_WORD = re.compile(r"(!?\s*(?:defined\s*\(?\s*)?)([A-Za-z_]\w*)")
# Platform macros: the HIP compiler's own, the common project spellings, and AMD GPU arch macros.
_HIP_MACRO = re.compile(r"__HIP_PLATFORM_(?:AMD|HCC)__|__HIPCC__|__HIP__|__HIP_DEVICE_COMPILE__|__HIP_ROCclr__"
                        r"|(?:\w+_)?(?:USE_)?(?:HIP|ROCM|ROCm|HCC)|__gfx\w+__|__GFX\d+__|HIP_VERSION\w*|ROCM_VERSION\w*"
                        r"|TORCH_HIP_VERSION|CDNA\d*|RDNA\d*")
_NOT_HIP = re.compile(r"\w*(?:NO|DISABLE)_\w*")  # GGML_HIP_NO_VMM: an option of the HIP build, not a platform
# CUDA version/arch macros: undefined under HIP, so a comparison on them is false on ROCm.
VERSION_MACRO = re.compile(r"\b(__CUDA_ARCH__|__CUDA_ARCH_LIST__|CUDART_VERSION|CUDA_VERSION|__CUDACC_VER_MAJOR__"
                           r"|__CUDACC_VER_MINOR__|__NVCC__|__CUDA_ARCH_FEAT_\w+|__CUDA_ARCH_SPECIFIC__)\b")
_RUST_CFG = re.compile(r"#\[cfg\((not\()?\s*use_rocm\s*\)?\)\]")


@dataclass
class VersionCheck:
    offset: int  # of the macro name in the directive
    macro: str
    directive: str  # "if", "ifdef", ...
    hip_aware: bool = False  # the condition also tests a HIP macro: ROCm's branch was chosen on purpose



def _at_line_start(pattern: re.Pattern[str], code: str) -> Iterator[tuple[int, re.Match[str]]]:
    """(1-based line, match) of ``pattern``'s matches that only blanks precede on their line: a
    '#' inside a line (token pasting, a stray character) is not a directive."""
    line, pos = 1, 0
    for m in pattern.finditer(code):
        if code[code.rfind("\n", 0, m.start()) + 1:m.start()].strip(" \t"):
            continue
        line += code.count("\n", pos, m.start())
        pos = m.start()
        yield line, m

@lru_cache(maxsize=4)
def _directives(code: str) -> tuple[tuple[int, re.Match[str]], ...]:
    """_at_line_start(_DIRECTIVE, code), kept for the last few texts: regions, feature_ranges,
    never_compiled and dead_by_file each walk the same file's conditionals, with headers read in
    between (one scan instead of several; a str keeps its hash, and the same object compares equal
    at once)."""
    return tuple(_at_line_start(_DIRECTIVE, code))


@lru_cache(maxsize=8192)
def _polarity(directive: str, cond: str) -> tuple[int, int]:
    """(side of the branch a directive opens, side that a later #elif/#else branch implies).
    Cached: the answer depends on the directive's text alone, and the same conditions (include
    guards aside, `#ifdef __CUDA_ARCH__`, `#if CUDART_VERSION >= ...`) recur in every file."""
    if directive in ("ifdef", "ifndef"):
        name = cond.strip().split()[0] if cond.strip() else ""
        if not _HIP_MACRO.fullmatch(name) or _NOT_HIP.fullmatch(name):
            return NEUTRAL, NEUTRAL
        return (HIP, CUDA) if directive == "ifdef" else (CUDA, HIP)
    signs = set()
    others = False
    for m in _WORD.finditer(cond):
        name = m.group(2)
        if name == "defined" or not _HIP_MACRO.fullmatch(name) or _NOT_HIP.fullmatch(name):
            others = others or name != "defined"
            continue
        signs.add("!" not in m.group(1))
    # `!HIP && X`: its #else runs on HIP and on CUDA without X, so it is not HIP-only
    rest_open = others and "&&" in cond
    if signs == {True}:
        if others and "||" in cond:
            return NEUTRAL, CUDA  # `CUDA_ARCH >= 300 || HIP`: code both platforms compile
        return HIP, NEUTRAL if rest_open else CUDA
    if signs == {False}:
        return CUDA, NEUTRAL if rest_open else HIP
    if not signs and VERSION_MACRO.search(cond):
        # the preprocessor's truth on ROCm, where these macros are 0: `#if __CUDA_ARCH__ >= 800` is
        # false (ROCm compiles the #else), `#if CUDART_VERSION < 9000` true (the #else is CUDA-only)
        value = rocm_value(cond)
        if value is not None:
            return {1: (NEUTRAL, CUDA), 0: (CUDA, NEUTRAL)}.get(value, (NEUTRAL, NEUTRAL))
        if "!" not in cond and "||" not in cond:
            return CUDA, NEUTRAL
    return NEUTRAL, NEUTRAL


def regions(code: str) -> tuple[bytearray, list[VersionCheck]]:
    """Per-line platform side of C code (comments already masked) and its version checks."""
    n_lines = code.count("\n") + 2
    side = bytearray(n_lines)
    if "#" not in code:
        return side, []
    checks: list[VersionCheck] = []
    # per open #if: [side of the current branch, side a later branch implies, 1 if the chain tests HIP]
    stack: list[list[int]] = []
    events: list[tuple[int, int]] = []  # (line, side from this line on)
    directive_sides: list[tuple[int, int]] = []
    for line, m in _directives(code):
        kind, cond = m.group(1), m.group(2)
        if kind in ("if", "ifdef", "ifndef", "elif"):
            # an #elif of a chain that tested HIP first (#if HIP ... #elif CUDART_VERSION) is CUDA-only
            aware = (kind == "elif" and bool(stack) and stack[-1][2] == 1) or _tests_hip(cond)
            for v in VERSION_MACRO.finditer(cond):
                checks.append(VersionCheck(m.start(2) + v.start(), v.group(1), kind, aware))
        if kind in ("if", "ifdef", "ifndef"):
            stack.append([*_polarity(kind, cond), int(aware)])
        elif kind in ("elif", "else") and stack:
            own, own_rest = _polarity("if", cond) if kind == "elif" else (NEUTRAL, NEUTRAL)
            stack[-1][2] |= int(kind == "elif" and aware)
            rest = stack[-1][1]
            stack[-1][0] = own if own != NEUTRAL else rest
            if rest == NEUTRAL:
                stack[-1][1] = own_rest
        elif kind == "endif" and stack:
            stack.pop()
        current = next((s[0] for s in reversed(stack) if s[0] != NEUTRAL), NEUTRAL)
        events.append((line, current))
        # the directive line itself belongs to the branch around it (`#if __CUDA_ARCH__ >= 800`
        # inside the #else of a HIP #if is CUDA-only code too)
        around = stack if kind == "endif" else stack[:-1]
        directive_sides.append((line, next((s[0] for s in reversed(around) if s[0] != NEUTRAL), NEUTRAL)))
    _fill(side, events)
    for at, value in directive_sides:
        side[at] = value
    return side, checks


@lru_cache(maxsize=8192)
def _tests_hip(cond: str) -> bool:
    """Does an #if condition test a HIP platform macro? (Cached by its text, like _polarity.)"""
    return any(_HIP_MACRO.fullmatch(w.group(2)) and not _NOT_HIP.fullmatch(w.group(2)) for w in _WORD.finditer(cond))


def feature_ranges(code: str) -> list[tuple[int, int, str, bool]]:
    """(first line, last line, MACRO, tested by value) of the branches compiled only when MACRO is
    defined: ``#ifdef M`` / ``#if defined(M)`` / ``#if M`` bodies and the ``#else`` of ``#ifndef M``;
    the flag is set for ``#if M`` (which also needs M's value to be non-zero). Which such macros
    exist only on CUDA (deepspeed's PTX_AVAILABLE, defined under __CUDA_ARCH__) or are 0 on ROCm
    is a tree-level fact, decided in scan.py from ``define_sides`` and ``false_defines``."""
    out: list[tuple[int, int, str, bool]] = []
    if "#" not in code:
        return out
    # per open #if: [macro or "", line its defined-only branch opened (0: none open), negated test]
    stack: list[list] = []
    for line, m in _directives(code):
        kind, cond = m.group(1), m.group(2)
        if kind in ("if", "ifdef", "ifndef"):
            one = _ONE_MACRO.match(cond)
            name = one.group(2) if one and not _HIP_MACRO.fullmatch(one.group(2)) else ""
            negated = kind == "ifndef" or bool(one and one.group(1))
            by_value = kind == "if" and not negated and "defined" not in cond
            stack.append([name, 0 if negated or not name else line + 1, negated, by_value])
            continue
        if not stack:
            continue
        name, since, negated, by_value = stack[-1]
        if since:
            out.append((since, line - 1, name, by_value))
            stack[-1][1] = 0
        if kind == "else" and name and negated:
            stack[-1][1] = line + 1  # #ifndef M ... #else: the #else needs M
            stack[-1][3] = False
        if kind == "elif":
            stack[-1][0] = ""  # later branches mean "not defined and ...": stop tracking
        if kind == "endif":
            stack.pop()
    return out


def define_sides(code: str, side: bytearray) -> tuple[set[str], set[str]]:
    """(macros #defined on the CUDA side of a platform #if, macros #defined anywhere else)."""
    cuda: set[str] = set()
    other: set[str] = set()
    if "define" not in code:
        return cuda, other
    for line, m in _at_line_start(_DEFINE, code):
        (cuda if side[line] == CUDA else other).add(m.group(1))
    return cuda, other


_DEFINE_VALUE = re.compile(r"#[ \t]*define[ \t]+(\w+)[ \t]+((?:[^\n\\]|\\.)*)")
_CUDA_VERSION = re.compile(r"\bCUDA_VERSION\b")


def false_defines(code: str, side: bytearray) -> tuple[set[str], set[str]]:
    """(object-like macros #defined, outside a CUDA branch, to a value that is 0 on ROCm; those
    #defined to anything else there). ``#define FP4_TYPE_SUPPORTED (CUDA_VERSION >= 12080)`` is 0
    on ROCm whether CUDA_VERSION stays undefined (0) or hipify renames it to TORCH_HIP_VERSION (7xx),
    so ``#if FP4_TYPE_SUPPORTED`` is never compiled there (``#ifdef`` of it is: the macro exists)."""
    zero: set[str] = set()
    other: set[str] = set()
    if "define" not in code:
        return zero, other
    for line, m in _at_line_start(_DEFINE_VALUE, code):
        if side[line] == CUDA:
            continue
        (zero if _zero_on_rocm(m.group(2).split("//")[0].split("/*")[0]) else other).add(m.group(1))
    return zero, other


@lru_cache(maxsize=8192)
def _zero_on_rocm(value: str) -> bool:
    """Is a macro's value 0 on ROCm, CUDA_VERSION undefined or renamed? (Cached by the value's text:
    the same values recur in every file that #defines them.)"""
    return {rocm_value(_CUDA_VERSION.sub(v, value)) for v in ("0", "700")} == {0}


# CUTLASS's and CuTe's arch switches (cutlass/arch/config.h, cute/arch/*.hpp) are #defined only
# under `defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= ...` tests, so ROCm's compiler never sees them
# defined; the headers are often absent from the tree (a submodule), so the names are judged here.
LIBRARY_CUDA_ARCH_MACRO = re.compile(r"(?:CUTLASS|CUTE)_ARCH_\w+_ENABLED")


def _fill(side: bytearray, events: list[tuple[int, int]]) -> None:
    """Apply (line, side-after-this-directive) events; a directive line itself is neutral."""
    for (line, value), nxt in zip(events, events[1:] + [(len(side), NEUTRAL)]):
        if value:
            side[line + 1:nxt[0]] = bytes([value]) * max(0, nxt[0] - line - 1)


def rust_regions(code: str) -> bytearray:
    """Per-line side of Rust code: items under #[cfg(use_rocm)] / #[cfg(not(use_rocm))]."""
    side = bytearray(code.count("\n") + 2)
    if "use_rocm" not in code:
        return side
    for m in _RUST_CFG.finditer(code):
        value = CUDA if m.group(1) else HIP
        end = _item_end(code, m.end())
        first = code.count("\n", 0, m.start()) + 1
        last = first + code.count("\n", m.start(), end)
        side[first:last + 1] = bytes([value]) * (last - first + 1)
    return side


def _item_end(code: str, at: int) -> int:
    """End offset of the item that starts at ``at``: its ';' or its closing brace."""
    semi = code.find(";", at)
    brace = code.find("{", at)
    if brace < 0 or (0 <= semi < brace):
        return semi if semi >= 0 else len(code)
    return brace_end(code, brace, len(code))


def hip_file(includes: list[str]) -> bool:
    """A file that includes HIP's runtime headers is HIP code (a shim or an already ported file)."""
    return any(inc.startswith(("hip/", "hipblas", "hiprand", "rocblas", "hipcub", "rocprim")) for inc in includes)


_COMMENTED_DEFINE = re.compile(r"(?://|/\*)[ \t]*#[ \t]*define[ \t]+(\w+)")


def never_compiled(code: str, raw: str) -> bytearray:
    """Per-line flag (1-based): a branch ROCm's compiler never reads, by the preprocessor's own
    arithmetic (``rocm_value``) with the CUDA macros HIP never defines as 0: ``#ifdef __CUDA_ARCH__``,
    the ``#else`` of ``#if !defined(__CUDA_ARCH__)`` and of ``#if __CUDA_ARCH__ < 700`` (0 < 700), a
    branch after a true one, and a branch under a macro whose only ``#define`` in the file is
    commented out (``// #define USE_PTX``: nothing defines it). Only the inline-PTX rule reads this: PTX there
    cannot reach a ROCm build, while other rules keep their findings (hipify may map the test)."""
    n_lines = code.count("\n") + 2
    out = bytearray(n_lines)
    if "#" not in code:
        return out
    live = set(_DEFINE.findall(code))
    dead = {name for name in _COMMENTED_DEFINE.findall(raw) if name not in live}
    # per open #if: [this branch never compiled, an earlier branch of the chain is true on ROCm]
    stack: list[list[int]] = []
    events: list[tuple[int, int]] = []
    for line, m in _directives(code):
        kind, cond = m.group(1), m.group(2)
        if kind in ("if", "ifdef", "ifndef"):
            never, later_never = _never_polarity(kind, cond, dead)
            stack.append([never, later_never])
        elif kind == "elif" and stack:
            never, _ = _never_polarity("if", cond, dead)
            taken = stack[-1][1]
            # a branch after a true one is never compiled; a true #elif closes the rest too
            stack[-1] = [taken or never, taken or int(rocm_value(cond, dead) == 1)]
        elif kind == "else" and stack:
            stack[-1] = [stack[-1][1], stack[-1][1]]
        elif kind == "endif" and stack:
            stack.pop()
        events.append((line, int(any(s[0] for s in stack))))
    _fill(out, events)
    return out


def _never_polarity(kind: str, cond: str, dead: set[str]) -> tuple[int, int]:
    """(this branch is never compiled on ROCm, its #else is never compiled)."""
    if kind in ("ifdef", "ifndef"):
        name = (cond.split() or [""])[0]
        cond = ("!" if kind == "ifndef" else "") + f"defined({name})"
    value = rocm_value(cond, dead)
    if value is None or value == UNKNOWN:
        return 0, 0
    return (0, 1) if value else (1, 0)


# the CUDA macros ROCm's compiler never defines and hipify leaves as they are (CUDA_VERSION and
# __CUDACC__ are renamed by hipify, so their tests are not judged here)
_UNDEFINED_ON_ROCM = frozenset({"__CUDA_ARCH__", "__CUDA_ARCH_LIST__", "CUDART_VERSION", "__NVCC__",
                                "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__", "__CUDA_ARCH_SPECIFIC__",
                                "__NVPTX__", "__PTX__"})  # the PTX target's macros: never an AMD target
_PP_TOKEN = re.compile(r"\s*(?:(\d+)[uUlL]*|(defined)\b|([A-Za-z_]\w*)|(&&|\|\||==|!=|<=|>=|<<|>>|[-+*/%<>!()?:~&|^]))")


UNKNOWN = -1  # rocm_value: the condition depends on a macro a -D option may define


def rocm_value(cond: str, dead: frozenset[str] | set[str] = frozenset()) -> int | None:
    """The value of an ``#if`` condition on ROCm, the CUDA macros ROCm never defines
    (``__CUDA_ARCH__``, ``CUDART_VERSION``, a macro whose one ``#define`` is commented out) being 0
    in ``#if``: ``#if __CUDA_ARCH__ < 700`` is 1 on ROCm, so its ``#else`` is never compiled.
    Other names are unknown (UNKNOWN unless ``&&``/``||`` decide without them: ``__CUDA_ARCH__ >=
    800 && defined(X)`` is 0); None when the condition does not parse."""
    tokens: list[str | int | None] = []
    at, cond = 0, cond.strip()
    while at < len(cond):
        m = _PP_TOKEN.match(cond, at)
        if m is None:
            return None
        at = m.end()
        if m.group(1) is not None:
            tokens.append(int(m.group(1)))
        elif m.group(2):
            d = re.match(r"\s*(\()?\s*([A-Za-z_]\w*)\s*(?(1)\))", cond[at:])
            if d is None:
                return None
            at += d.end()
            tokens.append(0 if d.group(2) in _UNDEFINED_ON_ROCM or d.group(2) in dead else None)
        elif m.group(3):
            tokens.append(0 if m.group(3) in _UNDEFINED_ON_ROCM or m.group(3) in dead else None)
        else:
            tokens.append(m.group(4))
    try:
        value, rest = _pp_expr(tokens, 0, 0)
    except (IndexError, ValueError, ZeroDivisionError):
        return None
    if rest != len(tokens):
        return None
    return UNKNOWN if value is None else int(bool(value))


# binary operators of #if by precedence (loosest first); ?: and the unary ones are parsed apart
_PP_LEVELS = (("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"),
              ("+", "-"), ("*", "/", "%"))


def _pp_expr(tokens: list, at: int, level: int) -> tuple[int | None, int]:
    """(value or None when unknown, next index) of the expression at ``tokens[at]`` with operators
    of ``level`` or tighter."""
    if level == len(_PP_LEVELS):
        return _pp_unary(tokens, at)
    left, at = _pp_expr(tokens, at, level + 1)
    while at < len(tokens) and tokens[at] in _PP_LEVELS[level]:
        op = tokens[at]
        right, at = _pp_expr(tokens, at + 1, level + 1)
        left = _pp_apply(str(op), left, right)
    if level == 0 and at < len(tokens) and tokens[at] == "?":
        yes, at = _pp_expr(tokens, at + 1, 0)
        if tokens[at] != ":":
            raise ValueError("?: without :")
        no, at = _pp_expr(tokens, at + 1, 0)
        left = None if left is None else yes if left else no
    return left, at


def _pp_apply(op: str, a: int | None, b: int | None) -> int | None:
    if op == "&&" and (a == 0 or b == 0) or op == "||" and (a or b):  # decided without the unknown side
        return int(op == "||")
    if a is None or b is None:
        return None
    if op in ("<<", ">>"):
        if not 0 <= b < 64:
            raise ValueError("shift out of range")  # undefined in C; never a large Python int
        return a << b if op == "<<" else a >> b
    if op in ("/", "%"):
        return int(a / b) if op == "/" else a - b * int(a / b)  # C truncates toward zero
    return {"||": lambda: int(bool(a or b)), "&&": lambda: int(bool(a and b)), "|": lambda: a | b,
            "^": lambda: a ^ b, "&": lambda: a & b, "==": lambda: int(a == b), "!=": lambda: int(a != b),
            "<": lambda: int(a < b), ">": lambda: int(a > b), "<=": lambda: int(a <= b),
            ">=": lambda: int(a >= b), "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b}[op]()


def _pp_unary(tokens: list, at: int) -> tuple[int | None, int]:
    tok = tokens[at]
    if tok in ("!", "-", "+", "~"):
        value, at = _pp_unary(tokens, at + 1)
        if value is None:
            return None, at
        return {"!": int(not value), "-": -value, "+": value, "~": ~value}[str(tok)], at
    if tok == "(":
        value, at = _pp_expr(tokens, at + 1, 0)
        if tokens[at] != ")":
            raise ValueError("unbalanced parenthesis")
        return value, at + 1
    if tok is None or isinstance(tok, int):
        return tok, at + 1
    raise ValueError(f"unexpected {tok}")


_DEFINE_LINE = re.compile(r"#[ \t]*(define|undef)[ \t]+(\w+)")


def dead_by_file(code: str) -> bytearray:
    """Per-line flag (1-based): a branch no build of this file compiles, by what the file itself
    says: ``#if 0``, the ``#else`` of ``#if 1``, ``#ifndef X`` / ``#if !defined(X)`` where the file
    ``#define``s X before it outside any conditional (an include guard aside). Unlike
    ``never_compiled``, neither the CUDA macros nor a macro whose ``#define`` is commented out are
    taken as 0 here (hipify may map the first, a ``-D`` option may define the second: llm.c's
    ``ENABLE_CUDNN``), so every rule may drop what it finds there: a hazard in a branch nothing
    compiles is no hazard."""
    if "#" not in code or not _decidable(code):
        return bytearray()  # no line is dead (callers index only below len(); most files land here)
    out = bytearray(code.count("\n") + 2)
    defined: set[str] = set()
    stack: list[list[int]] = []  # per open #if: [branch dead, a branch of the chain taken, a guard]
    events: list[tuple[int, int]] = []
    marks = sorted([(line, 0, m) for line, m in _directives(code)]
                   + [(line, 1, m) for line, m in _at_line_start(_DEFINE_LINE, code)], key=lambda e: e[:2])
    guard = ""
    for line, is_define, m in marks:
        if is_define:
            if m.group(1) == "undef":
                defined.discard(m.group(2))
            elif m.group(2) == guard or all(s[2] for s in stack) and not any(s[0] for s in stack):
                defined.add(m.group(2))
            guard = ""
            continue
        kind, cond = m.group(1), m.group(2)
        guard = cond.split()[0] if kind == "ifndef" and cond.split() and not stack else ""
        if kind in ("if", "ifdef", "ifndef"):
            if kind != "if":
                name = (cond.split() or [""])[0]
                cond = ("!" if kind == "ifndef" else "") + f"defined({name})"
            value = _file_value(cond, defined)
            stack.append([int(value == 0), int(value == 1), int(bool(guard))])
        elif kind == "elif" and stack:
            value = _file_value(cond, defined)
            taken = stack[-1][1]
            stack[-1] = [int(bool(taken) or value == 0), int(bool(taken) or value == 1), 0]
        elif kind == "else" and stack:
            stack[-1] = [stack[-1][1], 1, 0]
        elif kind == "endif" and stack:
            stack.pop()
        events.append((line, int(any(s[0] for s in stack))))
    _fill(out, events)
    return out


_NUMERIC = re.compile(r"\(?\s*\d+\s*\)?")
_NAME = re.compile(r"[A-Za-z_]\w*")


def _decidable(code: str) -> bool:
    """Might the file decide one of its conditionals: a numeric ``#if``, or a macro it tests that it
    also ``#define``s (the first directive's name aside: an include guard)? Most files have
    neither, and skip dead_by_file's walk."""
    directives = _directives(code)
    defines = set(_DEFINE.findall(code)) if "define" in code else set()
    first = _DEFINE.search(code)
    for k, (_, m) in enumerate(directives):
        kind, cond = m.group(1), m.group(2).strip()
        if kind in ("if", "elif") and _NUMERIC.fullmatch(cond):
            return True
        guard = k == 0 and kind == "ifndef" and first is not None and first.start() > m.start() and \
            first.group(1) == (cond.split() or [""])[0]
        if defines and kind in ("if", "elif", "ifdef", "ifndef") and not guard:
            if any(w in defines for w in _NAME.findall(cond)):
                return True
    return False


def _file_value(cond: str, defined: set[str]) -> int | None:
    """An #if condition's value from the file alone: numbers and ``defined(X)`` of a macro the
    file defines before it (1); any other name leaves it unknown (None)."""
    named = re.sub(r"\bdefined\s*(\()?\s*([A-Za-z_]\w*)\s*(?(1)\))",
                   lambda d: "1" if d.group(2) in defined else d.group(0), cond)
    if re.search(r"[A-Za-z_]", named):
        return None  # a macro the file does not decide
    value = rocm_value(named)
    return None if value is None or value == UNKNOWN else value


# `if (false)` / `if (0)`, or `if constexpr (` (its condition read by hand); opening with the literal
# "if" so that the engine jumps from one "if" to the next (the lookbehind is checked after it)
_STATIC_IF = re.compile(r"if(?<![\w.]if)\s*(?:\(\s*(?:false|0)\s*\)|(constexpr)\s*\()")
_FILE_CONST = re.compile(r"\bconstexpr\s+(?:static\s+)?(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:int|long|short|size_t|"
                         r"u?int(?:8|16|32|64)_t|bool|auto)\s+([A-Za-z_]\w*)\s*=\s*([^;{}]*);")


def dead_statements(code: str) -> bytearray:
    """Per-line flag (1-based) for the body of an ``if`` whose condition is false by the file's own
    text: ``if (false)`` / ``if (0)`` (a path switched off by hand: ngAP keeps such copies), and
    ``if constexpr (...)`` whose condition, with the file's ``constexpr`` constants put in (each
    defined once in the file), is 0: the branch is never instantiated. A condition that names
    anything else is left alone. ``code`` has its comments and strings blanked."""
    if "if" not in code or ("false" not in code and "constexpr" not in code and "0" not in code):
        return bytearray()
    consts: dict[str, str] = {}
    out = bytearray()
    for m in _STATIC_IF.finditer(code):
        close = m.end() - 1  # the `)` of `if (false)`
        if m.group(1):
            close = brace_end(code, m.end() - 1, len(code), "()")
            consts = consts or _file_constants(code)
            cond = re.sub(r"[A-Za-z_]\w*", lambda w: consts.get(w.group(0), w.group(0)),  # noqa: B023
                          code[m.end():close].strip())
            cond = re.sub(r"(?<=\d)[uUlL]+\b", "", re.sub(r"\bfalse\b", "0", re.sub(r"\btrue\b", "1", cond)))
            if re.search(r"[A-Za-z_]", cond) or rocm_value(cond) != 0:
                continue
        body = close + 1 + len(code[close + 1:]) - len(code[close + 1:].lstrip())
        end = brace_end(code, body, len(code)) if code[body:body + 1] == "{" else code.find(";", body)
        if end < 0:
            continue
        first, last = code.count("\n", 0, close) + 1, code.count("\n", 0, end) + 1
        if not out:
            out = bytearray(code.count("\n") + 2)
        for line in range(first + (code[body:body + 1] == "{" and "\n" in code[close:body + 1]), last + 1):
            out[line] = 1
    return out


def _file_constants(code: str) -> dict[str, str]:
    """The file's ``constexpr`` integer constants defined once (a name defined twice, say in two
    namespaces, is not decided), each with its initializer's text; {"": ""} when there are none
    (a non-empty answer: asked once per file)."""
    defs = _FILE_CONST.findall(code)
    counts: dict[str, int] = {}
    for name, _ in defs:
        counts[name] = counts.get(name, 0) + 1
    return {n: v.strip() for n, v in defs if counts[n] == 1} or {"": ""}
