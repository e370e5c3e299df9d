"""Find the CUDA identifiers that Rust sources use (code only: not comments or strings).

A name is *used* when it is an identifier token that the alias table knows. A CUDA-looking
identifier (``cuX``, ``cudaX``, ``CUx``, ``CU_X``, ``CUDA_X``) that the table does not know is
*unknown* (an error, with file:line:col) unless the sources define it themselves (``fn``,
``type``, ``struct``, ``const``... or ``use ... as NAME``) or the caller allows it.

Files that ``port aliases scan`` generated (they carry its marker) are skipped, so the
checked-in alias block never keeps its own names alive.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from ..errors import InputError
from .rust_gen import SCAN_MARK
from .table import AliasTable

CUDA_LIKE = re.compile(r"(?:cu[A-Z]|cuda[A-Z]|CU[A-Z]|CU_[A-Z0-9]|CUDA_[A-Z0-9])\w*\Z")
_DEFINING = frozenset({"fn", "type", "struct", "enum", "union", "const", "static", "mod", "trait", "as"})
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
    skipped: list[str] = field(default_factory=list)  # generated files and unreadable ones

    def to_json(self) -> dict[str, object]:
        return {"schema": 1, "files": len(self.files), "lines": self.lines,
                "used": sorted(self.used), "unknown": [u.to_json() for u in self.unknown],
                "skipped": self.skipped}


def rust_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The ``.rs`` files under ``paths`` (files given directly are kept), sorted, no duplicates."""
    out: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            out.add(path)
        elif path.is_dir():
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
                out.update(Path(dirpath) / f for f in filenames if f.endswith(".rs"))
        else:
            raise InputError(f"{path}: no such file or directory")
    return sorted(out)


def _scan_text(text: str, label: str, table: AliasTable, result: ScanResult,
               candidates: dict[tuple[str, str, int], Use], defined: set[str]) -> None:
    from ..audit.tokenize import tokenize

    entries = table.entries
    prev = ""
    for tok in tokenize(text, "rust"):
        if tok.kind != "ident":
            if tok.kind not in ("comment",):
                prev = tok.text
            continue
        name = tok.text[2:] if tok.text.startswith("r#") else tok.text
        if prev in _DEFINING:
            defined.add(name)
        if name in entries:
            if name not in result.used:
                result.used[name] = Use(name, label, tok.line, tok.col)
        elif CUDA_LIKE.match(name):
            candidates.setdefault((name, label, tok.line), Use(name, label, tok.line, tok.col))
        prev = name


def scan(paths: Iterable[str | os.PathLike[str]], table: AliasTable,
         exclude: Iterable[str | os.PathLike[str]] = (), allow: Iterable[str] = ()) -> ScanResult:
    result = ScanResult()
    excluded = {Path(p).resolve() for p in exclude}
    candidates: dict[tuple[str, str, int], Use] = {}
    defined: set[str] = set(allow)
    for path in rust_files(paths):
        label = str(path)
        if path.resolve() in excluded:
            result.skipped.append(label)
            continue
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError as exc:
            result.skipped.append(f"{label} ({exc.strerror or exc})")
            continue
        if SCAN_MARK in text[:400]:
            result.skipped.append(label)
            continue
        result.files.append(label)
        result.lines += text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        _scan_text(text, label, table, result, candidates, defined)
    result.unknown = [u for u in candidates.values() if u.name not in defined]
    return result
