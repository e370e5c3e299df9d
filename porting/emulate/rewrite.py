"""Source rewriting for `port emulate`: what a C++ compiler cannot take from CUDA as written.

Two constructs are rewritten; everything else reaches g++ unchanged, and every rewrite keeps
the line count, so compiler messages and the divergence report use the user's line numbers:

- a triple-chevron launch ``kernel<<<grid, block, shmem, stream>>>(args)`` becomes
  ``::emu::launch(::emu::config(grid, block, shmem, stream).named("kernel"), [&](auto&&... a) { kernel(a...); }, args)``
  (the runtime copies the arguments once, as a GPU launch does, then calls the kernel per thread);
- ``extern __shared__ T name[];`` becomes a pointer to the block's dynamic shared memory;
- a cast of one of the program's ``__global__`` functions to ``void*`` (``(void*)k``,
  ``(void *)&k<T>``, ``reinterpret_cast<void*>(k)``) becomes ``::emu::kernel_ptr(k)``, which
  records k's launcher for the APIs that take a kernel as a void* (cudaLaunchKernel, graph kernel
  nodes; runtime/emu_kernels.h).

- for a program that loads driver-API modules (porting.emulate.modules), each ``extern "C"``
  ``__global__`` definition and each file-scope ``__device__``/``__constant__`` variable is
  followed, on its own last line, by a registration under its name (``registrations``), which
  cuModuleGetFunction and cuModuleGetGlobal look up (runtime/emu_driver.h).

- an inline PTX ``asm`` statement becomes a C++ block doing what its instructions do
  (porting.emulate.ptx; one outside the emulated subset was refused before, by refuse.py).

``hipLaunchKernelGGL`` and ``cudaLaunchKernel`` need no rewrite: the runtime header defines them.
Code is found on a copy with comments and literals blanked (porting.audit.mask), so a ``<<<``
in a string or comment is left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..audit.mask import mask
from ..errors import InputError
from . import ptx

# `extern __shared__ T name[];` and the order C++ also allows, `extern T __shared__ name[];`
_EXTERN_SHARED = re.compile(
    r"\bextern\s+(?:__shared__\s+)?(?P<type>[^;{}()]*?(?:\([^;{}]*?\)[^;{}()]*?)*?)\s*\b(?P<name>[A-Za-z_]\w*)"
    r"\s*\[\s*\](?P<dims>(?:\s*\[[^\]]*\])*)\s*;")
_SHARED_WORD = re.compile(r"\b__shared__\b")
# the declaration a `__shared__` belongs to, back to the previous statement boundary
_DECL_START = re.compile(r"[;{}]\s*")
_STATIC = re.compile(r"\bstatic\b")
_STATIC_AFTER = re.compile(r"\s*static\b")
# one level of parentheses inside: __align__(sizeof(double)), alignas(alignof(T))
_ALIGN = re.compile(r"(?:__align__|alignas)\s*\((?:[^()]|\([^()]*\))*\)|__attribute__\s*\(\(.*?\)\)")
_CLOSE = {"(": ")", "[": "]", "{": "}"}


# a __global__ function's name: the last identifier before its parameter list (__launch_bounds__
# and attributes blanked first, as their parentheses would end the search early)
_GLOBAL = re.compile(r"\b__global__\b[^;{}()]*?\b([A-Za-z_]\w*)\s*\(")
_BOUNDS = re.compile(r"\b(?:__launch_bounds__|__attribute__|__declspec)\s*\((?:[^()]|\([^()]*\))*\)")
_TEMPLATE_ARGS = r"(?:\s*<[^<>;(){}]*(?:<[^<>;(){}]*>[^<>;(){}]*)*>)?"
_VOID_PTR = r"(?:const\s+)?void\s*\*\s*(?:const\s*)?"


def kernel_names(text: str) -> set[str]:
    """The names of the __global__ functions a file declares or defines."""
    code = _BOUNDS.sub(lambda m: " " * len(m.group(0)), mask(text).code)
    return set(_GLOBAL.findall(code))


def _kernel_casts(code: str, kernels: set[str]) -> list[tuple[int, int, str]]:
    """``(void*)k`` and ``reinterpret_cast<void*>(k)`` of a known kernel k; not ``(void*)k->x``
    or ``(void*)k(...)`` (a cast binds looser than postfix operators, so the operand is then not k)."""
    if not kernels:
        return []
    names = "|".join(map(re.escape, sorted(kernels)))
    operand = rf"&?\s*(?:::)?(?P<name>(?:{names})\b{_TEMPLATE_ARGS})"
    edits = []
    c_cast = re.compile(rf"\(\s*{_VOID_PTR}\)\s*{operand}(?!\s*(?:->|\.|\[|\(|::))")
    cpp_cast = re.compile(rf"\breinterpret_cast\s*<\s*{_VOID_PTR}>\s*\(\s*{operand}\s*\)")
    for rx in (c_cast, cpp_cast):
        for m in rx.finditer(code):
            edits.append((m.start(), m.end(), f"::emu::kernel_ptr({m.group('name')})"))
    return edits


@dataclass
class Rewritten:
    text: str
    launches: int
    dynamic_shared: int


def rewrite(text: str, path: str = "<source>", kernels: set[str] | None = None, register: bool = False) -> Rewritten:
    """Rewrite one source file's launches, dynamic shared memory declarations and casts of the
    program's kernels (``kernels``: every file's kernel_names) to void*; with ``register``, add
    the driver API's registrations (``registrations``)."""
    code = mask(text).code
    edits: list[tuple[int, int, str]] = []
    launches = 0
    opening = _next_launch(code, 0)
    while opening is not None:
        start, end, new = _launch(text, code, opening, path)
        edits.append((start, end, new))
        launches += 1
        opening = _next_launch(code, end)
    shared = 0
    for m in _EXTERN_SHARED.finditer(code):
        if "__shared__" not in m.group(0):
            continue
        edits.append((m.start(), m.end(), _shared_decl(text, m)))
        shared += 1
    edits += _static_shared(code, [(a, b) for a, b, _ in edits])
    taken = [(a, b) for a, b, _ in edits]
    edits += [e for e in _asm_edits(text, path) if not any(a <= e[0] < b for a, b in taken)]
    taken = [(a, b) for a, b, _ in edits]
    edits += [e for e in _kernel_casts(code, kernels or set()) if not any(a <= e[0] < b for a, b in taken)]
    if register:
        edits += registrations(text, code)
    out = text
    for start, end, new in sorted(edits, reverse=True):
        out = out[:start] + new + out[end:]
    return Rewritten(out, launches, shared)


