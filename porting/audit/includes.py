"""A file's translation unit as far as the audit reads it: the file and the quoted headers it
includes, found on disk (issue 26, class 10: a file's findings depend only on what it includes,
never on which other files share the run).

A quoted ``#include "x.h"`` is looked up next to the including file and in up to three parent
directories (how projects include "llmc/cuda_utils.cuh" from the repository root). An angle-bracket
``#include <x.inl>`` is followed (``angled=True``: round 12's helper and wrapper rules only) when it
is a project header: found the same way, or in an
``include/`` directory beside one of those directories (AMGX's ``<sm_utils.inl>`` from
``src/*.cu``, built with ``-Iinclude``) or in the ``include/`` directory of a sibling module of one of
those directories (pcl's ``"pcl/gpu/utils/device/warp.hpp"`` from ``gpu/features/src/``, found in
``gpu/utils/include/``; quoted names not found beside the file are looked up there too, for these rules
only, and for namespaced names: a bare ``"utils.h"`` names no module's header); system and library
headers are found nowhere there and stay unread. Both depend only on the files on disk, so a file's
findings stay a function of its unit.
The closure is read once per process (cached by absolute path) and bounded (depth 6, 64 files,
2 MiB per file).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from functools import lru_cache

from ..walk import read_regular

_QUOTED = re.compile(r"[ \t]*#[ \t]*include[ \t]*(?:\"([^\"\n]+)\"|<([^<>\n]+)>)")
MAX_FILES = 64
MAX_DEPTH = 6
MAX_BYTES = 2 << 20


def resolve(including: str, name: str) -> str | None:
    """The file a quoted include names, next to ``including`` or in a parent directory."""
    return _resolve(os.path.dirname(os.path.abspath(including)), name)


def resolve_angled(including: str, name: str) -> str | None:
    """The project header an angle-bracket include names (None: a system or library header)."""
    return _resolve(os.path.dirname(os.path.abspath(including)), name, True)


@lru_cache(maxsize=16384)
def _resolve(here: str, name: str, angled: bool = False) -> str | None:
    for _ in range(4):
        for candidate in (os.path.join(here, name), os.path.join(here, "include", name)) if angled else (
                os.path.join(here, name),):
            if os.path.isfile(candidate):
                return os.path.normpath(candidate)
        # a namespaced name only ("pcl/gpu/..."): a bare "utils.inl" names no module's header
        for candidate in (os.path.join(here, sub, "include", name) for sub in _subdirs(here)) \
                if angled and "/" in name else ():
            if os.path.isfile(candidate):  # a sibling module's include directory (-Imodule/include)
                return os.path.normpath(candidate)
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return None


@lru_cache(maxsize=4096)
def _subdirs(here: str) -> tuple[str, ...]:
    """The directories in ``here`` that hold an ``include/`` directory (sorted: the first that has
    a header wins, the same on every run)."""
    try:
        names = sorted(os.listdir(here))
    except OSError:
        return ()
    return tuple(n for n in names if os.path.isdir(os.path.join(here, n, "include")))


@lru_cache(maxsize=4096)
def read(path: str) -> str:
    """A header's text ("" when unreadable, not a regular file or too large: it then adds nothing).
    Read through the one bounded reader, so a FIFO named like a header cannot hang the audit."""
    data = read_regular(path, MAX_BYTES)
    if data is None or b"\0" in data[:8192]:
        return ""
    return data.decode("utf-8", "surrogateescape")


def quoted_includes(text: str) -> Iterator[str]:
    """The names of a text's ``#include "..."`` lines (found from the word, then checked)."""
    for name, quoted in _include_lines(text):
        if quoted:
            yield name


@lru_cache(maxsize=16)
def _include_list(text: str) -> tuple[tuple[str, bool], ...]:
    """_include_lines of a text, kept for the last few: a file's quoted closure and the angled one
    of round 12's rules read the same file and headers one after the other."""
    return tuple(_include_lines(text))


def _include_lines(text: str) -> Iterator[tuple[str, bool]]:
    """(name, quoted?) of a text's ``#include`` lines, in order."""
    at = text.find("include")
    while at >= 0:
        m = _QUOTED.match(text, text.rfind("\n", 0, at) + 1)
        if m is not None:
            yield (m.group(1), True) if m.group(1) is not None else (m.group(2), False)
        at = text.find("include", at + 7)


def closure(path: str, text: str, angled: bool = False) -> tuple[str, ...]:
    """The headers ``path`` (whose text is ``text``) includes, transitively, in include order,
    without ``path`` itself; angle-bracket project headers too when ``angled``."""
    start = os.path.normpath(os.path.abspath(path))
    seen = {start}
    out: list[str] = []
    todo: list[tuple[str, str | None, int]] = [(start, text, 0)]  # (file, its text or None: a header, depth)
    while todo and len(out) < MAX_FILES:
        cur, body, depth = todo.pop(0)
        if depth >= MAX_DEPTH:
            continue
        for found in _includes_of(cur, body, angled) if body is not None else _header_includes(cur, angled):
            if found is None or found in seen:
                continue
            seen.add(found)
            out.append(found)
            todo.append((found, None, depth + 1))
    return tuple(out)


def _includes_of(path: str, body: str, angled: bool) -> Iterator[str | None]:
    """The files ``path``'s quoted includes (and angled project includes when ``angled``) resolve
    to (None: not found), in include order."""
    if not angled and '"' not in body:
        return  # no quoted include (most headers of a system-style tree): no line to read
    for name, quoted in _include_list(body):
        if quoted:
            # a quoted name not beside the file may sit in a module's include directory (pcl's
            # "pcl/gpu/utils/device/warp.hpp" under gpu/utils/include/): the helper rules look there
            yield resolve(path, name) or (resolve_angled(path, name) if angled else None)
        elif angled and name.endswith(_PROJECT_EXTS):
            yield resolve_angled(path, name)


# angled names worth a look on disk: headers (never <vector>, <cstdio>, extension-less C++ ones)
_PROJECT_EXTS = (".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc")


@lru_cache(maxsize=4096)
def _header_includes(path: str, angled: bool) -> tuple[str | None, ...]:
    """_includes_of a header, found once per run (asked by every file that includes it)."""
    return tuple(_includes_of(path, read(path), angled))


def clear_caches() -> None:
    """Forget what was read: each `port audit` run reads the headers as they are now."""
    read.cache_clear()
    _include_list.cache_clear()
    _resolve.cache_clear()
    _header_includes.cache_clear()
    _subdirs.cache_clear()
