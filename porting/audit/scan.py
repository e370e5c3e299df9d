"""Run the audit over files and directories: collect, check, suppress, baseline."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..walk import read_regular, source_files, why_unreadable
from . import branches, checks
from .findings import Baseline, Finding, suppressed_rules
from .mask import mask
from .rules import RULES, SEVERITIES
from .symbols import SymbolSets, symbol_sets
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
        # the one walker: regular files only, no symlink out of the tree, loops reported
        files, skipped = source_files([p], skip_dir=lambda d: d in SKIP_DIRS)
        problems += skipped
        out += [(f, found) for f in files if (found := language_for(f)) is not None]
    return out, problems


# Rules whose finding names a symbol that the tree may define itself (a shim or alias file): if any
# scanned file defines it (ggml's vendors/hip.h: #define __shfl_xor_sync(mask, ...) __shfl_xor(...)),
# the finding is the user's business.
_TREE_DEFINED_RULES = frozenset({"cuda-unmapped", "rust-cuda-binding", "warp-mask-32bit", "hip-deprecated",
                                 "rocm7-removed", "hip-error-ignored", "cuda-version-check"})

FileResult = tuple[list[Finding], int, "str | None", checks.FileFacts]


def audit_file(path: str, lang: str, display: str | None = None, sets: SymbolSets | None = None,
               width_candidates: frozenset[str] | None = None) -> FileResult:
    """Findings of one file (before suppression and tree-level filtering), its line count, a read
    problem if any, and the facts the tree-level pass needs."""
    facts = checks.FileFacts(width_candidates=width_candidates)
    data = read_regular(path)  # bounded, and a FIFO is refused rather than waited on
    if data is None:
        return [], 0, f"{path}: {why_unreadable(path)}", facts
    if b"\0" in data[:8192]:
        return [], 0, f"{path}: binary file, not audited", facts
    text = data.decode("utf-8", "surrogateescape")
    masked = mask(text, lang)
    shown = display or path
    check = checks.check_rust if lang == "rust" else checks.check_c
    found = list(check(masked, shown, sets or SymbolSets(), facts))
    found += facts.pending
    ignored_on: dict[int, set[str]] = {}  # once per line: a long line with many findings is read once
    for f in found:
        ignored = ignored_on.get(f.line)
        if ignored is None:
            ignored = ignored_on[f.line] = suppressed_rules(masked.line_text(f.line))
        if f.rule in ignored or "*" in ignored:
            f.severity = "suppressed"
    return found, text.count("\n") + (not text.endswith("\n") and bool(text)), None, facts


def _audit_one(item: tuple[str, str, SymbolSets, frozenset[str] | None]) -> FileResult:
    return audit_file(item[0], item[1], sets=item[2], width_candidates=item[3])


def _run(files: list[tuple[str, str]], jobs: int, sets: SymbolSets) -> list[FileResult]:
    if jobs <= 1 or len(files) < 16:
        return [audit_file(p, lang, sets=sets) for p, lang in files]
    from ..hipify.convert import mp_context
    from ..workers import worker_pool
    hipify_map()  # load once, shared with forked workers
    with worker_pool(jobs, mp_context()) as pool:
        # one tuple per file, but pickle stores the shared sets once per chunk
        return list(pool.map(_audit_one, [(p, lang, sets, None) for p, lang in files],
                             chunksize=max(1, len(files) // (jobs * 8))))


def _tree_filter(results: list[FileResult], paths: list[str], sets: SymbolSets) -> None:
    """Drop findings on names the translation unit defines, warp constants it never uses as a
    width, and findings in branches that need a macro it defines only on the CUDA side. A C file's
    translation unit is the file and the headers it includes (porting.audit.includes), read from
    disk whether or not they are part of the run: a file's findings never depend on which other
    files are scanned with it (issue 26, class 10). Rust aliases are crate-wide: the Rust files of
    the run."""
    by_path = {os.path.abspath(p): r[3] for p, r in zip(paths, results)}
    rust_defined: set[str] = set()
    for facts in by_path.values():
        if facts.rust:
            rust_defined |= facts.defined
    for found, _lines, _problem, facts in results:
        if facts.rust:
            unit = [facts]
        else:
            unit = [facts, *(by_path.get(h) or _header_facts(h, sets) for h in facts.headers)]
        defined = set().union(*(u.defined for u in unit)) | (rust_defined if facts.rust else set())
        widths = set().union(*(u.width_names for u in unit))
        cuda_only = set().union(*(u.cuda_defines for u in unit)) - set().union(*(u.other_defines for u in unit))
        pending = {id(f) for f in facts.pending}
        other = set().union(*(u.other_defines for u in unit))
        zero = set().union(*(u.zero_defines for u in unit)) - set().union(*(u.value_defines for u in unit))
        gated = [(lo, hi) for lo, hi, name, by_value in facts.features
                 if name in cuda_only or (by_value and name in zero)
                 or (name not in other and branches.LIBRARY_CUDA_ARCH_MACRO.fullmatch(name))]
        found[:] = [f for f in found
                    if not (f.rule in _TREE_DEFINED_RULES and f.symbol and f.symbol in defined)
                    and not (id(f) in pending and f.symbol not in widths)
                    and not any(lo <= f.line <= hi for lo, hi in gated)]


_HEADER_FACTS: dict[str, checks.FileFacts] = {}


def _clear_caches() -> None:
    """Each run reads the included headers as they are now (a long-lived process runs many)."""
    from . import includes, model

    _HEADER_FACTS.clear()
    includes.clear_caches()
    model.clear_caches()


def _header_facts(path: str, sets: SymbolSets) -> checks.FileFacts:
    """The facts of an included header that is not part of the run (audited once per process)."""
    known = _HEADER_FACTS.get(path)
    if known is None:
        known = _HEADER_FACTS[path] = audit_file(path, "c", sets=sets)[3]
    return known


def audit_paths(paths: Iterable[str | os.PathLike[str]], *, disable: Iterable[str] = (),
                baseline: Baseline | None = None, jobs: int | None = None, enable: Iterable[str] = (),
                sets: SymbolSets | None = None) -> AuditResult:
    """Audit files and directories (C/C++/CUDA/HIP and Rust sources) with ``jobs`` processes.
    ``enable`` turns on opt-in rules; ``sets`` (default: this machine's headers) are the symbol sets."""
    disabled = set(disable)
    enabled = set(enable)
    for key, given in (("audit.disable", disabled), ("audit.enable", enabled)):
        unknown = given - set(RULES)
        if unknown:
            raise InputError(f"{key}: unknown rule id(s) {', '.join(sorted(unknown))} (known: {', '.join(RULES)})")
    disabled |= {r.id for r in RULES.values() if not r.default and r.id not in enabled}
    files, problems = collect(paths)
    _clear_caches()
    sets = sets if sets is not None else symbol_sets()
    result = AuditResult(problems=problems + list(sets.problems))
    results = _run(files, jobs or os.cpu_count() or 1, sets)
    _tree_filter(results, [p for p, _lang in files], sets)
    for found, lines, problem, _facts in results:
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
