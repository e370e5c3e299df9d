"""The rule checks: regexes over masked code (see mask.py), table lookups, small context tests."""

from __future__ import annotations

import bisect
import itertools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..rocm_libraries import family_of
from . import branches, curated, includes, layouts, model, specialised, warp, wrappers
from .findings import Finding, snippet_at
from .mask import Masked
from .rules import RULES
from .symbols import SymbolSets
from .tables import hipify_map

CUDA_NAME = (r"cuda[A-Z]\w*|cu[A-Z]\w*|CU[a-zA-Z_]\w*|cublas\w*|cusparse\w*|curand\w*|cufft\w*|cusolver\w*"
             r"|nvrtc\w*|NVRTC_\w+|nvtx\w*|nvml\w+|nccl\w+|NCCL_\w+|cudnn\w+|nvshmemx?_\w+|__nv_\w+")
# The candidates of CUDA_NAME, one pattern per literal start, for warp.merged: the engine jumps from
# one "cu" (or "CU", "nv"...) to the next instead of testing c/C/n/N/_ at every offset as their
# alternation did (2.5x faster). A match of one inside a match of another follows a word character,
# which _identifiers skips (as it skipped the same positions when the alternation's matches hid them).
_IDENT_STARTS = tuple(re.compile(p) for p in (
    r"cu(?:da[A-Z]|[A-Z]|blas|sparse|rand|fft|solver|dnn)\w*", r"CU[a-zA-Z_]\w*", r"nv(?:rtc|tx|ml|shmemx?_)\w*",
    r"NVRTC_\w*", r"nccl\w*", r"NCCL_\w*", r"__nv_\w*"))
_CUDA_FULL = re.compile(r"(?:" + CUDA_NAME + r")\Z")
_ASM_RE = re.compile(r"(?:asm|__asm__|__asm)\s*(?:volatile|__volatile__)?\s*(?:goto\s*)?\(")
_PTX_HINT = re.compile(r"%laneid|%warpid|\.reg\b|\bmov\.|\bld\.|\bst\.|\bcvta|\bshfl\.|\bvote\.|\bbar\.sync"
                       r"|\bmembar|\bprmt|\.[bsuf](?:16|32|64)\b")
_DEVICE_HINT = re.compile(r"\b__device__\b|\b__global__\b")
_LOOKUP_CONTEXT = re.compile(r"dlsym|dlvsym|GetProcAddress|getProcAddress|GetDriverEntryPoint"
                             r"|\bget\s*(?:::<[^>]*>)?\s*\("
                             r"|symbol|lookup", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z_]\w*")
_ROCM7_REMOVED_RE = re.compile(r"\b(?:" + "|".join(curated.ROCM7_REMOVED) + r")\b")
# warpSize where C++ needs a constant expression: constexpr/static_assert/template arguments/array bounds
_WARPSIZE_CONST_RE = re.compile(
    r"constexpr\b[^;{]*?=\s*[^;]*?\bwarpSize\b|static_assert\s*\([^;]*?\bwarpSize\b"
    r"|<\s*warpSize\s*[,>]|case\s+warpSize\b"
    r"|(?:__shared__|\b(?:float|double|int|unsigned|char|short|long|bool|half|__half|u?int\d+_t|size_t|auto))"
    r"[\w\s:<>*]*?\b\w+\s*\[[^\[\]\n]*\bwarpSize\b")
# a project's own constant named warpSize: `constexpr int warpSize = 32;` (shadows the builtin below it)
_OWN_WARPSIZE = re.compile(r"\b(?:constexpr|const)\b[\w\s:]*?\bwarpSize\s*(?:=|\{)")
_NVRTC_RE = re.compile(r"\bnvrtc[A-Z]\w*|\bhiprtc[A-Z]\w*")
_LIBS = [(name, re.compile(r"(?<![\w$])(?:" + ident + r")"), re.compile(r"(?:" + header + r")\Z"), rocm, src)
         for name, ident, header, rocm, src in curated.LIBRARIES]


_LIB_PREFIXES = ("nvml", "cudnn", "CUDNN_", "nvshmem", "NVSHMEM_", "cuFile", "CU_FILE_", "nccl", "NCCL_")
_CUTLASS_RE = re.compile(r"(?:cutlass|cute)::")


def _after_word(code: str, at: int) -> bool:
    """Is ``code[at]`` inside a longer identifier (preceded by a letter, digit or '_')?"""
    return at > 0 and (code[at - 1].isalnum() or code[at - 1] == "_")


def _finding(m: Masked, path: str, offset: int, rule: str, message: str, suggestion: str,
             symbol: str = "", hip: str = "") -> Finding:
    line, col = m.position(offset)
    starts = m.line_starts()
    end = starts[line] - 1 if line < len(starts) else len(m.text)
    return Finding(path, line, col, rule, RULES[rule].severity, message, suggestion,
                   snippet_at(m.text, starts[line - 1], end, offset), symbol, hip)


