"""The rule checks: regexes over masked code (see mask.py), table lookups, small context tests."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from . import curated
from .findings import Finding, snippet_at
from .mask import Masked
from .rules import RULES
from .tables import hipify_map

CUDA_NAME = (r"cuda[A-Z]\w*|cu[A-Z]\w*|CU[a-zA-Z_]\w*|cublas\w*|cusparse\w*|curand\w*|cufft\w*|cusolver\w*"
             r"|nvrtc\w*|NVRTC_\w+|nvtx\w*|nvml\w+|nccl\w+|NCCL_\w+|cudnn\w+|nvshmemx?_\w+|__nv_\w+")
# Factored so that the regex engine only stops at c/C/n/N/_ (checked for a word start below).
_IDENT_RE = re.compile(r"(?:cu(?:da[A-Z]|[A-Z]|blas|sparse|rand|fft|solver|dnn)|CU[a-zA-Z_]|nv(?:rtc|tx|ml|shmemx?_)"
                       r"|NVRTC_|nccl|NCCL_|__nv_)\w*")
_CUDA_FULL = re.compile(r"(?:" + CUDA_NAME + r")\Z")
_DEFINE_RE = re.compile(r"#[ \t]*define[ \t]+(\w+)")
_WARP_OP_RE = re.compile(r"(%|&|/|>>)\s*(32|31|5)\b(?![.\w])")
_LANE_CONTEXT = re.compile(r"threadIdx|lane|warp|\btid\b|laneid", re.IGNORECASE)
_WARP_DEF_RE = re.compile(r"(?i)warp_?size\w*\s*(?:=\s*|\{\s*|\s+)\(?\s*32\b")
_MASK_RE = re.compile(r"(__shfl(?:_up|_down|_xor)?_sync|__ballot_sync|__any_sync|__all_sync|__match_any_sync"
                      r"|__match_all_sync|__reduce_\w+_sync|__syncwarp|__uni_sync)\s*\(\s*"
                      r"(0[xX][fF]{8}[uUlL]*|~0[uU]?|-1)\s*[,)]")
_MASK_DEF_RE = re.compile(r"#[ \t]*define[ \t]+\w*(?i:mask)\w*[ \t]+\(?0[xX][fF]{8}[uU]?\)?[ \t]*$", re.MULTILINE)
_BALLOT_RE = re.compile(r"(__ballot_sync|__ballot|__activemask)\s*\(")
_INT32_DECL_BEFORE = re.compile(r"(?:\bunsigned\s+int|\bunsigned|\buint32_t|\bint32_t|\bint|\bu32)\s+\w+\s*=\s*\Z")
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


def check_c(m: Masked, path: str) -> Iterator[Finding]:
    """All C/C++/CUDA rules over one masked file."""
    code = m.code
    ext = os.path.splitext(path)[1].lower()
    table = hipify_map()
    macros = set(_DEFINE_RE.findall(code))
    libs_seen: set[str] = set()

    for inc in m.includes:
        for name, _ident, header, rocm, src in _LIBS:
            if header.search(inc.text):
                libs_seen.add(name)
                mapped = table.get(inc.text)
                how = (f" (hipify rewrites the include to {mapped}, but the API differs)"
                       if mapped and name != "NCCL" else "")
                yield _finding(m, path, inc.start, "cuda-only-library", f"{name} header <{inc.text}> is CUDA-only{how}",
                               f"port to {rocm}; see {src}")
    yield from _identifiers(m, path, code, table, macros, libs_seen, rust=False)
    if "CUTLASS/CuTe" not in libs_seen:
        hit = _CUTLASS_RE.search(code)
        if hit is not None and not _after_word(code, hit.start()):
            lib = next(lib for lib in _LIBS if lib[0] == "CUTLASS/CuTe")
            yield _finding(m, path, hit.start(), "cuda-only-library", "uses CUTLASS/CuTe, which is CUDA-only",
                           f"port to {lib[3]}; see {lib[4]}")
    yield from _warp(m, path, code)
    for hit in (_ROCM7_REMOVED_RE.finditer(code) if any(n in code for n in curated.ROCM7_REMOVED) else ()):
        yield _finding(m, path, hit.start(), "rocm7-removed", f"{hit.group()} was removed in ROCm 7.0",
                       f"use {curated.ROCM7_REMOVED[hit.group()]}; see {curated.ROCM7_CHANGES}")
    if "warpSize" in code:
        for hit in _WARPSIZE_CONST_RE.finditer(code):
            at = code.index("warpSize", hit.start())
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
    for a in _ASM_RE.finditer(code):
        if _after_word(code, a.start()):
            continue
        stmt_end = code.find(";", a.end())
        follow = m.text[a.end():stmt_end if stmt_end >= 0 else a.end() + 400]
        if ext in (".cu", ".cuh") or _PTX_HINT.search(follow) or _DEVICE_HINT.search(code):
            yield _finding(m, path, a.start(), "inline-ptx",
                           "inline assembly in GPU code (PTX does not exist on AMD GPUs)",
                           "replace with a HIP/clang builtin (e.g. __lane_id(), __builtin_amdgcn_*) or guard it "
                           "with #if defined(__CUDA_ARCH__) and add a HIP path")
    yield from _strings(m, path, table)


def check_rust(m: Masked, path: str) -> Iterator[Finding]:
    table = hipify_map()
    yield from _identifiers(m, path, m.code, table, set(), set(), rust=True)
    yield from _strings(m, path, table)


def _identifiers(m: Masked, path: str, code: str, table, macros: set[str], libs_seen: set[str],
                 rust: bool) -> Iterator[Finding]:
    for hit in _IDENT_RE.finditer(code):
        name = hit.group()
        start = hit.start()
        before = code[max(0, start - 2):start]
        if before and (before[-1].isalnum() or before[-1] in "_$"):
            continue  # inside a longer identifier
        if before.endswith(".") or before == "->" or name in macros or code.startswith("::", hit.end()):
            continue  # member access, user macro, or a namespace/module path (cuda_sys::, cuda::std)
        lib = next((lib for lib in _LIBS if lib[1].match(name)), None) if name.startswith(_LIB_PREFIXES) else None
        if lib is not None:
            if lib[0] not in libs_seen:
                libs_seen.add(lib[0])
                yield _finding(m, path, start, "cuda-only-library", f"{name} is part of {lib[0]}, which is CUDA-only",
                               f"port to {lib[3]}; see {lib[4]}")
            continue
        hip = table.get(name)
        if hip is None:
            if not rust or not name.startswith("__"):
                yield _finding(m, path, start, "cuda-unmapped",
                               f"{name} has no entry in hipify's tables; it will not compile on ROCm",
                               "find the HIP equivalent (HIP porting guide) "
                               "or guard it with #ifdef __HIP_PLATFORM_AMD__",
                               symbol=name)
            continue
        deprecated = curated.HIP_DEPRECATED.get(hip)
        if deprecated is not None:
            status, advice, src = deprecated
            yield _finding(m, path, start, "hip-deprecated", f"hipify maps {name} to {hip}: {status}",
                           f"{advice}; see {src}", symbol=name, hip=hip)
        elif rust:
            yield _finding(m, path, start, "rust-cuda-binding",
                           f"{name} comes from CUDA bindings; on ROCm it needs the HIP alias {hip}",
                           "generate HIP aliases with `port aliases` (or use the hip_aliases crate)",
                           symbol=name, hip=hip)


def _warp(m: Masked, path: str, code: str) -> Iterator[Finding]:
    for w in _WARP_OP_RE.finditer(code):
        op, num = w.group(1), w.group(2)
        if (op, num) not in (("%", "32"), ("/", "32"), ("&", "31"), (">>", "5")):
            continue
        line_start = code.rfind("\n", 0, w.start()) + 1
        if op == "&" and code[w.start() - 1:w.start()] == "&":
            continue  # logical and
        if _LANE_CONTEXT.search(code, max(line_start, w.start() - 80), w.start()):
            yield _finding(m, path, w.start(), "warp-size-literal",
                           f"'{op} {num}' in lane/warp arithmetic assumes 32-wide warps",
                           "use warpSize (64 on CDNA): e.g. threadIdx.x % warpSize, lane & (warpSize - 1)")
    for w in _WARP_DEF_RE.finditer(code):
        begin = w.start()
        while _after_word(code, begin):
            begin -= 1
        yield _finding(m, path, begin, "warp-size-literal", "warp size defined as 32",
                       "use warpSize at run time, or a per-architecture constant (64 on gfx9 CDNA, 32 on RDNA)")
    for w in _MASK_RE.finditer(code):
        if _after_word(code, w.start()):
            continue
        yield _finding(m, path, w.start(), "warp-mask-32bit",
                       f"{w.group(1)} with 32-bit full mask {w.group(2)}",
                       "use a 64-bit mask: __activemask() or ~0ull (uint64_t)")
    for w in _MASK_DEF_RE.finditer(code):
        yield _finding(m, path, w.start(), "warp-mask-32bit",
                       "32-bit full lane mask constant", "make the mask 64-bit (0xffffffffffffffffull)")
    for w in _BALLOT_RE.finditer(code):
        if _after_word(code, w.start()):
            continue
        line_start = code.rfind("\n", 0, w.start()) + 1
        decl = _INT32_DECL_BEFORE.search(code, line_start, w.start())
        if decl is not None:
            yield _finding(m, path, decl.start(), "ballot-32bit", f"{w.group(1)} result stored in a 32-bit integer",
                           "store it in uint64_t and use __popcll/__ffsll")
        elif w.group(1) == "__activemask":
            yield _finding(m, path, w.start(), "activemask", "__activemask() returns a 64-bit mask on AMD",
                           "keep it in uint64_t; loop to warpSize, not 32")


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
