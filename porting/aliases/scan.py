"""Find the CUDA identifiers that Rust sources use (code only: not comments or strings).

A name is *used* when it is an identifier token that the alias table knows. A CUDA-looking
identifier (``cuX``, ``cudaX``, ``CUx``, ``CU_X``, ``CUDA_X``) that the table does not know is
*unknown* (an error, with file:line:col) unless the sources define it themselves (``fn``,
``type``, ``struct``, ``const``... or ``use ... as NAME``) or the caller allows it.

Only names that look like CUDA/NVIDIA API names (``cu``/``CU``/``nv``/``NV``/``make_cuda``
prefixes) are candidates, so a crate's own ``MAJOR_VERSION`` is never mistaken for hipify's.

Files that ``port aliases`` generated (they carry its marker) are skipped, so the checked-in
alias block never keeps its own names alive.

A ``build.rs`` is also read for bindgen allowlists (``allowlist_function/type/var/item``,
regexes included): the names they match define a -sys crate's API even where no ``.rs`` file
names them, so they count as used.

Two lexers give the same result on valid Rust: ``tokenize`` (porting.audit.tokenize, every
token; the reference) and ``fast`` (the default: one regular expression that only stops at
comments, string/char literals and candidate identifiers, about 10x faster; a test checks it
against the reference). Files without any candidate prefix are not lexed at all.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..walk import read_regular, source_files, why_unreadable
from .rust_gen import SCAN_MARK, TABLE_MARK
from .table import AliasTable

CUDA_LIKE = re.compile(r"(?:cu[A-Z]|cuda[A-Z]|CU[A-Z]|CU_[A-Z0-9]|CUDA_[A-Z0-9])\w*\Z")
# Names of the table that the scanner considers at all (hipify also maps e.g. MAJOR_VERSION).
CANDIDATE = re.compile(r"(?:cu|CU|nv|NV|make_cuda)\w*\Z")
_CANDIDATE_SRC = r"(?:cu|CU|nv|NV|make_cuda)\w*"
_PREFILTER = re.compile(r"(?<![\w'])" + _CANDIDATE_SRC)
# The fast lexer: find where comments and literals start (a cheap regex), skip over them,
# then keep the candidate identifiers that fall outside them.
_DELIM = re.compile(r"//|/\*|[\"']")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*(?:"|\Z)', re.S)
_CHAR = re.compile(r"'(?:\\(?:u\{[0-9a-fA-F_]*\}|x[0-9a-fA-F]{2}|.)|[^'\\\n])'")
_DEFINING = frozenset({"fn", "type", "struct", "enum", "union", "const", "static", "mod", "trait", "as"})
_DEFINED_BEFORE = re.compile(r"(?<![\w'])(?:" + "|".join(sorted(_DEFINING)) + r")\s+(?:r\#)?\Z")
_BLOCK = re.compile(r"/\*|\*/")
_SKIP_DIRS = frozenset({"target", ".git", "node_modules"})


@dataclass(frozen=True)
class Use:
    name: str
    file: str
    line: int
    col: int

    def where(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "file": self.file, "line": self.line, "col": self.col}


@dataclass
class ScanResult:
    files: list[str] = field(default_factory=list)
    lines: int = 0
    used: dict[str, Use] = field(default_factory=dict)  # known CUDA name -> first use
    unknown: list[Use] = field(default_factory=list)  # every use of an unknown CUDA-like name
    skipped: list[str] = field(default_factory=list)  # generated and excluded files
    unreadable: list[str] = field(default_factory=list)  # "FILE: reason": the scan is incomplete

    def to_json(self) -> dict[str, object]:
        return {"schema": 1, "files": len(self.files), "lines": self.lines,
                "used": sorted(self.used), "unknown": [u.to_json() for u in self.unknown],
                "skipped": self.skipped, "unreadable": self.unreadable}


def rust_files(paths: Iterable[str | os.PathLike[str]], problems: list[str] | None = None) -> list[Path]:
    """The ``.rs`` files under ``paths`` (files given directly are kept), sorted, no duplicates;
    a ``.rs`` entry the walker would not return (broken or outward symlink, FIFO) goes to ``problems``."""
    out: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            out.add(path)
        elif path.is_dir():  # the one walker: regular files only, no symlink out of the tree
            files, skipped = source_files([path], skip_dir=lambda d: d in _SKIP_DIRS or d.startswith("."))
            out.update(Path(f) for f in files if f.endswith(".rs"))
            if problems is not None:  # the scan is incomplete: said, never read
                problems += [p for p in skipped if p.split(": ", 1)[0].endswith(".rs")]
        else:
            raise InputError(f"{path}: no such file or directory")
    return sorted(out)


def _note(name: str, line: int, col: int, label: str, table: AliasTable, result: ScanResult,
          candidates: dict[tuple[str, str, int], Use]) -> None:
    if not CANDIDATE.match(name):
        return
    if name in table.entries:
        if name not in result.used:
            result.used[name] = Use(name, label, line, col)
    elif CUDA_LIKE.match(name):
        candidates.setdefault((name, label, line), Use(name, label, line, col))


def _scan_tokens(text: str, label: str, table: AliasTable, result: ScanResult,
                 candidates: dict[tuple[str, str, int], Use], defined: set[str]) -> None:
    """Reference lexer: every token of porting.audit.tokenize."""
    from ..audit.tokenize import tokenize

    prev = ""
    for tok in tokenize(text, "rust"):
        if tok.kind != "ident":
            if tok.kind != "comment":
                prev = tok.text
            continue
        name = tok.text[2:] if tok.text.startswith("r#") else tok.text
        if prev in _DEFINING:
            defined.add(name)
        _note(name, tok.line, tok.col, label, table, result, candidates)
        prev = name


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _raw_string_hashes(text: str, quote: int) -> int | None:
    """If the ``"`` at ``quote`` opens a raw string (``r"``, ``r#"``, ``br##"``...), its hash count."""
    i = quote - 1
    while i >= 0 and text[i] == "#":
        i -= 1
    if i < 0 or text[i] != "r":
        return None
    before = text[i - 1] if i > 0 else ""
    if before in ("b", "c"):
        before = text[i - 2] if i > 1 else ""
    return None if before and _is_word(before) else quote - 1 - i