@dataclass
class FileFacts:
    """What one file tells the tree-level pass in scan.py (names are kept per tree, not per file)."""

    defined: set[str] = field(default_factory=set)  # names the file defines (Rust: aliases under cfg(use_rocm))
    width_names: set[str] = field(default_factory=set)  # names it uses as the warp width
    # input: the tree's constants equal to 32 or 5 (None: unknown, look at every name)
    width_candidates: frozenset[str] | None = None
    # (first, last line, MACRO) of branches compiled only when MACRO is defined, and where the file
    # #defines macros: a macro defined only on the CUDA side anywhere in the tree makes its
    # branches CUDA-only too (deepspeed: #ifdef PTX_AVAILABLE around inline PTX)
    features: list[tuple[int, int, str, bool]] = field(default_factory=list)
    cuda_defines: set[str] = field(default_factory=set)
    other_defines: set[str] = field(default_factory=set)
    # macros #defined to a value that is 0 on ROCm (``(CUDA_VERSION >= 12080)``) / to another value
    zero_defines: set[str] = field(default_factory=set)
    value_defines: set[str] = field(default_factory=set)
    pending: list[Finding] = field(default_factory=list)  # warp constants, kept if the unit uses them as widths
    headers: tuple[str, ...] = ()  # the quoted headers the file includes, transitively (porting.audit.includes)
    side: bytearray = field(default_factory=bytearray)  # per line: branches.NEUTRAL / HIP / CUDA
    rust: bool = False


# Rules about HIP code on ROCm 7, which also apply inside HIP branches and HIP files.
ROCM7_RULES = frozenset({"hip-deprecated", "rocm7-removed", "hip-error-ignored", "warpsize-not-constexpr",
                         "warp-mask-32bit", "rocm7-hiprtc-link", "hipify-hang"})
_TYPE_KEYWORD_BEFORE = re.compile(r"\b(?:struct|class|union|enum(?:\s+class)?|using)\s+\Z")
_SEMI_AFTER = re.compile(r"\w*\s*;")
_RUST_ALIAS = re.compile(r"#\[cfg\(use_rocm\)\][^;\n]*?(?:\b(?:type|const|static|fn)\s+(\w+)|\bas\s+(\w+)\s*;)"
                         r"|\brocm_compat!\s*\(\s*(\w+)")
_HIP_IDENT = re.compile(r"hip[A-Z]\w*")
# a call of a cuda*/cu*/hip* name, as two patterns that each begin with a literal (the engine then
# jumps from one "cu" / "hip" to the next instead of trying every offset: 5x faster). A match of one
# inside a match of the other (cuAhipB) follows a word character, which the caller skips anyway.
_CALL_STARTS = (re.compile(r"(cu(?:da)?[A-Z]\w*)\s*\("), re.compile(r"(hip[A-Z]\w*)\s*\("))
_FUNC_BODY = re.compile(r"\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*(?:const\s*)?\{")
# "(args);" with up to three levels of parentheses in the arguments, matched at the call's '('
_ARGS_THEN_SEMI = re.compile(r"\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\s*;")
_GUARD = re.compile(r"\b(?:if|for|while|switch)\s*\Z")
_SKIP_RULES_IN_RUST = frozenset({"string-cuda-name"})


def _defines_type(code: str, at: int) -> bool:
    """Is the name at ``at`` being defined as a type (struct X, using X =, typedef ... X;)?"""
    if _TYPE_KEYWORD_BEFORE.search(code, max(0, at - 40), at):
        return True
    if _SEMI_AFTER.match(code, at + 1) is None:
        return False
    start = _statement_begin(code, at)
    if not code[start:at].strip() and code[start - 1:start] == "}":  # typedef struct { ... } X;
        depth = 0
        for i in range(start - 1, max(-1, start - 8000), -1):
            depth += (code[i] == "}") - (code[i] == "{")
            if depth == 0:
                start = _statement_begin(code, i)
                break
    return code[start:at].lstrip().startswith("typedef")


def _statement_begin(code: str, at: int) -> int:
    return max(code.rfind(";", 0, at), code.rfind("{", 0, at), code.rfind("}", 0, at)) + 1


