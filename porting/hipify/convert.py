"""``convert_tree``: out-of-tree, incremental, parallel hipify of a source tree."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import stat
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from ..atomic import write_json
from ..errors import InputError, UsageError
from ..paths import OutputDir, PathRefused
from ..workers import close_pool, new_pool
from . import engine, worker
from .includes import Decision, FileFacts, TreeContext, walk
from .manifest import FileEntry, Manifest
from .tree import SourceFile, is_candidate, scan_tree

MANIFEST_NAME = ".port-hipify-manifest.json"


@dataclass
class HipifyOptions:
    """The options of plain ``hipify()`` that change its output (same names and defaults,
    except ``is_pytorch_extension``, which defaults to True as in torch.utils.cpp_extension)."""

    extensions: tuple[str, ...] = (".cu", ".cuh", ".c", ".cc", ".cpp", ".h", ".in", ".hpp")
    header_extensions: tuple[str, ...] = (".cuh", ".h", ".hpp")
    header_include_dirs: tuple[str, ...] = ()
    includes: tuple[str, ...] = ("*",)
    ignores: tuple[str, ...] = ()
    is_pytorch_extension: bool = True
    hip_clang_launch: bool = False
    max_file_size: int = 16 * 1024 * 1024

    def to_json(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


def _key(src: str, out: str, options: HipifyOptions, follow_external: bool) -> dict[str, Any]:
    key = {"tool": f"rocm-port {__version__}", "source_root": src, "output_root": out,
           "options": options.to_json(), "follow_external_symlinks": follow_external, **engine.fingerprint()}
    key["digest"] = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
    return key


def mp_context() -> multiprocessing.context.BaseContext:
    """fork (workers inherit what the parent loaded: hipify's module and tables) unless that is
    unsafe: other threads running, or torch loaded (its thread pools do not survive fork);
    then spawn. Also used by `port audit`."""
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1 \
            and "torch" not in sys.modules:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


class _Runner:
    """Runs worker tasks inline (jobs <= 1) or on one fork-started process pool for all stages."""

    def __init__(self, jobs: int, session: worker.Session) -> None:
        self.jobs, self.session = jobs, session
        self.pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> _Runner:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if self.pool is not None:  # interrupted or failing: the workers are killed, not awaited
            close_pool(self.pool, failed=exc_type is not None)

    def run(self, tasks: list[worker.Task]) -> list[worker.Result]:
        if self.jobs <= 1 or len(tasks) < 2:
            return [worker.run_task(t, self.session) for t in tasks]
        if self.pool is None:
            self.pool = new_pool(self.jobs, mp_context(), worker.init, (self.session,))
        chunk = max(1, min(16, len(tasks) // (self.jobs * 4)))
        return list(self.pool.map(worker.run_pooled, tasks, chunksize=chunk))


def _check_roots(src: Path, out: Path) -> tuple[str, str]:
    if not src.exists():
        raise InputError(f"{src}: source directory does not exist")
    if not src.is_dir():
        raise InputError(f"{src}: not a directory")
    s, o = os.path.abspath(src), os.path.abspath(out)
    rs, ro = os.path.realpath(s), os.path.realpath(o)
    if rs == ro or rs.startswith(ro + os.sep):
        raise UsageError(f"--out {out}: must not be the source directory or contain it (SRC is never modified)")
    if os.path.exists(o) and not os.path.isdir(o):
        raise UsageError(f"--out {out}: exists and is not a directory")
    return s, o


def convert_tree(src: str | os.PathLike[str], out: str | os.PathLike[str], *, jobs: int | None = None,
                 options: HipifyOptions | None = None, manifest_path: str | os.PathLike[str] | None = None,
                 progress: Callable[[str], None] | None = None, follow_external_symlinks: bool = False) -> Manifest:
    """Hipify the tree ``src`` into ``out``; see the package docstring."""
    options = options or HipifyOptions()
    src_root, out_root = _check_roots(Path(src), Path(out))
    try:
        os.makedirs(out_root, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot create the output directory: {exc.strerror or exc}") from None
    jobs = jobs or os.cpu_count() or 1
    mpath = Path(manifest_path) if manifest_path else Path(out_root) / MANIFEST_NAME
    real_m, real_s = os.path.realpath(mpath), os.path.realpath(src_root)
    if real_m.startswith(real_s + os.sep) and not real_m.startswith(os.path.realpath(out_root) + os.sep):
        raise UsageError(f"--manifest {manifest_path}: must not be inside the source directory (SRC is never modified)")
    key = _key(src_root, out_root, options, follow_external_symlinks)
    outdir = OutputDir(out_root)  # every write and delete in OUT goes through it
    old = Manifest.load(mpath)
    old_entries = old.by_source() if old is not None and old.key.get("digest") == key["digest"] else {}
    old_mtimes = {rel: e.mtime_ns for rel, e in old_entries.items()}
    say = progress or (lambda _msg: None)

    real_out = os.path.realpath(out_root)
    exclude = real_out if real_out.startswith(os.path.realpath(src_root) + os.sep) else None
    scan = scan_tree(src_root, exclude=None if exclude is None else os.path.join(
        src_root, os.path.relpath(exclude, os.path.realpath(src_root))), out_real=real_out,
        follow_external=follow_external_symlinks)
    say(f"scanned {len(scan.files)} files under {src_root}")
    good = [f for f in scan.files if f.problem is None]
    cand, all_files, ctx = _select(good, scan.dirs, src_root, out_root, options)
    session = worker.Session(ctx, options.hip_clang_launch)
    tasks, reuse = _plan(good, old_entries, outdir, cand, out_root, options)
    say(f"{len(tasks)} files to process, {len(reuse)} unchanged since the last run, jobs={jobs}")
    if not tasks and old is not None and {e.source for e in old.files} == {f.rel for f in scan.files} \
            and old.key.get("digest") == key["digest"] and all(e.status != "failed" for e in old.files):
        say("nothing to do")  # same files, same content, same options: the previous verdicts stand
        if any(reuse[f.rel].mtime_ns != old_mtimes.get(f.rel) for f in good):
            _write_manifest(mpath, old)
        return old
    deferred = _defer_copies(tasks, ctx, all_files)
    by_rel = {f.rel: f for f in good}
    with _Runner(jobs, session) as runner:
        results = _convert(runner, tasks, ctx, all_files, outdir, reuse, by_rel, options, say)
    _resolve_collisions(results, deferred, all_files, out_root, by_rel, session)
    manifest = Manifest(src_root, out_root, key)
    for f in scan.files:
        if f.problem is not None:
            manifest.files.append(FileEntry(f.rel, f.problem_status, f.problem))
        elif f.rel in results:
            manifest.files.append(_entry(results[f.rel], f, out_root, f.rel in cand))
        else:
            manifest.files.append(reuse[f.rel])
    _remove_stale(old, manifest, outdir)
    manifest.refused = outdir.to_json() + [r for res in results.values() for r in res.refused]
    manifest.summarize()
    _write_manifest(mpath, manifest)
    return manifest


def _oabs(out_root: str, rel: str) -> str:
    return os.path.join(out_root, rel) if rel else out_root


def _select(good: list[SourceFile], dirs: list[str], src_root: str, out_root: str,
            options: HipifyOptions) -> tuple[set[str], list[str], TreeContext]:
    """Which files hipify converts (plain hipify's selection: includes, ignores, extensions,
    header include dirs): their rel paths, their paths in OUT in its order, and the tree."""
    exact = frozenset(_oabs(out_root, i) for i in options.includes)
    includes = [i.replace(src_root, out_root) for i in options.includes]
    ignores = [i.replace(src_root, out_root) for i in options.ignores]
    cand = {f.rel for f in good
            if is_candidate(f.rel, _oabs(out_root, f.rel), includes, ignores, options.extensions, exact)}
    all_files = [_oabs(out_root, f.rel) for f in good if f.rel in cand]
    for inc in options.header_include_dirs:
        base = inc if os.path.isabs(inc) else _oabs(out_root, inc)
        extra = [f.rel for f in good if _oabs(out_root, f.rel).startswith(base.rstrip(os.sep) + os.sep)
                 and _oabs(out_root, f.rel).endswith(options.header_extensions)]
        all_files += [_oabs(out_root, rel) for rel in extra]
        cand.update(extra)
    tree_paths = [_oabs(out_root, d) for d in dirs] + [_oabs(out_root, f.rel) for f in good]
    ctx = TreeContext(out_root, all_files, tree_paths, options.header_include_dirs, options.is_pytorch_extension)
    return cand, all_files, ctx


def _plan(good: list[SourceFile], old_entries: dict[str, FileEntry], outdir: OutputDir, cand: set[str],
          out_root: str, options: HipifyOptions) -> tuple[list[worker.Task], dict[str, FileEntry]]:
    """Which files need work (new or changed sources, or missing outputs) and which earlier
    entries stand."""
    reuse: dict[str, FileEntry] = {}
    tasks: list[worker.Task] = []
    for f in good:
        prev = old_entries.get(f.rel)
        if prev is not None and prev.size == f.size and prev.status != "failed" and _outputs_present(prev, outdir) \
                and (prev.mtime_ns == f.mtime_ns or _same_content(f.path, prev.sha256)):
            prev.mtime_ns = f.mtime_ns  # touched but unchanged: keep the outputs, remember the new mtime
            reuse[f.rel] = prev
            continue
        tasks.append(worker.Task(f.rel, f.path, _oabs(out_root, f.rel), f.mode, True, f.rel in cand,
                                 options.max_file_size))
    return tasks, reuse


def _defer_copies(tasks: list[worker.Task], ctx: TreeContext, all_files: list[str]) -> dict[str, str]:
    """rel -> the copy path another file's hipified output may take: plain hipify copies first,
    then the hipified file overwrites it, so those copies wait for the conversions."""
    deferred: dict[str, str] = {}
    if any(t.candidate for t in tasks):
        engine.hipify_module()  # compile hipify's regexes once, before the workers fork
        claimed = {ctx.fout_path(fp): fp for fp in all_files}
        for t in tasks:
            if t.copy and claimed.get(t.fin, t.fin) != t.fin:
                t.copy = False
                deferred[t.rel] = t.fin
    return deferred


def _write_manifest(path: Path, manifest: Manifest) -> None:
    try:
        # one line, through json's C encoder: with indent= it encodes in Python, which cost a
        # cold run on NVIDIA's samples more than writing all the hipified files
        write_json(path, manifest.to_json(), indent=None)
    except OSError as exc:
        raise UsageError(f"--manifest {path}: cannot write the manifest: {exc.strerror or exc}") from None


def _convert(runner: _Runner, tasks: list[worker.Task], ctx: TreeContext, all_files: list[str], outdir: OutputDir,
             reuse: dict[str, FileEntry], by_rel: dict[str, SourceFile], options: HipifyOptions,
             say: Callable[[str], None]) -> dict[str, worker.Result]:
    # Headers first: their verdicts let the other files guess their include rewriting right.
    out_root = outdir.root
    first = [t for t in tasks if not t.candidate or t.rel.endswith(options.header_extensions)]
    second = [t for t in tasks if t.candidate and not t.rel.endswith(options.header_extensions)]
    results = {r.rel: r for r in runner.run(first)}
    if second:
        known = _recorded(ctx, all_files, out_root, results, reuse)
        for t in second:
            t.known = known
        results.update((r.rel, r) for r in runner.run(second))

    # Decide include rewriting for the whole tree, then redo files whose guess was wrong.
    for _round in range(4):
        decisions = walk(ctx, _facts(all_files, out_root, results, reuse))
        redo: list[worker.Task] = []
        for fp, d in decisions.items():
            rel = fp[len(out_root) + 1:] if fp.startswith(out_root + os.sep) else os.path.relpath(fp, out_root)
            if rel not in by_rel or d.hipified_path is None:
                continue
            if _agrees(d, results.get(rel), reuse.get(rel)):
                continue
            f = by_rel[rel]
            _drop_output(results.get(rel), reuse.get(rel), outdir)
            reuse.pop(rel, None)
            redo.append(worker.Task(rel, f.path, fp, f.mode, False, True, options.max_file_size, d.replacements))
        if not redo:
            break
        say(f"re-converting {len(redo)} files whose include rewriting depends on other files")
        for r in runner.run(redo):
            results[r.rel] = r

    return results


def _resolve_collisions(results: dict[str, worker.Result], deferred: dict[str, str], all_files: list[str],
                        out_root: str, by_rel: dict[str, SourceFile], session: worker.Session) -> None:
    """Two files, one output path: the hipified file beats a copy, and among hipified files
    the last in plain hipify's processing order wins, as in plain hipify's output tree."""
    order = {os.path.relpath(fp, out_root): i for i, fp in enumerate(all_files)}
    writers: dict[str, list[worker.Result]] = {}
    for res in results.values():
        if res.output is not None:
            writers.setdefault(res.output, []).append(res)
    for rs in writers.values():
        if len(rs) > 1:
            rs.sort(key=lambda r: order.get(r.rel, -1))
            winner = rs[-1]
            for loser in rs[:-1]:
                loser.status, loser.output, loser.output_size = "skipped", None, None
                loser.why = f"hipified name collides with the output of {winner.rel}, which wins (plain hipify's order)"
            f = by_rel[winner.rel]
            redo = worker.run_task(worker.Task(winner.rel, f.path, os.path.join(out_root, winner.rel), f.mode, False,
                                               True, 1 << 62, winner.replacements), session)
            results[winner.rel] = redo
    for rel, copy_path in deferred.items():
        owner = next((r for r in writers.get(copy_path, []) if r.status == "converted"), None)
        r = results.get(rel)
        if r is None:
            continue
        if owner is not None:
            r.status, r.why = "skipped", f"overwritten by the hipified output of {owner.rel} (as plain hipify does)"
            r.copy_overwritten = True
        else:
            try:
                worker.write_file(session, copy_path, Path(by_rel[rel].path).read_bytes(), by_rel[rel].mode)
            except OSError as exc:  # reported like the workers' copies, and the run finishes
                r.status, r.why = "failed", f"cannot copy: {exc.strerror or exc}"
            except PathRefused as exc:
                r.status, r.why = "failed", f"output refused: {exc.why}"
                r.refused.append({"path": os.path.relpath(copy_path, out_root), "why": exc.why})


def _facts(all_files: list[str], out_root: str, results: dict[str, worker.Result],
           reuse: dict[str, FileEntry]) -> dict[str, FileFacts | None]:
    facts: dict[str, FileFacts | None] = {}
    cut = len(out_root) + 1
    for fp in all_files:
        rel = fp[cut:]
        r = results.get(rel)
        if r is not None:
            facts[fp] = r.facts
        elif rel in reuse:
            facts[fp] = worker.facts_from_json(reuse[rel].facts)
    return facts


def _recorded(ctx: TreeContext, all_files: list[str], out_root: str, results: dict[str, worker.Result],
              reuse: dict[str, FileEntry]) -> dict[str, str | None]:
    """Recorded hipified paths of the files known so far (unknown files left out)."""
    facts = _facts(all_files, out_root, results, reuse)
    recorded: dict[str, str | None] = {}
    walk(TreeContext(ctx.out_root, [f for f in all_files if f in facts], ctx.tree_paths,
                     ctx.header_include_dirs, ctx.ext), facts, recorded)
    return {k: v for k, v in recorded.items() if k in facts}


def _agrees(d: Decision, res: worker.Result | None, prev: FileEntry | None) -> bool:
    """Was the file produced with the include rewriting the whole-tree walk decided?"""
    if res is not None:
        if res.status not in ("converted", "unchanged") or res.facts is None or res.facts.breadcrumb:
            return True  # skipped/failed/ignored files keep their state
        return res.replacements == d.replacements and res.changed == d.changed
    if prev is not None:
        old = {(int(a), int(b)): str(c) for a, b, c in (prev.replacements or [])}
        return old == d.replacements
    return False


def _same_content(path: str, sha256: str | None) -> bool:
    try:
        with open(path, "rb") as handle:
            return sha256 is not None and hashlib.sha256(handle.read()).hexdigest() == sha256
    except OSError:
        return False


def _outputs_present(entry: FileEntry, outdir: OutputDir) -> bool:
    for rel, size in ((entry.copy, None), (entry.output, entry.output_size)):
        if rel is None:
            continue
        st = outdir.lstat(rel)  # a regular file in OUT, reached without following a symlink
        if st is None or not stat.S_ISREG(st.st_mode) or (size is not None and st.st_size != size):
            return False
    return True


def _drop_output(res: worker.Result | None, prev: FileEntry | None, outdir: OutputDir) -> None:
    paths = [res.output] if res is not None and res.output else []
    if prev is not None and prev.output and prev.output != prev.copy:
        paths.append(prev.output)
    for p in paths:
        outdir.unlink(p)


def _entry(res: worker.Result, f: SourceFile, out_root: str, candidate: bool) -> FileEntry:
    out_rel = os.path.relpath(res.output, out_root) if res.output else None
    copy = f.rel if res.status != "failed" and not res.copy_overwritten else None
    return FileEntry(source=f.rel, status=res.status, why=res.why, output=out_rel or copy, copy=copy,
                     sha256=res.sha256, size=f.size, mtime_ns=f.mtime_ns, candidate=candidate,
                     non_utf8_bytes=res.non_utf8_bytes, facts=worker.facts_to_json(res.facts),
                     replacements=[[a, b, c] for (a, b), c in sorted(res.replacements.items())] or None,
                     output_size=res.output_size)


def _remove_stale(old: Manifest | None, new: Manifest, outdir: OutputDir) -> None:
    """Delete outputs of the previous run that this run did not produce (deleted sources,
    renamed outputs after an option change). Only paths recorded in the old manifest, and only
    inside OUT: the manifest is a file anyone may have edited, so ``outdir`` refuses (and
    records) absolute paths, '..' and symlinked directories."""
    if old is None or not isinstance(old.output_root, str) or os.path.abspath(old.output_root) != outdir.root:
        return
    keep = {p for e in new.files for p in (e.output, e.copy) if p}
    for e in old.files:
        for p in (e.output, e.copy) if e.output != e.copy else (e.output,):
            if p and p not in keep:
                outdir.unlink(p)