def _skipped_regions(text: str) -> list[tuple[int, int]]:
    """(start, end) of every comment, string and char literal, in order."""
    regions: list[tuple[int, int]] = []
    pos, end = 0, len(text)
    search = _DELIM.search
    while pos < end:
        m = search(text, pos)
        if m is None:
            break
        start, token = m.start(), m.group()
        if token == "//":
            stop = text.find("\n", start)
            stop = end if stop < 0 else stop
        elif token == "/*":
            depth, stop = 0, end
            for b in _BLOCK.finditer(text, start):
                depth += 1 if b.group() == "/*" else -1
                if depth == 0:
                    stop = b.end()
                    break
        elif token == '"':
            hashes = _raw_string_hashes(text, start)
            if hashes is None:
                stop = _STRING.match(text, start).end()  # type: ignore[union-attr]  # always matches
            else:
                close = text.find('"' + "#" * hashes, start + 1)
                stop = end if close < 0 else close + 1 + hashes
        else:  # a quote: a char literal, or a lifetime (not skipped)
            c = _CHAR.match(text, start)
            if c is None:
                pos = start + 1
                continue
            stop = c.end()
        regions.append((start, stop))
        pos = stop
    return regions


def _scan_fast(text: str, label: str, table: AliasTable, result: ScanResult,
               candidates: dict[tuple[str, str, int], Use], defined: set[str]) -> None:
    """Fast lexer: same uses, definitions and positions as ``_scan_tokens`` on valid Rust."""
    if not _PREFILTER.search(text):
        return
    regions = _skipped_regions(text)
    r, nregions = 0, len(regions)
    line, line_start, counted = 1, 0, 0  # newlines are counted lazily up to ``counted``
    for m in _PREFILTER.finditer(text):
        start = m.start()
        while r < nregions and regions[r][1] <= start:
            r += 1
        if r < nregions and regions[r][0] <= start:
            continue  # inside a comment or literal
        if start >= 2 and text[start - 2:start] == "r#" and (start == 2 or not _is_word(text[start - 3])):
            start -= 2  # a raw identifier r#name: its column is the r's
        elif start and _is_word(text[start - 1]):
            continue
        nl = text.count("\n", counted, start)
        if nl:
            line += nl
            line_start = text.rfind("\n", counted, start) + 1
        counted = start
        name = m.group()
        if _DEFINED_BEFORE.search(text, max(0, start - 16), start):
            defined.add(name)
        _note(name, line, start - line_start + 1, label, table, result, candidates)