def check_c(m: Masked, path: str, sets: SymbolSets | None = None,
            facts: FileFacts | None = None) -> Iterator[Finding]:
    """All C/C++/CUDA rules over one masked file; findings in already ported (HIP) or CUDA-only
    branches are dropped, except the ROCm 7 rules in HIP branches."""
    sets = sets or SymbolSets()
    facts = facts if facts is not None else FileFacts()
    side, checks = branches.regions(m.code)
    if branches.hip_file([inc.text for inc in m.includes]) and branches.hip_file(
            [inc.text for inc in m.includes if side[m.position(inc.start)[0]] == branches.NEUTRAL]):
        side = bytearray([branches.HIP]) * len(side)
    cuda_defines, other_defines = branches.define_sides(m.code, side)
    facts.cuda_defines |= cuda_defines
    facts.other_defines |= other_defines
    facts.defined |= cuda_defines | other_defines
    facts.features = branches.feature_ranges(m.code)
    facts.zero_defines, facts.value_defines = branches.false_defines(m.code, side)
    facts.headers = includes.closure(path, m.text)
    facts.side = side
    seen: set[tuple[int, str]] = set()
    dead: bytearray | None = None
    for f in _check_c(m, path, sets, facts, checks):
        where = side[f.line] if f.line < len(side) else 0
        if where == branches.CUDA or (where == branches.HIP and f.rule not in ROCM7_RULES):
            continue
        dead = dead if dead is not None else _dead_lines(m.code)
        if f.line < len(dead) and dead[f.line]:
            continue  # `#if 0`, `if (false)`, `#ifndef X` after `#define X`: nothing compiles or runs it
        if (f.line, f.rule) not in seen:  # one finding per rule per line
            seen.add((f.line, f.rule))
            yield f
    if facts.pending:  # a constant in `#if 0` / `#elif 0` is dead like any finding there (Bonsai)
        dead = dead if dead is not None else branches.dead_by_file(m.code)
        facts.pending = [f for f in facts.pending if side[f.line] == branches.NEUTRAL
                         and not (f.line < len(dead) and dead[f.line])]


def _dead_lines(code: str) -> bytearray:
    """dead_by_file's lines with the bodies of statically false ``if``s (branches.dead_statements)."""
    dead, static = branches.dead_by_file(code), branches.dead_statements(code)
    if not static:
        return dead
    return bytearray(a | (dead[i] if i < len(dead) else 0) for i, a in enumerate(static))


def _check_c(m: Masked, path: str, sets: SymbolSets, facts: FileFacts,
             checks: list[branches.VersionCheck]) -> Iterator[Finding]:
    code = m.code
    table = hipify_map()
    macros = facts.defined
    libs_seen: set[str] = set()
    yield from _libraries(m, path, table, libs_seen)
    yield from _identifiers(m, path, code, table, macros, libs_seen, sets, rust=False)
    if "CUTLASS/CuTe" not in libs_seen:
        hit = _CUTLASS_RE.search(code)
        if hit is not None and not _after_word(code, hit.start()):
            lib = next(lib for lib in _LIBS if lib[0] == "CUTLASS/CuTe")
            yield _finding(m, path, hit.start(), "cuda-only-library", "uses CUTLASS/CuTe, which is CUDA-only",
                           f"port to {lib[3]}; see {lib[4]}")
    yield from _warp(m, path, code, facts)
    yield from _versions(m, path, checks, table)
    yield from _rocm7(m, path, code, table, sets)
    yield from _asm(m, path, code)
    yield from _strings(m, path, table)


def _project_header(path: str, inc: str) -> bool:
    """Does a quoted include name a file next to ``path`` or in one of its parent directories
    (the project's own "cudnn_att.h", "llmc/cudnn_att.h"), not a library's header? The same four
    directories as includes.resolve, whose answers are kept for the run (a stat per directory
    per include of every file, before)."""
    return includes.resolve(path, inc) is not None


def _library_finding(m: Masked, path: str, offset: int, name: str, message: str, rocm: str,
                     src: str) -> Finding:
    if name == "NCCL":  # RCCL has NCCL's API: a link-library change, not a port
        return _finding(m, path, offset, "rccl-link", f"{message.replace(' is CUDA-only', '')}: on ROCm this is "
                        "RCCL, same API (hipify maps the names)", f"link librccl instead of libnccl; see {src}")
    return _finding(m, path, offset, "cuda-only-library", message, f"port to {rocm}; see {src}")


def _libraries(m: Masked, path: str, table, libs_seen: set[str]) -> Iterator[Finding]:
    for inc in m.includes:
        if m.text[inc.start:inc.start + 1] == '"' and _project_header(path, inc.text):
            continue
        for name, _ident, header, rocm, src in _LIBS:
            if header.search(inc.text):
                libs_seen.add(name)
                mapped = table.get(inc.text)
                how = (f" (hipify rewrites the include to {mapped}, but the API differs)"
                       if mapped and name != "NCCL" else "")
                yield _library_finding(m, path, inc.start, name, f"{name} header <{inc.text}> is CUDA-only{how}",
                                       rocm, src)


