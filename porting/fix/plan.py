"""Find the repairs of a file and of a tree: the repair classes in order, overlaps dropped, the
portable-mask definition added where a repair names it, and the text with a set of repairs applied."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..audit.tokenize import language_for
from ..errors import InputError, UsageError
from ..hipify.tree import scan_tree
from . import arrays, ballot, header, lanemath, mask, shift, width
from .model import FileFix, Note, Repair
from .source import Source

# the repair classes, in the order their edits are preferred when two overlap
CLASSES = {"mask": mask, "ballot": ballot, "shift": shift, "lane-math": lanemath, "warp-array": arrays,
           "shuffle-width": width}
KINDS = {"mask": ("mask", "mask-const"), "ballot": ("ballot",), "shift": ("shift",),
         "lane-math": ("lane-math",), "warp-array": ("warp-array",), "shuffle-width": ("shuffle-width",)}
MAX_BYTES = 8 << 20  # a source larger than this is not a hand-written kernel file: not read


def select(rules: Iterable[str] | None) -> list[str]:
    """The repair classes to run: every one, or those named (a class or an audit rule id)."""
    if not rules:
        return list(CLASSES)
    by_rule = {"warp-mask-32bit": ["mask"], "ballot-32bit": ["ballot"],
               "warp-size-literal": ["shift", "lane-math", "warp-array", "shuffle-width"]}
    out: list[str] = []
    for name in rules:
        picked = [name] if name in CLASSES else by_rule.get(name)
        if picked is None:
            raise UsageError(f"--rules: unknown {name!r} (classes: {', '.join(CLASSES)}; "
                             f"audit rules: {', '.join(by_rule)})")
        out += [p for p in picked if p not in out]
    return out


def plan_text(path: str, text: str, classes: list[str]) -> tuple[list[Repair], list[Note]]:
    """The repairs of one file's text (not yet verified) and the hazards left as notes."""
    src = Source(path, text)
    repairs: list[Repair] = []
    notes: list[Note] = []
    for name in classes:
        found, left = CLASSES[name].find(src)
        notes += left
        for r in found:
            if not any(_overlaps(r, o) for o in repairs):
                repairs.append(r)
    repairs.sort(key=lambda r: (r.start, r.end))
    if any(r.needs_header for r in repairs):
        extra = header.insertion(src)
        if extra is not None:
            repairs.insert(0, extra)
    return repairs, notes


def _overlaps(a: Repair, b: Repair) -> bool:
    if a.start == a.end or b.start == b.end:  # insertions collide only at the same point
        return a.start == b.start and a.end == b.end
    return a.start < b.end and b.start < a.end


def apply(text: str, repairs: Iterable[Repair]) -> str:
    """``text`` with the repairs made (a header insertion comes with any repair that needs it)."""
    chosen = list(repairs)
    for r in sorted(chosen, key=lambda r: (r.start, r.end), reverse=True):
        text = text[:r.start] + r.new + text[r.end:]
    return text


def with_header(repairs: list[Repair], chosen: Iterable[Repair]) -> list[Repair]:
    """``chosen`` plus the file's header insertion when one of them needs it."""
    picked = list(chosen)
    if any(r.needs_header for r in picked):
        picked += [r for r in repairs if r.kind == "header" and r not in picked]
    return picked


def collect(paths: Iterable[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """(root, path relative to it) of every C/C++/CUDA source under ``paths`` that may be repaired
    in place, and problems: a file reached through a symlink is not repaired (its target is, where
    it lies in the tree); a symlink out of the tree is not followed (porting.paths)."""
    out: list[tuple[str, str]] = []
    problems: list[str] = []
    for raw in paths:
        if not os.path.lexists(raw):
            raise InputError(f"{raw}: no such file or directory")
        if os.path.islink(raw):
            problems.append(f"{raw}: a symlink, not repaired (name its target)")
            continue
        if os.path.isfile(raw):
            if language_for(raw) == "c":
                out.append((os.path.dirname(os.path.abspath(raw)), os.path.basename(raw)))
            else:
                problems.append(f"{raw}: not a C/C++/CUDA source, skipped")
            continue
        root = os.path.abspath(raw)
        real_root = os.path.realpath(root)
        for f in scan_tree(root).files:
            if f.problem:
                problems.append(f"{os.path.join(raw, f.rel)}: {f.problem}")
                continue
            if language_for(f.rel) != "c":
                continue
            if os.path.realpath(f.path) != os.path.join(real_root, *f.rel.split("/")):
                problems.append(f"{os.path.join(raw, f.rel)}: reached through a symlink, not repaired here")
                continue
            out.append((root, f.rel))
    return out, problems


def read(root: str, rel: str) -> tuple[str | None, str]:
    """The text of a file (surrogate-escaped bytes, so writing it back is lossless), or a problem."""
    path = Path(root, rel)
    try:
        if path.stat().st_size > MAX_BYTES:
            return None, f"{path}: larger than {MAX_BYTES >> 20} MiB, not repaired"
        data = path.read_bytes()
    except OSError as exc:
        return None, f"{path}: cannot read: {exc.strerror or exc}"
    if b"\0" in data[:8192]:
        return None, f"{path}: binary file, not repaired"
    return data.decode("utf-8", "surrogateescape"), ""


def plan_paths(paths: Iterable[str], classes: list[str]) -> tuple[list[FileFix], list[str]]:
    files, problems = collect(paths)
    out: list[FileFix] = []
    for root, rel in files:
        text, problem = read(root, rel)
        if text is None:
            problems.append(problem)
            continue
        repairs, notes = plan_text(rel, text, classes)
        if repairs or notes:
            out.append(FileFix(rel, root, text, repairs, notes))
    return out, problems