# bindgen's Builder::allowlist_{function,type,var,item}("regex") (and the older whitelist_*), with
# a plain or raw string literal argument.
_ALLOWLIST = re.compile(r'\.(?:allow|white)list_(?:function|type|var|item)\s*\(\s*'
                        r'(?:"((?:[^"\\]|\\.)*)"|r(#*)"(.*?)"\2)', re.S)


def bindgen_allowlists(text: str, label: str, table: AliasTable, result: ScanResult) -> None:
    """A -sys crate's build.rs names its API in bindgen allowlists: every table name an allowlist
    pattern matches (bindgen anchors the regex at both ends) counts as used, even when no .rs
    file names it. A pattern Python cannot read is reported (the scan would be incomplete)."""
    regions = _skipped_regions(text)
    for m in _ALLOWLIST.finditer(text):
        if any(a <= m.start() < b for a, b in regions):
            continue  # inside a comment (or a string): bindgen never sees it
        raw = m.group(1)
        pattern = (raw.encode().decode("unicode_escape") if raw and "\\" in raw else raw) \
            if raw is not None else m.group(3)
        line = text.count("\n", 0, m.start()) + 1
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            result.unreadable.append(f"{label}:{line}: bindgen allowlist {pattern!r} is not a regex "
                                     f"this scanner can read ({exc})")
            continue
        col = m.start() - text.rfind("\n", 0, m.start())
        for name in table.entries:
            if name not in result.used and regex.fullmatch(name):
                result.used[name] = Use(name, label, line, col)


def scan(paths: Iterable[str | os.PathLike[str]], table: AliasTable,
         exclude: Iterable[str | os.PathLike[str]] = (), allow: Iterable[str] = (),
         lexer: str = "fast") -> ScanResult:
    if lexer not in ("fast", "tokenize"):
        raise ValueError(f"scan: unknown lexer {lexer!r}")
    scan_text = _scan_fast if lexer == "fast" else _scan_tokens
    result = ScanResult()
    excluded = {Path(p).resolve() for p in exclude}
    candidates: dict[tuple[str, str, int], Use] = {}
    defined: set[str] = set(allow)
    for path in rust_files(paths, result.unreadable):
        label = str(path)
        if path.resolve() in excluded:
            result.skipped.append(label)
            continue
        data = read_regular(path)  # bounded; a FIFO named x.rs is refused, not waited on
        if data is None:
            result.unreadable.append(f"{label}: {why_unreadable(path)}")
            continue
        text = data.decode("utf-8", errors="replace")
        if SCAN_MARK in text[:400] or TABLE_MARK in text[:400]:
            result.skipped.append(label)
            continue
        result.files.append(label)
        result.lines += text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        scan_text(text, label, table, result, candidates, defined)
        if path.name == "build.rs":
            bindgen_allowlists(text, label, table, result)
    result.unknown = [u for u in candidates.values() if u.name not in defined]
    return result