def _rocm7(m: Masked, path: str, code: str, table, sets: SymbolSets) -> Iterator[Finding]:
    """ROCm 7 header facts: removed names, warpSize not constexpr, hipRTC split, ignored hipError_t."""
    for hit in (_ROCM7_REMOVED_RE.finditer(code) if any(n in code for n in curated.ROCM7_REMOVED) else ()):
        yield _finding(m, path, hit.start(), "rocm7-removed", f"{hit.group()} was removed in ROCm 7.0",
                       f"use {curated.ROCM7_REMOVED[hit.group()]}; see {curated.ROCM7_CHANGES}")
    if "warpSize" in code:
        own: re.Match[str] | None | bool = False  # searched at the first use (most files have none)
        for hit in _warpsize_constant_uses(code):
            at = code.index("warpSize", hit.start())
            if own is False:
                own = _OWN_WARPSIZE.search(code)
            if code[:at].rstrip().endswith("::") or isinstance(own, re.Match) and own.start() < at:
                continue  # a project's own `constexpr int warpSize = 32` (or ns::warpSize), not HIP's
            yield _finding(m, path, at, "warpsize-not-constexpr",
                           "warpSize used where a compile-time constant is needed; it is not constexpr since ROCm 7.0",
                           "use a per-architecture constant for sizes and template arguments; "
                           f"see {curated.ROCM7_CHANGES}")
    rtc = _NVRTC_RE.search(code) if "rtc" in code else None
    if rtc is not None:
        yield _finding(m, path, rtc.start(), "rocm7-hiprtc-link",
                       f"{rtc.group()}: runtime compilation; since ROCm 7.0 hipRTC is a separate library",
                       f"link -lhiprtc (or dlopen libhiprtc.so); see {curated.ROCM7_CHANGES}")
    last = code.rfind("<<<")
    if last >= 0 and code.find(">>>", last) < 0:
        yield _finding(m, path, last, "hipify-hang",
                       "'<<<' with no '>>>' after it: hipify would loop forever on this file",
                       "write '<< <' or parenthesize, or complete the kernel launch")
    if sets.have_rocm:
        yield from _hip_names(m, path, code, sets)
        yield from _ignored_errors(m, path, code, table, sets)


def _warpsize_constant_uses(code: str) -> Iterator[re.Match[str]]:
    """_WARPSIZE_CONST_RE's matches, searched only in the statements that mention warpSize: no
    alternative of it crosses a `;` and each contains the word, so the matches are the same as over
    the whole file, where its lazy type-name alternative was tried at every declaration."""
    at = code.find("warpSize")
    while at >= 0:
        lo = code.rfind(";", 0, at) + 1
        hi = code.find(";", at)
        hi = len(code) if hi < 0 else hi
        yield from _WARPSIZE_CONST_RE.finditer(code, lo, hi)
        at = code.find("warpSize", hi)


def _asm(m: Masked, path: str, code: str) -> Iterator[Finding]:
    if "asm" not in code:  # every spelling _ASM_RE matches contains it (the regex tries each offset)
        return
    ext = os.path.splitext(path)[1].lower()
    never: bytearray | None = None
    for a in _ASM_RE.finditer(code):
        if _after_word(code, a.start()):
            continue
        never = never if never is not None else branches.never_compiled(code, m.text)
        if never[m.position(a.start())[0]]:
            continue  # a branch ROCm never compiles: the PTX cannot reach a ROCm build
        if _asm_macro_defined(m, a.start()) or _empty_template(m, a.end()):
            continue
        stmt_end = code.find(";", a.end())
        follow = m.text[a.end():stmt_end if stmt_end >= 0 else a.end() + 400]
        if ext in (".cu", ".cuh") or _PTX_HINT.search(follow) or _DEVICE_HINT.search(code):
            yield _finding(m, path, a.start(), "inline-ptx",
                           "inline assembly in GPU code (PTX does not exist on AMD GPUs)",
                           "replace with a HIP/clang builtin (e.g. __lane_id(), __builtin_amdgcn_*) or guard it "
                           "with #if defined(__CUDA_ARCH__) and add a HIP path")


def _asm_macro_defined(m: Masked, at: int) -> bool:
    """Is the ``asm`` at ``at`` the name a ``#define asm(x)`` defines (an IntelliSense stub: ccminer,
    ethminer, xmrig-cuda), not assembly? The uses elsewhere in the file stay judged: such stubs sit
    under ``#ifdef __INTELLISENSE__``, a macro a real build does not define."""
    line = m.text.rfind("\n", 0, at) + 1
    return _DEFINE_PREFIX.fullmatch(m.text, line, at) is not None


_DEFINE_PREFIX = re.compile(r"[ \t]*#[ \t]*define[ \t]+")
_BLANKS = re.compile(r"[ \t\r\n]*")


def _empty_template(m: Masked, at: int) -> bool:
    """Does the asm statement whose ``(`` ends at ``at`` hold no instruction: its template string(s)
    only whitespace and comments (``asm("// EXECUTION BEGIN")``, ``asm volatile("" ::: "memory")``)?
    clang assembles those for AMDGPU too (checked with clang-22 for gfx942), so they are not PTX.
    The literals are the masker's (``m.strings``, in file order): plain ones only, next to each
    other with only whitespace between, then the operands' ``:`` or the closing ``)``."""
    parts: list[str] = []
    i = at
    for k in range(bisect.bisect_left(m.strings, at, key=lambda lit: lit.start), len(m.strings)):
        lit = m.strings[k]
        if _BLANKS.fullmatch(m.text, i, lit.start) is None or not lit.text.startswith('"'):
            break
        parts.append(lit.content)
        i = lit.end
    while i < len(m.text) and m.text[i] in " \t\r\n":
        i += 1
    if not parts or i >= len(m.text) or m.text[i] not in ":)":
        return False  # no literal template (a macro's parameter, a raw string): not judged
    body = "".join(parts).replace("\\n", "\n").replace("\\t", " ").replace("\\r", " ")
    body = re.sub(r"/\*.*?\*/", " ", body, flags=re.S)
    body = re.sub(r"//[^\n]*", " ", body)
    return not body.strip()


