"""Compiler diagnostics -> classified, located on the user's CUDA lines.

Classes of a unit (worst over its arches, in this order):
``fails`` (an error in the user's code, including a CUDA header hipify left behind),
``not-checkable`` (a ROCm library header the toolchain's SDK lacks: named, never blamed
on the user), ``needs-package`` (a header of a system package not installed here: the package
is named, see ``system_headers``), ``warnings`` (compiles, with ROCm 7 warnings: nodiscard, deprecated) and
``compiles``. Above all of them, ``tool-error``: the compiler exited non-zero without one
located error (a driver refusal, a crash, a time-out): nothing is known about the code, so
it is neither the user's failure nor, above all, ``compiles``. ``compiles`` is only ever
the verdict of a compiler that ran and exited 0.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache

from ..builder.hip_toolchains import GUARD_ERROR

CLASSES = ("tool-error", "fails", "needs-package", "not-checkable", "warnings", "compiles")  # worst first
MISSING_KINDS = ("missing-rocm-header", "missing-system-header")  # the header's absence is not the user's code
USER_KINDS = ("compile-error", "leftover-cuda-header", "leftover-cuda-name")  # errors that are the user's work
# the user's work wherever it appears: a CUDA header or name hipify left behind is not a consequence
# of a ROCm header the SDK lacks (it would fail the same with the header present)
ALWAYS_COUNTED = ("leftover-cuda-header", "leftover-cuda-name")
_DIAG = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>fatal error|error|warning|note): "
                   r"(?P<msg>.*?)(?: \[(?P<flag>-W[^\]]+)\])?$")
_INCLUDED = re.compile(r"^(?:In file included from|\s+from) (?P<file>.+?):(?P<line>\d+):")
_MISSING = re.compile(r"'(?P<name>[^']+)' file not found")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_ROCM7_WARNING = re.compile(r"nodiscard|deprecated", re.IGNORECASE)


@dataclass
class Diagnostic:
    severity: str  # error | warning
    # compile-error | leftover-cuda-header | leftover-cuda-name | missing-rocm-header | missing-system-header
    # | rocm7-warning | warning | tool-error
    kind: str
    message: str
    file: str  # the user's CUDA file (relative to SRC) or the compiler's file when outside the tree
    line: int
    col: int
    archs: list[str]
    flag: str = ""
    header: str = ""  # missing-*: the header's name
    hip_file: str = ""  # where the compiler saw it (hipified tree, relative to OUT)
    hip_line: int = 0
    names: list[dict[str, str]] = field(default_factory=list)  # [{"hip": ..., "cuda": ...}] on the line
    after_missing_header: bool = False  # came after a missing header: maybe its consequence (see counted)
    package: str = ""  # missing-system-header: what installs it ("omp.h: OpenMP ... (Debian: libomp-dev ...)")
    hints: list[str] = field(default_factory=list)  # the ROCm 7 declarations the compiler's notes point at

    def to_json(self) -> dict:
        return {**self.__dict__, "counted": counted(self)}


def counted(d: Diagnostic) -> bool:
    """The one rule of what is the user's work, used by the class, the worklist, the text, the
    SARIF level and the HTML alike: an error or ROCm 7 warning in the user's code, unless it
    follows a missing header (then it may be that header's consequence), except a CUDA header
    or name hipify left behind, which is the user's work wherever it is seen."""
    if d.kind in ALWAYS_COUNTED:
        return True
    return d.kind in ("compile-error", "rocm7-warning") and not d.after_missing_header


@lru_cache(maxsize=1)
def rocm_header_prefixes() -> tuple[frozenset[str], frozenset[str]]:
    """(ROCm library header dirs/names, CUDA header names), both from hipify's include map."""
    from ..hipify.engine import mappings_module

    rocm, cuda, cuda_dirs = set(), set(), set()
    for key, value in mappings_module().CUDA_INCLUDE_MAP.items():
        k, v = (s.replace("include ", "").strip('<>"') for s in (key, value))
        cuda.add(k)
        cuda_dirs.add(k.split("/")[0] if "/" in k else "")
        rocm.add(v.split("/")[0] if "/" in v else v)
    rocm -= cuda_dirs  # tensorpipe/ maps to tensorpipe/: not a ROCm library
    rocm.add("thrust")  # rocThrust keeps thrust's header names; the SDK has neither
    return frozenset(rocm), frozenset(cuda)


def header_kind(name: str) -> str:
    rocm, cuda = rocm_header_prefixes()
    first = name.split("/")[0] if "/" in name else name
    if first in rocm:
        return "missing-rocm-header"
    if name in cuda or first in ("cub", "nvtx3") or re.match(r"(cuda|cu[a-zA-Z]+|nv[a-zA-Z]+)[\w.]*\.h", name):
        return "leftover-cuda-header"
    from .system_headers import system_package

    if system_package(name) is not None:
        return "missing-system-header"
    return "compile-error"


# an error about a name: the quoted identifier (clang's wording for undeclared names and types)
_NAME_ERROR = re.compile(r"(?:undeclared identifier|unknown type name|no type named|no member named|"
                         r"no template named|undeclared function|use of undeclared) '(?:[\w:]*::)?(?P<name>\w+)'")


def leftover_cuda_name(msg: str) -> str:
    """The CUDA name hipify left unconverted that an error is about, or "" (``cuFloatComplex``,
    ``make_cuFloatComplex``, ``cudaStream_t``: CUDA's names, by hipify's own table or prefix)."""
    m = _NAME_ERROR.search(msg)
    if not m:
        return ""
    name = m.group("name")
    if name in _cuda_to_hip() or re.match(r"(?:make_)?cu(?:da|blas|fft|rand|sparse|solver|dnn|Float|Double|"
                                          r"Complex|C[a-z]+f?$|[A-Z])\w*$", name):
        return name
    return ""


class LineMap:
    """hipified line -> CUDA line. hipify is mostly line-preserving (a breadcrumb comment on
    top, names replaced in place), but not always: the map comes from a line diff, and inside
    a replaced block of another length (``#include <cub/cub.cuh>`` + ``<cooperative_groups.h>``
    became the runtime include + ``<hipcub/hipcub.hpp>`` + ``<hip/hip_cooperative_groups.h>``)
    each HIP line goes to the CUDA line it most resembles, in order."""

    _ALIGN_MAX = 40_000  # cells of one block's alignment; a larger block is mapped in proportion

    def __init__(self, cuda_lines: list[str], hip_lines: list[str]) -> None:
        self._map: list[int] = []  # 0-based HIP line -> 1-based CUDA line
        for tag, c1, c2, h1, h2 in difflib.SequenceMatcher(None, cuda_lines, hip_lines, autojunk=False).get_opcodes():
            if tag == "insert":  # a line hipify added (its breadcrumb): the CUDA line before it
                self._map += [max(c1, 1)] * (h2 - h1)
            elif tag == "replace" and (c2 - c1) != (h2 - h1):
                self._map += _align(cuda_lines[c1:c2], hip_lines[h1:h2], c1, self._ALIGN_MAX)
            elif tag != "delete":  # equal, or renamed in place: one to one
                self._map += [c1 + k + 1 for k in range(h2 - h1)]

    def cuda_line(self, hip_line: int) -> int:
        if not self._map:
            return hip_line
        return self._map[min(max(hip_line, 1), len(self._map)) - 1]


def _align(cuda: list[str], hip: list[str], offset: int, limit: int) -> list[int]:
    """Monotone alignment of the HIP lines of a replaced block to its CUDA lines, maximising the
    lines' likeness (difflib's ratio); 1-based CUDA lines."""
    n, m = len(hip), len(cuda)
    if n * m > limit:
        return [offset + 1 + min(i * m // n, m - 1) for i in range(n)]
    sim = [[difflib.SequenceMatcher(None, h, c, autojunk=False).ratio() for c in cuda] for h in hip]
    best = [row[:] for row in sim]  # best[i][j]: HIP line i on CUDA line j, lines before it aligned
    back = [[0] * m for _ in range(n)]
    for i in range(1, n):
        run, arg = -1.0, 0
        for j in range(m):
            if best[i - 1][j] > run:
                run, arg = best[i - 1][j], j
            best[i][j] += run
            back[i][j] = arg
    j = max(range(m), key=lambda k: best[n - 1][k])
    out = [0] * n
    for i in range(n - 1, -1, -1):
        out[i] = offset + 1 + j
        j = back[i][j]
    return out


@lru_cache(maxsize=1)
def _cuda_to_hip() -> dict[str, str]:
    from ..hipify.engine import mappings_module

    table: dict[str, str] = {}
    for mapping in mappings_module().CUDA_TO_HIP_MAPPINGS:
        for cuda, value in mapping.items():
            table.setdefault(cuda, value if isinstance(value, str) else value[0])
    return table


def renamed(cuda_text: str, hip_text: str) -> list[dict[str, str]]:
    """Names hipify's tables replaced on one line: [{"hip": ..., "cuda": ...}], in line order."""
    c, h = _IDENT.findall(cuda_text), _IDENT.findall(hip_text)
    table = _cuda_to_hip()
    pairs: list[dict[str, str]] = []
    for tag, c1, c2, h1, h2 in difflib.SequenceMatcher(None, c, h, autojunk=False).get_opcodes():
        if tag == "replace":
            pairs += [{"hip": hh, "cuda": cc} for cc, hh in zip(c[c1:c2], h[h1:h2])
                      if table.get(cc) == hh and {"hip": hh, "cuda": cc} not in pairs]
    return pairs


_HINT_NOTE = re.compile(r"candidate|declared here|previous declaration")
_DECL_LINES = 6  # a declaration split over more lines than this is cut (the location still names it)


def declaration_hints(notes: list[dict], outside_user_tree) -> list[str]:
    """For an error whose notes point into ROCm's headers (``candidate function not viable``,
    ``'hipX' declared here``): the declaration there, as ROCm 7 has it. Ground truth is the
    header the compile read, never a table."""
    hints: list[str] = []
    for n in notes:
        if not _HINT_NOTE.search(n["msg"]) or not outside_user_tree(n["file"]) or len(hints) >= 2:
            continue
        text = _declaration_at(n["file"], n["line"])
        if text:
            hints.append(f"ROCm 7 declares ({os.path.basename(n['file'])}:{n['line']}): {text}")
    return hints


def _declaration_at(path: str, line: int) -> str:
    from ..walk import read_regular

    data = read_regular(path, 16 << 20)
    if data is None:
        return ""
    lines = data.decode("utf-8", "replace").splitlines()
    start = line - 1
    while start > 0 and line - start < _DECL_LINES and lines[start - 1].strip() \
            and not lines[start - 1].rstrip().endswith((";", "}", "{", "*/")) and not lines[start - 1].startswith("#"):
        start -= 1  # the return type on the line above ("hipError_t\nhipMemcpyToSymbol(...")
    out: list[str] = []
    for text in lines[start:start + _DECL_LINES]:
        out.append(text.strip())
        if text.rstrip().endswith((";", "{", ")")) and "(" in " ".join(out):
            break
    return " ".join(s for s in out if s).rstrip("{ ").strip()[:300]


def parse(stderr: str) -> list[tuple[dict, list[dict], list[tuple[str, int]]]]:
    """(diagnostic, its notes, its include chain), for every error and warning."""
    out: list[tuple[dict, list[dict], list[tuple[str, int]]]] = []
    chain: list[tuple[str, int]] = []
    for line in stderr.splitlines():
        inc = _INCLUDED.match(line)
        if inc:
            chain.append((inc.group("file"), int(inc.group("line"))))
            continue
        m = _DIAG.match(line)
        if not m:
            continue
        d = m.groupdict()
        d["line"], d["col"] = int(d["line"]), int(d["col"])
        if d["sev"] == "note":
            if out:
                out[-1][1].append(d)
        else:
            out.append((d, [], chain))
        chain = []
    return out


def classify(diags: list[Diagnostic]) -> str:
    """The class of one compile from its diagnostics (``counted`` says which are the user's)."""
    kinds = {d.kind for d in diags}
    if "tool-error" in kinds:
        return "tool-error"
    if any(d.kind in USER_KINDS and counted(d) for d in diags):
        return "fails"
    if "missing-system-header" in kinds:
        return "needs-package"
    if "missing-rocm-header" in kinds:
        return "not-checkable"
    return "warnings" if any(d.kind == "rocm7-warning" and counted(d) for d in diags) else "compiles"


def has_located_error(stderr: str) -> bool:
    """Did the compiler name a file and line for at least one error? (Its exit status alone
    cannot say whether it judged the code or refused to run.)"""
    return any(d["sev"] in ("error", "fatal error") for d, _, _ in parse(stderr))


def missing_lookups(stderr: str) -> list[tuple[str, str]]:
    """(header name, the file that included it) for each ``'x.h' file not found``."""
    out = []
    for d, _, _ in parse(stderr):
        m = _MISSING.search(d["msg"]) if d["sev"] in ("error", "fatal error") else None
        if m:
            out.append((m.group("name"), d["file"]))
    return out


def kind_of(sev: str, msg: str, flag: str | None) -> tuple[str, str]:
    if sev in ("error", "fatal error"):
        m = _MISSING.search(msg)
        if m:
            return header_kind(m.group("name")), m.group("name")
        m = GUARD_ERROR.search(msg)  # an older system HIP header that the SDK lacks, refused by the guard
        if m:
            return "missing-rocm-header", m.group("name").strip('"')
        name = leftover_cuda_name(msg)
        return ("leftover-cuda-name", name) if name else ("compile-error", "")
    if _ROCM7_WARNING.search(msg) or (flag and "deprecated" in flag):
        return "rocm7-warning", ""
    return "warning", ""


def is_within(path: str, root: str) -> bool:
    return os.path.abspath(path).startswith(os.path.abspath(root).rstrip(os.sep) + os.sep)