_LINKAGE = re.compile(r'\bextern\s*"\s*"')
_DEVICE_VAR = re.compile(r"\b(?:__device__|__constant__)\b")
_DECLARATOR = re.compile(r"\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*$")


def registrations(text: str, code: str) -> list[tuple[int, int, str]]:
    """Insertions (zero-width edits, on the line where each definition ends, so no line moves)
    that register the file's ``extern "C"`` kernels and file-scope device variables by name:
    their names in a cubin are these plain names (C linkage; a namespace-scope variable is not
    mangled), so cuModuleGetFunction/cuModuleGetGlobal can find them. ``__BASE_FILE__`` records
    the translation unit, i.e. the module's .cu, for a definition in a header too."""
    edits = []
    for name, end in _c_kernels(text, code):
        edits.append((end, end, f" static const bool emu_kreg_{name}_ = "
                                f"::emu::driver::register_kernel(\"{name}\", &{name}, __BASE_FILE__);"))
    for name, end in _file_scope_variables(code):
        edits.append((end, end, f" static const bool emu_greg_{name}_ = ::emu::driver::register_global("
                                f"\"{name}\", &{name}, sizeof({name}), __BASE_FILE__);"))
    return edits


def _c_kernels(text: str, code: str) -> list[tuple[str, int]]:
    """(name, end of body) of each __global__ definition with C linkage: after ``extern "C"`` in
    its own declaration or inside an ``extern "C" { ... }`` block."""
    blocks, prefixes = [], []
    for m in _LINKAGE.finditer(code):
        if '"C"' not in text[m.start():m.end()]:
            continue
        after = m.end() + len(code[m.end():]) - len(code[m.end():].lstrip())
        if code.startswith("{", after):
            blocks.append((after, _matching(code, after)))
        else:
            prefixes.append(m.end())
    found = []
    blanked = _BOUNDS.sub(lambda b: " " * len(b.group(0)), code)
    for m in _GLOBAL.finditer(blanked):
        close = _matching(code, m.end() - 1)
        body = re.compile(r"[^;{]*").match(code, close + 1) if close > 0 else None
        if body is None or not code.startswith("{", body.end()):
            continue  # a declaration, not a definition
        linked = any(a < m.start() < b for a, b in blocks) or any(
            p <= m.start() and not re.search(r"[;{}]", code[p:m.start()]) for p in prefixes)
        end = _matching(code, body.end())
        if linked and end > 0:
            found.append((m.group(1), end + 1))
    return found