def _hip_names(m: Masked, path: str, code: str, sets: SymbolSets) -> Iterator[Finding]:
    """HIP names used directly (HIP branches, .hip files) that ROCm 7's headers deprecate."""
    if "hip" not in code:
        return
    for hit in _HIP_IDENT.finditer(code):
        if _after_word(code, hit.start()) or code[hit.start() - 1:hit.start()] in (".", ">", "$"):
            continue
        name = hit.group()
        msg = sets.deprecated.get(name)
        if msg is not None:
            yield _finding(m, path, hit.start(), "hip-deprecated",
                           f"ROCm 7's headers mark {name} deprecated ({msg or 'no message'}): a "
                           "-Wdeprecated-declarations warning, an error under -Werror",
                           "port to the replacement the message names", symbol=name, hip=name)


def _statement_start(code: str, at: int) -> bool:
    """Does a statement start at ``at`` (so a call there discards its result)?"""
    i = at - 1
    while i >= 0 and code[i] in " \t\r\n":
        i -= 1
    if i < 0 or code[i] in ";{}":
        return True
    if code[i] == ":":
        return code[i - 1:i] != ":"  # a label or case, not a scope (ns::f)
    if code[i] == "e" and code.endswith("else", 0, i + 1) and not _after_word(code, i - 3):
        return True
    if code[i] == ")":  # if (...) f(); for (...) f(); while (...) f();
        depth = 0
        for j in range(i, max(-1, i - 400), -1):
            depth += (code[j] == ")") - (code[j] == "(")
            if depth == 0:
                return bool(_GUARD.search(code, max(0, j - 12), j))
    return False


def _ignored_errors(m: Masked, path: str, code: str, table, sets: SymbolSets) -> Iterator[Finding]:
    """Calls whose hipError_t result is dropped: ROCm 7 declares hipError_t [[nodiscard]] (C++17)."""
    for hit in warp.merged(_CALL_STARTS, code):
        name = hit.group(1)
        prev = code[hit.start() - 1:hit.start()]
        if prev and (prev.isalnum() or prev in "_.>$"):
            continue  # inside a longer name, or a member
        hip = name if name.startswith("hip") else table.get(name)
        start = hit.start() - 2 if code[hit.start() - 2:hit.start()] == "::" else hit.start()
        if hip is None or hip not in sets.nodiscard or not _statement_start(code, start):
            continue
        if _ARGS_THEN_SEMI.match(code, hit.end() - 1) is None:
            continue  # the call is part of an expression, or its arguments nest too deep to tell
        via = f"{name} (hipify: {hip})" if hip != name else name
        yield _finding(m, path, hit.start(1), "hip-error-ignored",
                       f"result of {via} ignored: ROCm 7 declares hipError_t [[nodiscard]], so C++17 builds warn "
                       "(-Wunused-result; an error under -Werror) and a failure goes unnoticed",
                       "check it (e.g. a HIP_CHECK macro) or cast to (void) where ignoring is intended",
                       symbol=name, hip=hip)


def _versions(m: Masked, path: str, checks: list[branches.VersionCheck], table) -> Iterator[Finding]:
    for v in checks:
        if v.hip_aware:
            continue  # `#if !defined(USE_HIP) && CUDART_VERSION >= ...`: ROCm's side is decided explicitly
        mapped = table.get(v.macro)
        if mapped:
            what = (f"hipify rewrites {v.macro} to {mapped}, a HIP/ROCm version that is not comparable with "
                    "CUDA's numbering, so the branch chosen on ROCm is arbitrary")
        elif v.macro.startswith("__CUDA_ARCH") and v.directive in ("ifdef", "ifndef"):
            what = (f"HIP does not define {v.macro} (device code sees __HIP_DEVICE_COMPILE__): on ROCm device "
                    "code silently takes the host-side branch")
        else:
            what = (f"HIP does not define {v.macro}, so it is 0 in #if: ROCm compiles the other branch, silently "
                    "(it compiles; it is not the CUDA path)")
        yield _finding(m, path, v.offset, "cuda-version-check", what,
                       "test __HIP_PLATFORM_AMD__ (or HIP_VERSION) explicitly and give ROCm its own branch",
                       symbol=v.macro)


