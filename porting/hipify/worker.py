"""Per-file work, run in worker processes: copy, convert, write (atomically)."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from typing import Any

from ..paths import OutputDir, PathRefused
from . import engine
from .includes import FileFacts, TreeContext


@dataclass(frozen=True)
class Session:
    """What every task of one conversion shares: the tree and hipify's launch option. The parent
    passes it to each call; a pool worker gets its copy once, from the pool's initializer."""

    context: TreeContext
    hip_clang_launch: bool = False


_POOL_SESSION: Session | None = None  # set only inside pool worker processes, by init()


def init(session: Session) -> None:
    """Pool initializer (runs in each worker process, never in the parent)."""
    global _POOL_SESSION
    _POOL_SESSION = session


def run_pooled(task: Task) -> Result:
    """``run_task`` in a pool worker, with the session its initializer received."""
    assert _POOL_SESSION is not None, "worker.init() did not run in this process"
    return run_task(task, _POOL_SESSION)


@dataclass
class Task:
    rel: str
    src_path: str
    fin: str  # absolute path of the file in OUT (plain hipify's "fin_path")
    mode: int
    copy: bool  # write the verbatim copy OUT/rel
    candidate: bool
    max_size: int
    replacements: dict[tuple[int, int], str] | None = None  # None: speculate
    known: dict[str, str | None] | None = None  # header -> recorded hipified path, from earlier stages


@dataclass
class Result:
    rel: str
    status: str = "unchanged"
    why: str = ""
    sha256: str | None = None
    size: int = 0
    non_utf8_bytes: int = 0
    facts: FileFacts | None = None
    replacements: dict[tuple[int, int], str] = field(default_factory=dict)
    output: str | None = None  # absolute output path written (converted files)
    output_size: int | None = None
    changed: bool = False
    copy_overwritten: bool = False  # its copy path was taken by another file's hipified output
    refused: list[dict[str, str]] = field(default_factory=list)  # writes porting.paths refused


def write_file(session: Session, path: str, data: bytes, mode: int) -> None:
    """Atomic replace inside OUT (``porting.paths.OutputDir``: never through a symlink, never
    outside OUT), without a per-file fsync (see ``porting.atomic.write_bytes``)."""
    OutputDir(session.context.out_root).write_bytes(path, data, mode=mode, durable=False)


def run_task(task: Task, session: Session) -> Result:
    """Copy and/or convert one file; never raises for file problems (they go in the Result)."""
    res = Result(task.rel)
    try:
        with open(task.src_path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        res.status, res.why = "failed", f"cannot read: {exc.strerror or exc}"
        return res
    res.sha256 = hashlib.sha256(data).hexdigest()
    res.size = len(data)
    try:
        if task.copy:
            write_file(session, task.fin, data, task.mode)
        if not task.candidate:
            res.why = "not a hipify source (copied)"
            return res
        if len(data) > task.max_size:
            res.status = "skipped"
            res.why = f"larger than hipify.max_file_size ({len(data)} > {task.max_size} bytes); copied unchanged"
            return res
        nul = data.find(b"\0")
        if nul >= 0:
            res.status, res.why = "skipped", f"binary file (NUL byte at offset {nul}); copied unchanged"
            return res
        convert(task, data, res, session)
    except OSError as exc:
        res.status, res.why = "failed", f"cannot write output: {exc.strerror or exc}"
    except PathRefused as exc:
        res.status, res.why = "failed", f"output refused: {exc.why}"
        res.refused.append({"path": os.path.relpath(str(exc.path), session.context.out_root), "why": exc.why})
    except engine.WouldNotTerminate as exc:
        res.status, res.why = "failed", f"not converted: {exc}; copied unchanged"
    except Exception as exc:  # a hipify internal error on odd input: report, carry on
        res.status, res.why = "failed", f"hipify failed: {type(exc).__name__}: {exc}"
    return res


def convert(task: Task, data: bytes, res: Result, session: Session) -> None:
    ctx = session.context
    text, bad = engine.decode(data)
    res.non_utf8_bytes = bad
    note = f"; {bad} non-UTF-8 bytes kept verbatim" if bad else ""
    if text.startswith(engine.breadcrumb()):
        res.facts = FileFacts(breadcrumb=True, base_changed=False)
        res.why = "input is hipify output (breadcrumb); copied" + note
        return
    y1 = engine.stage1(text)
    matches = engine.include_matches(y1, ctx.ext)
    repl = task.replacements if task.replacements is not None else ctx.speculate(task.fin, matches, task.known)
    final = engine.stage2(engine.apply_includes(y1, repl), task.fin, session.hip_clang_launch)
    changed = final != text
    if not repl:
        base_changed = changed
    elif y1 != text:
        base_changed = True
    else:
        base_changed = engine.stage2(y1, task.fin, session.hip_clang_launch) != text
    res.facts = FileFacts(breadcrumb=False, base_changed=base_changed, includes=matches)
    res.replacements = dict(repl)
    res.changed = changed
    fout = ctx.fout_path(task.fin)
    if ctx.ext and not changed and os.path.dirname(fout) == os.path.dirname(task.fin):
        res.why = "hipify made no changes" + note
        return
    if engine.needs_breadcrumb(task.fin, fout):
        final = engine.breadcrumb() + final
    out_bytes = engine.encode(final)
    write_file(session, fout, out_bytes, task.mode)
    res.status = "converted"
    res.why = ("hipified" if changed else "hipify made no changes; written under its hipified name") + note
    res.output, res.output_size = fout, len(out_bytes)


def facts_to_json(facts: FileFacts | None) -> dict[str, Any] | None:
    if facts is None:
        return None
    return {"breadcrumb": facts.breadcrumb, "base_changed": facts.base_changed,
            "includes": [m.to_json() for m in facts.includes]}


def facts_from_json(data: dict[str, Any] | None) -> FileFacts | None:
    if data is None:
        return None
    return FileFacts(bool(data["breadcrumb"]), bool(data["base_changed"]),
                     [engine.IncludeMatch.from_json(m) for m in data.get("includes", [])])