def _file_scope_variables(code: str) -> list[tuple[str, int]]:
    """(name, end of declaration) of each non-extern, non-template ``__device__``/``__constant__``
    variable defined at file scope (brace depth 0), one declarator per declaration."""
    depth = [0] * (len(code) + 1)
    d = 0
    for i, c in enumerate(code):
        d += c == "{"
        d -= c == "}"
        depth[i + 1] = d
    found = []
    for m in _DEVICE_VAR.finditer(code):
        if depth[m.start()] != 0:
            continue
        start = max(code.rfind(c, 0, m.start()) for c in ";{}") + 1
        end = m.end()
        while end < len(code) and not (code[end] == ";" and depth[end] == 0):
            end += 1
        decl = code[start:end]
        head = decl.split("=", 1)[0]
        if end >= len(code) or "(" in head or "," in head or re.search(r"\b(?:extern|template|typedef)\b", decl):
            continue
        name = _DECLARATOR.search(head.rstrip())
        if name and name.group(1) not in ("__device__", "__constant__", "__managed__"):
            found.append((name.group(1), end + 1))
    return found


def _asm_edits(text: str, path: str) -> list[tuple[int, int, str]]:
    try:
        return ptx.rewrite_edits(text)
    except ptx.Unsupported as e:  # refuse.py names it first in `port emulate`; a direct caller gets it here
        raise InputError(f"{path}: inline PTX: {e}") from None