def check_rust(m: Masked, path: str, sets: SymbolSets | None = None,
               facts: FileFacts | None = None) -> Iterator[Finding]:
    sets = sets or SymbolSets()
    facts = facts if facts is not None else FileFacts()
    facts.rust = True
    side = branches.rust_regions(m.code)
    for a in _RUST_ALIAS.finditer(m.code):
        facts.defined.add(a.group(1) or a.group(2) or a.group(3))
    table = hipify_map()
    seen: set[tuple[int, str]] = set()
    for f in (*_identifiers(m, path, m.code, table, set(), set(), sets, rust=True), *_strings(m, path, table)):
        if f.rule in _SKIP_RULES_IN_RUST or side[f.line] != branches.NEUTRAL or (f.line, f.rule) in seen:
            continue
        seen.add((f.line, f.rule))
        yield f


def _hip_guess(name: str) -> str:
    for cuda, hip in (("cuda", "hip"), ("CUDA_", "HIP_"), ("CU_", "HIP_"), ("cu", "hip")):
        if name.startswith(cuda):
            return hip + name[len(cuda):]
    return ""


def _defines_function(code: str, name: str) -> bool:
    """Does ``code`` define a function ``name`` (``name(...) {``)? Checked at each occurrence of
    the name (str.find), not with a regex over the whole file per name."""
    at = code.find(name)
    while at >= 0:
        end = at + len(name)
        if not _after_word(code, at) and _FUNC_BODY.match(code, end):
            return True
        at = code.find(name, end)
    return False


def _unmapped(m: Masked, path: str, start: int, name: str, sets: SymbolSets) -> Finding | None:
    """cuda-unmapped: a name the CUDA headers declare that hipify does not rename and ROCm 7 does not declare."""
    if not sets.have_cuda or name not in sets.cuda or name in sets.rocm:
        return None
    if _defines_function(m.code, name):
        return None  # the file defines a function of that name itself: the user's
    guess = _hip_guess(name)
    if sets.have_rocm and guess in sets.rocm:
        return _finding(m, path, start, "cuda-unmapped",
                        f"{name} is CUDA API that hipify does not rename, though ROCm 7 declares {guess}: the hipified "
                        f"code still says {name}, which ROCm does not declare (compile error)",
                        f"alias it ({name} -> {guess}: `port aliases`, or a #define under __HIP_PLATFORM_AMD__)",
                        symbol=name, hip=guess)
    nowhere = " nor ROCm 7's headers" if sets.have_rocm else ""
    return _finding(m, path, start, "cuda-unmapped",
                    f"{name} is CUDA API (declared by the CUDA headers) that neither hipify's tables{nowhere} know: "
                    "the hipified code will not compile on ROCm",
                    "find the HIP equivalent (HIP porting guide) or guard it with #ifdef __HIP_PLATFORM_AMD__",
                    symbol=name)


def _mapped(m: Masked, path: str, start: int, name: str, hip: str, sets: SymbolSets, rust: bool) -> Finding | None:
    if sets.have_rocm:
        msg = sets.deprecated.get(hip)
        if msg is not None:
            return _finding(m, path, start, "hip-deprecated",
                            f"hipify maps {name} to {hip}, which ROCm 7's headers mark deprecated "
                            f"({msg or 'no message'}): a -Wdeprecated-declarations warning, an error under -Werror",
                            "port to the replacement the message names", symbol=name, hip=hip)
        gone = sets.unavailable.get(hip)
        base = hip.split()[0].rstrip("*")  # hipify writes CUarray as "hipArray *"
        # a name of a family whose headers are not among those read (porting.rocm_libraries) is not judged
        # (family_of last: a regex per family, asked only of names ROCm 7's headers lack)
        if gone is not None or (base.startswith(("hip", "HIP_")) and base not in sets.rocm and not rust
                                and family_of(name, base) is None):
            near = base[:-2] if base.endswith("__") and base[:-2] in sets.rocm else ""
            fix = (f"hipify marks it unsupported ({hip}); ROCm 7 declares {near} with other semantics: port the call "
                   "by hand" if near else
                   f"find what replaced {base} in ROCm 7 (see {curated.ROCM7_CHANGES}) or guard the call")
            return _finding(m, path, start, "rocm7-removed",
                            f"hipify rewrites {name} to {hip}, which ROCm 7's headers do not declare"
                            f"{' (' + gone + ')' if gone else ''}: the hipified code does not compile", fix,
                            symbol=name, hip=hip)
    if rust:
        return _finding(m, path, start, "rust-cuda-binding",
                        f"{name} comes from CUDA bindings; on ROCm it needs the HIP alias {hip}",
                        "generate HIP aliases with `port aliases` (or use the hip_aliases crate)", symbol=name, hip=hip)
    return None


