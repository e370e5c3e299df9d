"""Macros out of ``clang -E -dD``: each ``#define`` with the file it sits in.

``-dM`` prints the final macro table but not where each macro came from; ``-dD`` keeps the
directives in place between line markers (``# 12 "file" 1``), so a macro can be attributed to
its header and filtered to the header set. ``#undef`` removes. Macros carry no deprecation:
clang consumes ``#pragma clang deprecated(M)`` during preprocessing (``-E`` does not print it),
and ROCm 7.1's headers do not use it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .model import Decl

_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"')
_DEFINE = re.compile(r"^#define ([A-Za-z_]\w*)")
_UNDEF = re.compile(r"^#undef ([A-Za-z_]\w*)")


def collect(text: str, wanted: Callable[[str], bool]) -> tuple[dict[str, Decl], set[str]]:
    """(macros defined under the roots, every file the preprocessor entered)."""
    macros: dict[str, Decl] = {}
    files: set[str] = set()
    file, line = "", 0
    for raw in text.splitlines():
        if not raw.startswith("#"):
            line += 1
            continue
        marker = _MARKER.match(raw)
        if marker:
            line, file = int(marker.group(1)), marker.group(2)
            if not file.startswith("<"):
                files.add(file)
            continue
        if (m := _DEFINE.match(raw)) and wanted(file):
            macros[m.group(1)] = Decl(m.group(1), ["macro"], file, line)
        elif m := _UNDEF.match(raw):
            macros.pop(m.group(1), None)
        line += 1
    return macros, files
