"""Run the audit over files and directories: collect, check, suppress, baseline."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from . import checks
from .findings import Baseline, Finding, suppressed_rules
from .mask import mask
from .rules import RULES, SEVERITIES
from .tables import hipify_map
from .tokenize import language_for

SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "target"}


@dataclass
class AuditResult:
    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    lines: int = 0
    suppressed: int = 0
    baselined: int = 0
    problems: list[str] = field(default_factory=list)  # files that could not be read

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in SEVERITIES}
        for f in self.findings:
            out[f.severity] += 1
        return out


def collect(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[tuple[str, str]], list[str]]:
    """(file path, language) for every C/C++/CUDA/Rust source under ``paths``, and problems."""
    out: list[tuple[str, str]] = []
    problems: list[str] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise InputError(f"{p}: no such file or directory")
        if p.is_file():
            lang = language_for(p) or "c"
            out.append((str(p), lang))
            continue
        seen: set[tuple[int, int]] = set()
        for dirpath, dirnames, filenames in os.walk(p, followlinks=True):
            st = os.stat(dirpath)
            if (st.st_dev, st.st_ino) in seen:
                problems.append(f"{dirpath}: symlink loop, not entered again")
                dirnames[:] = []
                continue
            seen.add((st.st_dev, st.st_ino))
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in sorted(filenames):
                file_lang = language_for(name)
                if file_lang is not None:
                    out.append((os.path.join(dirpath, name), file_lang))
    return out, problems


def audit_file(path: str, lang: str, display: str | None = None) -> tuple[list[Finding], int, str | None]:
    """Findings of one file (before suppression), its line count, and a read problem if any."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return [], 0, f"{path}: cannot read: {exc.strerror or exc}"
    if b"\0" in data[:8192]:
        return [], 0, f"{path}: binary file, not audited"
    text = data.decode("utf-8", "surrogateescape")
    masked = mask(text, lang)
    shown = display or path
    found = list(checks.check_rust(masked, shown) if lang == "rust" else checks.check_c(masked, shown))
    kept = []
    ignored_on: dict[int, set[str]] = {}  # once per line: a long line with many findings is read once
    for f in found:
        ignored = ignored_on.get(f.line)
        if ignored is None:
            ignored = ignored_on[f.line] = suppressed_rules(masked.line_text(f.line))
        if f.rule in ignored or "*" in ignored:
            f.severity = "suppressed"
        kept.append(f)
    return kept, text.count("\n") + (not text.endswith("\n") and bool(text)), None


def _audit_one(item: tuple[str, str]) -> tuple[list[Finding], int, str | None]:
    return audit_file(*item)


def _run(files: list[tuple[str, str]], jobs: int) -> list[tuple[list[Finding], int, str | None]]:
    if jobs <= 1 or len(files) < 16:
        return [audit_file(p, lang) for p, lang in files]
    from concurrent.futures import ProcessPoolExecutor

    from ..hipify.convert import mp_context
    hipify_map()  # load once, shared with forked workers
    with ProcessPoolExecutor(max_workers=jobs, mp_context=mp_context()) as pool:
        return list(pool.map(_audit_one, files, chunksize=max(1, len(files) // (jobs * 8))))


def audit_paths(paths: Iterable[str | os.PathLike[str]], *, disable: Iterable[str] = (),
                baseline: Baseline | None = None, jobs: int | None = None) -> AuditResult:
    """Audit files and directories (C/C++/CUDA/HIP and Rust sources) with ``jobs`` processes."""
    disabled = set(disable)
    unknown = disabled - set(RULES)
    if unknown:
        raise InputError(f"audit.disable: unknown rule id(s) {', '.join(sorted(unknown))} (known: {', '.join(RULES)})")
    files, problems = collect(paths)
    result = AuditResult(problems=problems)
    for found, lines, problem in _run(files, jobs or os.cpu_count() or 1):
        result.files += 1
        result.lines += lines
        if problem:
            result.problems.append(problem)
        for f in found:
            if f.rule in disabled:
                continue
            if f.severity == "suppressed":
                result.suppressed += 1
            elif baseline is not None and f in baseline:
                result.baselined += 1
            else:
                result.findings.append(f)
    result.findings.sort(key=lambda f: (f.path, f.line, f.col, f.rule))
    return result