def _identifiers(m: Masked, path: str, code: str, table, macros: set[str], libs_seen: set[str],
                 sets: SymbolSets, rust: bool) -> Iterator[Finding]:
    # names with no finding: whether _unmapped / _mapped finds one depends on the name, the file and
    # the symbol sets, not on where (and _unmapped looks for a definition over the whole file)
    quiet: set[str] = set()
    for hit in warp.merged(_IDENT_STARTS, code):
        name = hit.group()
        start = hit.start()
        before = code[max(0, start - 2):start]
        if before and (before[-1].isalnum() or before[-1] in "_$"):
            continue  # inside a longer identifier
        if before.endswith(".") or before == "->" or name in macros or code.startswith("::", hit.end()):
            continue  # member access, user macro, or a namespace/module path (cuda_sys::, cuda::std)
        lib = next((lib for lib in _LIBS if lib[1].match(name)), None) if name.startswith(_LIB_PREFIXES) else None
        if lib is not None and _defines_function(code, name):
            continue  # the project's own function named like the library's (ATOS's nvshmem_p_wraper)
        if lib is not None:
            if lib[0] not in libs_seen:
                libs_seen.add(lib[0])
                yield _library_finding(m, path, start, lib[0], f"{name} is part of {lib[0]}, which is CUDA-only",
                                       lib[3], lib[4])
            continue
        hip = table.get(name)
        if hip is None and name in sets.cuda and not rust and _defines_type(code, start):
            macros.add(name)  # the tree defines this CUDA-named type itself (a shim): the user's, tree-wide
            continue
        if name in quiet:
            continue
        found = _unmapped(m, path, start, name, sets) if hip is None else _mapped(m, path, start, name, hip, sets, rust)
        if found is None:
            quiet.add(name)
        elif rust or not _directive_line(code, start):
            yield found  # (not `#ifdef cudaX` / `#if CUDART_VERSION`: tested, not used; see cuda-version-check)


def _directive_line(code: str, at: int) -> bool:
    line_start = code.rfind("\n", 0, at) + 1
    head = code[line_start:line_start + 12].lstrip()
    return head.startswith("#") and head[1:].lstrip().startswith(("if", "elif"))


# what a file needs for a rule of porting/audit/model.py to fire (fixed-lane shuffles, launches,
# shared arrays, calls from warpSize code, tiles): without any of them only warp.py's hits matter
def _helper_calls(wm: model.WarpModel, path: str, raw: str) -> list[warp.Hit]:
    """Calls of the project's lane helper and warp wrappers (round 12), found before the per-function
    notes are judged: a function calling them takes the hardware lane (``hw_lane``), votes over the
    wavefront (``vote``) or shuffles from a fixed lane (``fixed``), so its 32-lane code is not
    "consistent at 64"."""
    # the project's headers, angle-bracket ones too (AMGX's <sm_utils.inl>): read by these rules
    # only, so the other rules' units stay the quoted closure they were tuned on
    texts = (raw, *map(includes.read, includes.closure(path, raw, angled=True)))
    found = list(layouts.helper_lanes(wm, texts))
    lanes, warps = layouts.lane_helper_pair(texts)
    found += wrappers.wrapper_calls(wm, texts, bool(warps))
    if lanes or wrappers.has_ballot(texts):  # else nothing to forward to
        found += specialised.forwarded_calls(wm, texts, lanes, warps, wrappers.wrapper_names(texts)[0])
    for at, rule, *_ in found:
        s = wm.at(at)
        if rule == "warp-width-mixed":
            s.hw_lane = True
        elif rule == "shfl-fixed-lane":
            s.fixed = True
        else:
            s.vote = True
    return found


def _noting(hits: Iterator[warp.Hit], offsets: set[int]) -> Iterator[warp.Hit]:
    """``hits`` as they are, their offsets added to ``offsets`` on the way."""
    for hit in hits:
        offsets.add(hit[0])
        yield hit


def _reads_hardware_lane(path: str, raw: str) -> bool:
    """Does a file that names a lane reach a helper reading PTX %laneid (in itself or a header its
    includes resolve to)? Its uses of that lane are judged by the warp model even when the file
    holds no shuffle or warpSize (pcl's features take ``Warp::laneId()`` from a header only)."""
    if "lane" not in raw and "Lane" not in raw:
        return False
    return any("laneid" in t for t in (raw, *map(includes.read, includes.closure(path, raw, angled=True))))


_MODEL_WORDS = ("__shfl", "WARP_SHFL", "<<<", "warpSize", "__lane_id", "_tile", "_partition")


_HEADER_EXTS = frozenset({".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc", ".tcc", ".ipp"})


