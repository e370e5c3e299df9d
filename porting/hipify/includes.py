"""Header-include rewriting, decided once for the whole tree.

Plain hipify rewrites ``#include "x.cuh"`` (PyTorch-extension mode) to the hipified name of
the header *if hipify changed that header* (else the original name stays), and it learns
that by recursively hipifying the header first and recording the result in the global
``HIPIFY_FINAL_RESULT``; a header still being processed (an include cycle) is assumed to
be renamed. Processing files in separate processes would see an empty global and get
those names wrong. Here the same depth-first walk, in the same file order, runs over
small per-file facts (does the file change apart from its includes? which includes does
it have?) that workers compute in parallel, and yields every file's exact include
replacements and output name. Workers then produce the final text.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from . import engine
from .engine import IncludeMatch


@dataclass
class FileFacts:
    """What the include walk needs to know about one candidate source file."""

    breadcrumb: bool  # first line is hipify's breadcrumb: input is hipify output, ignored
    base_changed: bool  # hipify changes the text even if no include is rewritten
    includes: list[IncludeMatch] = field(default_factory=list)


@dataclass
class Decision:
    """The include walk's verdict for one file."""

    hipified_path: str | None  # absolute output path hipify records (None: ignored)
    replacements: dict[tuple[int, int], str]
    changed: bool


class TreeContext:
    """The file set, as plain hipify sees it in its output directory."""

    def __init__(self, out_root: str, all_files: list[str], tree_paths: Iterable[str],
                 header_include_dirs: Iterable[str], is_pytorch_extension: bool) -> None:
        self.out_root = out_root
        self.all_files = all_files
        self.all_set = frozenset(all_files)
        self.tree_paths = frozenset(tree_paths)
        self.header_include_dirs = list(header_include_dirs)
        self.ext = is_pytorch_extension
        self._suffixes: set[str] | None = None
        self._fout: dict[str, str] = {}
        self._resolved: dict[tuple[str, int, str], tuple[str, str] | None] = {}

    def exists(self, path: str) -> bool:
        if path == self.out_root or path.startswith(self.out_root + os.sep):
            return path in self.tree_paths
        return os.path.exists(path)

    def any_file_endswith(self, name: str) -> bool:
        """``any(s.endswith(name) for s in all_files)``, with a suffix set."""
        if "/" in name or not name:
            return any(s.endswith(name) for s in self.all_files)
        if self._suffixes is None:
            self._suffixes = {b[i:] for b in (os.path.basename(s) for s in self.all_files) for i in range(len(b))}
        return name in self._suffixes

    def fout_path(self, fin_path: str) -> str:
        out = self._fout.get(fin_path)
        if out is None:
            rel = os.path.relpath(fin_path, self.out_root)
            out = os.path.abspath(os.path.join(self.out_root, engine.hip_rel_path(rel, self.ext)))
            self._fout[fin_path] = out
        return out

    def resolve(self, fin_path: str, match: IncludeMatch) -> tuple[str, str] | None:
        """(header_path, header_dir) for an include that refers to a tree file, else None."""
        name = match.name
        if not (self.ext and self.any_file_endswith(os.path.basename(name))):
            return None
        key = (os.path.dirname(fin_path), match.regex, name)
        if key not in self._resolved:
            self._resolved[key] = self._resolve(fin_path, match)
        return self._resolved[key]

    def _resolve(self, fin_path: str, match: IncludeMatch) -> tuple[str, str] | None:
        name = match.name
        header_dir = header_path = None
        if match.regex != 1:  # quote includes and THC_GENERIC_FILE look beside the file first
            here = os.path.dirname(fin_path)
            candidate = os.path.abspath(os.path.join(here, name))
            if self.exists(candidate):
                header_dir, header_path = here, candidate
        if header_path is None:
            for inc in self.header_include_dirs:
                here = os.path.join(self.out_root, inc)
                candidate = os.path.abspath(os.path.join(here, name))
                if self.exists(candidate):
                    header_dir, header_path = here, candidate
        if header_path is None or header_dir is None:
            return None
        return header_path, header_dir

    def replacement(self, fin_path: str, match: IncludeMatch,
                    header_path_of: Callable[[str, str], str | None]) -> str:
        """The directive hipify writes for ``match``; ``header_path_of(header, dir)`` gives
        the header's recorded hipified path (None: keep its own name)."""
        if match.fixed is not None:
            return match.fixed
        found = self.resolve(fin_path, match)
        if found is None:
            return match.text
        header, header_dir = found
        path = header_path_of(header, header_dir)
        return engine.TEMPLATES[match.regex].format(os.path.relpath(path if path is not None else header, header_dir))

    def speculate(self, fin_path: str, matches: list[IncludeMatch],
                  known: dict[str, str | None] | None = None) -> dict[tuple[int, int], str]:
        """Replacements using ``known`` recorded header paths (from a walk over the headers
        done so far), else assuming the header is changed by hipify (the usual case)."""
        def guess(header: str, _dir: str) -> str | None:
            if known is not None and header in known:
                return known[header]
            return self.fout_path(header) if header in self.all_set else None
        out: dict[tuple[int, int], str] = {}
        for m in matches:
            new = self.replacement(fin_path, m, guess)
            if new != m.text:
                out[(m.regex, m.index)] = new
        return out


def walk(ctx: TreeContext, facts: dict[str, FileFacts | None],
         recorded_out: dict[str, str | None] | None = None) -> dict[str, Decision]:
    """Replay plain hipify's processing order and header recursion over ``facts``.

    Later processing of a file replaces earlier verdicts, as its output file would be
    rewritten. ``facts`` maps each file of ``ctx.all_files`` to its facts (None: the file could not be
    read/converted and keeps its own name).
    """
    INIT, DONE = 1, 2
    state: dict[str, int] = {}
    recorded: dict[str, str | None] = {} if recorded_out is None else recorded_out
    decisions: dict[str, Decision] = {}

    def process(fp: str) -> None:
        state[fp] = INIT
        recorded[fp] = fp
        info = facts.get(fp) if fp in ctx.all_set else None
        if info is None or info.breadcrumb:
            recorded[fp], state[fp] = None, DONE
            if fp in ctx.all_set:
                decisions[fp] = Decision(None, {}, False)
            return

        def header_path_of(header: str, _dir: str) -> str | None:
            if header not in state:
                process(header)
            elif state[header] == INIT:
                recorded[header] = ctx.fout_path(header)
            return recorded[header]

        replacements: dict[tuple[int, int], str] = {}
        for m in info.includes:
            new = ctx.replacement(fp, m, header_path_of)
            if new != m.text:
                replacements[(m.regex, m.index)] = new
        changed = info.base_changed or bool(replacements)
        fout = ctx.fout_path(fp)
        if ctx.ext and not changed and os.path.dirname(fp) == os.path.dirname(fout):
            path: str | None = fp
        else:
            path = fout
        recorded[fp], state[fp] = path, DONE
        decisions[fp] = Decision(path, replacements, changed)

    for fp in ctx.all_files:  # like plain hipify, every file is (re)processed in order,
        process(fp)  # even if it was already processed as another file's header
    return decisions