def _static_shared(code: str, taken: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """``static __shared__ T x;``: the runtime defines ``__shared__`` as ``static`` (one block runs
    at a time on one OS thread, so a function-local static is the block's shared memory), which
    would make it ``static static``; the ``__shared__`` of a declaration already static is blanked."""
    edits = []
    for m in _SHARED_WORD.finditer(code):
        if any(a <= m.start() < b for a, b in taken):
            continue
        window = max(0, m.start() - 400)
        begin = max((b.end() for b in _DECL_START.finditer(code, window, m.start())), default=window)
        if _STATIC.search(code, begin, m.start()) or _STATIC_AFTER.match(code, m.end()):
            edits.append((m.start(), m.end(), " " * len("__shared__")))
    return edits


def _shared_decl(text: str, m: re.Match) -> str:
    type_ = _ALIGN.sub("", text[m.start("type"):m.end("type")]).replace("__shared__", "").strip()
    name = m.group("name")
    dims = m.group("dims").strip()
    target = "::emu::dynamic_shared"
    if dims:
        decl = f"{type_} (* const {name}){dims} = reinterpret_cast<{type_} (*){dims}>({target});"
    else:
        decl = f"{type_}* const {name} = reinterpret_cast<{type_}*>({target});"
    return decl + "\n" * text.count("\n", m.start(), m.end())


# Visual Studio's formatter writes a launch as `kernel << < grid, block >> > (args)`, which nvcc
# accepts: the chevrons may have blanks between them (`operator<< <T>` is a template, not a launch)
_OPEN_CHEVRONS = re.compile(r"<<[ \t]*<")
_CLOSE_CHEVRONS = re.compile(r">>[ \t]*>")


def _next_launch(code: str, pos: int) -> re.Match | None:
    for m in _OPEN_CHEVRONS.finditer(code, pos):
        if not code[max(0, m.start() - 40):m.start()].rstrip().endswith("operator"):
            return m
    return None


def _launch(text: str, code: str, opening: re.Match, path: str) -> tuple[int, int, str]:
    chevrons = opening.start()
    line = code.count("\n", 0, chevrons) + 1
    where = f"{path}:{line}"
    start = _callee_start(code, chevrons)
    if not code[start:chevrons].strip():
        raise InputError(f"{where}: a '<<<' launch without a kernel name before it")
    closing = _find_top_level(code, opening.end(), _CLOSE_CHEVRONS)
    if closing is None:
        raise InputError(f"{where}: a '<<<' launch without its closing '>>>'")
    close, paren = closing.start(), closing.end()
    while paren < len(code) and code[paren].isspace():
        paren += 1
    if paren >= len(code) or code[paren] != "(":
        raise InputError(f"{where}: a '<<<...>>>' launch without its argument list")
    end = _matching(code, paren)
    if end < 0:
        raise InputError(f"{where}: a kernel launch whose argument list is not closed")
    callee = text[start:chevrons].strip()
    config = text[opening.end():close]
    args = text[paren + 1:end]
    lam = f"[&](auto&&... emu_a_) {{ {callee}(emu_a_...); }}"
    name = _c_string(" ".join(code[start:chevrons].split()))  # the kernel as spelled, for a device fault's report
    new = f"::emu::launch(::emu::config({config}).named({name}), {lam}{', ' if args.strip() else ''}{args})"
    missing = text.count("\n", start, end + 1) - new.count("\n")
    return start, end + 1, new + "\n" * max(missing, 0)


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _callee_start(code: str, pos: int) -> int:
    """Walk back from '<<<' over the kernel expression: names, '::', template arguments, and
    a kernel pointer picked from an array or a member (`kernels[k]`, `t.fn`, `p->fn`)."""
    i = pos
    while i > 0 and code[i - 1] in " \t\r\n":  # the kernel's name may end the line before `<<<`
        i -= 1
    while i > 0:
        c = code[i - 1]
        if c.isalnum() or c in "_:.":
            i -= 1
        elif c == ">" and i > 1 and code[i - 2] == "-":
            i -= 2
        elif c in ">)]":
            opener = {">": "<", ")": "(", "]": "["}[c]
            j = _matching_back(code, i - 1, opener, c)
            if j < 0:
                break
            i = j
        else:
            break
    return i


def _matching_back(code: str, close: int, opener: str, closer: str) -> int:
    depth = 0
    for i in range(close, -1, -1):
        if code[i] == closer:
            depth += 1
        elif code[i] == opener:
            depth -= 1
            if depth == 0:
                return i
        elif code[i] in ";{}":
            return -1
    return -1


def _find_top_level(code: str, pos: int, token: re.Pattern) -> re.Match | None:
    depth = 0
    i = pos
    while i < len(code):
        c = code[i]
        if depth == 0 and (m := token.match(code, i)):
            return m
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif c == ";":
            return None
        i += 1
    return None


def _matching(code: str, open_at: int) -> int:
    closer = _CLOSE[code[open_at]]
    depth = 0
    for i in range(open_at, len(code)):
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i if c == closer else -1
    return -1