def _warp(m: Masked, path: str, code: str, facts: FileFacts) -> Iterator[Finding]:
    derived = warp.Derivation(code)  # one memo per file, shared by the rules that ask
    hits = model.file_hits(m.text)  # a header already modelled for an includer: the same hits
    if hits is None:
        hits = [*warp.lane_math(code, derived), *warp.shuffle_widths(code)]
        if os.path.splitext(path)[1].lower() in _HEADER_EXTS:  # kept for its includers' models
            model.remember_hits(m.text, code, hits)
    headers = facts.headers
    external_32 = model.external_constants(headers)
    judged: Iterator[warp.Hit] = iter(())
    wm = None
    own_32 = warp.constant_names(code)
    candidates = facts.width_candidates
    if candidates is None:  # the unit's constants equal to 32 or 5: the only names worth following
        candidates = frozenset(own_32) | external_32
    own_widths = warp.width_names(code, derived, candidates)
    # else no warp rule of model.py can fire (a call of a header's warp function, a shuffle wrapper, can)
    build = bool(hits) or any(word in code for word in _MODEL_WORDS) or _reads_hardware_lane(path, m.text)
    external = model.external_functions(headers) if build or headers else {}
    if build or any(s.warp_op and name in code for name, s in external.items()):
        strings = [(lit.start, lit.text) for lit in m.strings]
        wm = model.WarpModel(code, derived, hits, external, external_32, own_32,
                             own_widths, cuda_only=model.cuda_only(code, facts.side),
                             ptx_matrix=model.ptx_matrix_literals(strings),
                             ptx_laneid=model.ptx_laneid_literals(strings), headers=headers)
        helpers = _helper_calls(wm, path, m.text)
        named = {h[0] for h in helpers}  # lines another hardware-lane rule names (filled as the chain runs)
        # the uses of the hardware lane come after the other rules (a generator: it reads ``named``
        # once those ran) and leave the per-function flags the other rules read as they were
        texts = (m.text, *map(includes.read, includes.closure(path, m.text, angled=True)))
        uses = layouts.hardware_lane_uses(wm, texts, layouts.hardware_lane_helpers(texts), named)
        judged = itertools.chain(model.classify(wm, hits), layouts.per_warp_rows(wm), layouts.host_tables(wm),
                                 _noting(layouts.hardware_lanes(wm, m.text), named), helpers, uses,
                                 layouts.half_wave_blocks(wm))
    ballots: Iterator[warp.Hit] = warp.ballots(code, model.cuda_only(code, facts.side))
    if wm is not None and model.one_warp_file(wm):  # no lane 32-63 anywhere: a returned or passed ballot fits
        ballots = (h for h in ballots if warp.BALLOT_HANDED_ON not in h[2])
    laneid = model.ptx_laneid_literals((lit.start, lit.text) for lit in m.strings) if (
        "<<" in code and warp.has_lane_call(code)) else ()
    shifts = warp.hardware_lane_shifts(code, laneid, map(includes.read, headers))
    is32 = (lambda name: model.unit_is_32(wm, name)) if wm is not None else None  # noqa: E731
    checks = _rocm_compiled(code, facts, itertools.chain(warp.warpsize_checks(code, own_32 | external_32, is32),
                                                         warp.warpsize_word_widths(code))) \
        if "warpSize" in code else iter(())
    for gen in (judged, warp.masks(code), ballots, shifts, checks):
        for offset, rule, message, suggestion, symbol in gen:
            yield _finding(m, path, offset, rule, message, suggestion, symbol=symbol)
    facts.width_names |= own_widths
    for (offset, rule, message, suggestion, symbol), name in warp.warp_constants(code):
        kind = model.constant_rule(code, wm, name, none="") if wm is not None and name in own_widths else ""
        if kind == "warp32-logical":
            rule, message, suggestion = kind, f"{name} = 32: {model.NOTE}", model.NOTE_FIX
        if kind in (model.MATRIX, model.BROKEN):
            continue  # split the block into wmma warps only: a library port, not lane math
        found = _finding(m, path, offset, rule, message, suggestion, symbol=symbol)
        if kind:
            yield found  # judged by this file's own warp functions
        else:
            facts.pending.append(found)  # kept if the translation unit uses it as a warp width


def _rocm_compiled(code: str, facts: FileFacts, hits: Iterator[warp.Hit]) -> Iterator[warp.Hit]:
    """``hits`` outside the branches only CUDA compiles (asked only once a hit exists: rare)."""
    cuda = None
    for hit in hits:
        cuda = cuda or model.cuda_only(code, facts.side)
        if not cuda(hit[0]):
            yield hit


def _strings(m: Masked, path: str, table) -> Iterator[Finding]:
    code = m.code
    for lit in m.strings:
        content = lit.content
        dl = curated.DLOPEN_RE.search(content)
        if dl is not None:
            yield _finding(m, path, lit.start, "dlopen-cuda-library", f"loads CUDA library '{dl.group()}' by name",
                           f"on ROCm load {curated.DLOPEN_LIBRARIES[dl.group(1)]} instead")
            continue
        name = content[:-2] if content.endswith("\\0") else content
        if _CUDA_FULL.match(name) and name in table:
            line_start = code.rfind("\n", 0, lit.start) + 1
            if _LOOKUP_CONTEXT.search(m.text, line_start, lit.start):
                yield _finding(m, path, lit.start, "dlsym-cuda-symbol",
                               f"looks up CUDA symbol \"{name}\" by name (hipify turns it into \"{table[name]}\")",
                               f"load libamdhip64.so and check it exports {table[name]} (nm -D); versioned "
                               f"names like _v2 differ")
                continue
        for word in _WORD.findall(content):
            if _CUDA_FULL.match(word) and word in table:
                yield _finding(m, path, lit.start, "string-cuda-name",
                               f"string contains {word}, which hipify rewrites to {table[word]}",
                               "check the rewritten string is still right (messages, symbol and key names)")
                break
