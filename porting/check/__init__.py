"""`port check`: how far a CUDA tree is from building for gfx942/gfx950 on ROCm 7.

Composes the stages: units (compile_commands.json or the tree) -> `port hipify` out of tree
-> `port audit` -> every unit compiled per arch with the plan's ROCm toolchain
(``compiler``) -> diagnostics classified and mapped to the CUDA lines (``diagnostics``) ->
one ranked worklist (``worklist``) written as text, JSON, SARIF and HTML. Nothing runs on a
GPU: the verdicts are "syntax-checked" (default) or "compiled to device code" (``codegen``).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, PlatformError, UsageError
from ..hipify.convert import HipifyOptions, convert_tree
from ..paths import OutputDir
from . import compiler as cc
from . import diagnostics as dg
from .cache import Cache, load_key
from .units import Unit, from_compile_commands, from_tree, tree_files

DEFAULT_ARCHS = ("gfx942", "gfx950")


@dataclass
class CheckRequest:
    src: Path
    out: Path
    archs: list[str]
    compile_commands: Path | None = None
    defines: list[str] = field(default_factory=list)
    includes: list[str] = field(default_factory=list)
    codegen: bool = False
    jobs: int = 1
    cache_dir: Path | None = None  # None: no cache (every unit compiled)
    key_file: Path | None = None  # the per-user HMAC key of the cache entries


@dataclass
class UnitResult:
    unit: Unit
    hip_source: str  # relative to the hipified tree
    verdict: str  # one of diagnostics.CLASSES
    per_arch: dict[str, str]
    diagnostics: list[dg.Diagnostic]
    missing_headers: list[str]
    cached: int  # how many of its arch compiles came from the cache
    system_packages: list[str] = field(default_factory=list)  # "omp.h: OpenMP ... (Debian: libomp-dev ...)"

    def to_json(self) -> dict:
        return {"source": self.unit.source, "hip_source": self.hip_source, "class": self.verdict,
                "per_arch": self.per_arch, "missing_rocm_headers": self.missing_headers,
                "system_packages": self.system_packages,
                "defines": self.unit.defines, "std": self.unit.std, "cached_compiles": self.cached,
                "diagnostics": [d.to_json() for d in self.diagnostics]}


@dataclass
class CheckResult:
    src: str
    out: str
    toolchain: cc.Toolchain
    archs: list[str]
    mode: str  # "syntax-only" | "codegen"
    units: list[UnitResult]
    findings: list  # audit Finding, paths relative to SRC
    notes: list[str]
    compiled: int  # compiler runs this time (the rest came from the cache)


def run_check(req: CheckRequest, plan, machine) -> CheckResult:
    src = req.src.resolve()
    if not src.is_dir():
        raise InputError(f"SRC {req.src}: not a directory")
    if os.path.realpath(req.out) == str(src):
        raise UsageError(f"--out {req.out}: is SRC itself; give a directory of its own (default: port-check)")
    units, notes = _units(req, src)
    if not units:
        raise InputError(f"SRC {req.src}: no CUDA translation units found (.cu, or C++ including a CUDA header)")
    out_dir = OutputDir(req.out)  # OUT's stage dirs are real directories: a symlink there would carry writes out
    tool = cc.select_toolchain(plan, machine, Path(out_dir.subdir("rocm7-guard", create=False)))
    if tool is None:
        raise PlatformError("no ROCm toolchain can compile here: " + plan.toolchain("hipified-cuda").reason)
    cc.check_archs(tool, req.archs)
    hip_root = Path(out_dir.subdir("hipified"))
    options = _hipify_options(src, units)
    manifest = convert_tree(src, hip_root, jobs=req.jobs, options=options)
    findings = _audit(src, req.out, req.jobs)
    jobs, skipped = _jobs(req, src, hip_root.resolve(), manifest, units, tool)
    notes += skipped
    memo = cc.HashMemo()
    cache = _cache(req)
    with ThreadPoolExecutor(max_workers=max(req.jobs, 1)) as pool:
        results = list(pool.map(lambda j: cc.compile_job(j, tool, memo, cache), jobs))
    mapper = _Mapper(src, hip_root.resolve(), manifest)
    by_unit: dict[str, list[tuple[cc.CompileJob, cc.CompileResult]]] = {}
    for job, res in zip(jobs, results):
        by_unit.setdefault(job.unit, []).append((job, res))
    out_units = [_unit_result(u, by_unit[u.source], mapper) for u in units if u.source in by_unit]
    return CheckResult(str(src), str(req.out), tool, list(req.archs), "codegen" if req.codegen else "syntax-only",
                       out_units, findings, notes, sum(1 for r in results if not r.cached))


def _cache(req: CheckRequest) -> Cache:
    if req.cache_dir is None or req.key_file is None:
        return Cache(Path(os.devnull), b"")  # nothing stored or read: every load misses
    return Cache(req.cache_dir, load_key(req.key_file))


def _units(req: CheckRequest, src: Path) -> tuple[list[Unit], list[str]]:
    if req.compile_commands is not None:
        units, notes = from_compile_commands(req.compile_commands, src)
    else:
        units, notes = from_tree(src, req.out), []
    for u in units:  # the user's -D/-I apply to every unit, after the database's own
        u.defines += req.defines
        u.includes += [os.path.abspath(i) for i in req.includes]
    return units, notes


def _hipify_options(src: Path, units: list[Unit]) -> HipifyOptions:
    """hipify as the build would drive it: the units' include dirs in SRC are where it looks
    for the headers a source includes (else a header reached only through -I stays CUDA)."""
    dirs = {os.path.relpath(i, src) for u in units for i in u.includes if dg.is_within(i, str(src))}
    return HipifyOptions(header_include_dirs=tuple(sorted(dirs)))


def _audit(src: Path, out: Path, jobs: int) -> list:
    from ..audit.scan import audit_paths
    from ..audit.tokenize import language_for

    files = [f for f in tree_files(src, out) if language_for(f) is not None]
    if not files:
        return []
    result = audit_paths(files, jobs=jobs or None)
    for f in result.findings:
        f.path = os.path.relpath(os.path.abspath(f.path), src)
    return result.findings


def _hip_dirs(src: Path, hip_root: Path, inc: str) -> list[str]:
    """A -I dir of the CUDA tree -> its hipified dir (hipify renames 'cuda' dirs) and its copy."""
    from ..hipify.engine import hip_rel_path

    if not dg.is_within(inc, str(src)) and inc != str(src):
        # a CUDA toolkit's include dir must not shadow ROCm's headers
        return [] if os.path.isfile(os.path.join(inc, "cuda_runtime.h")) else [inc]
    rel = os.path.relpath(inc, src)
    hip_rel = os.path.dirname(hip_rel_path(os.path.join(rel, "x.h"), HipifyOptions.is_pytorch_extension)) \
        if rel != "." else "."
    dirs = [os.path.normpath(hip_root / hip_rel), os.path.normpath(hip_root / rel)]
    return list(dict.fromkeys(dirs))


def _jobs(req: CheckRequest, src: Path, hip_root: Path, manifest, units: list[Unit],
          tool: cc.Toolchain) -> tuple[list[cc.CompileJob], list[str]]:
    entries = manifest.by_source()
    jobs, notes = [], []
    for u in units:
        e = entries.get(u.source)
        if e is None or e.status not in ("converted", "unchanged") or not (e.output or e.copy):
            notes.append(f"{u.source}: hipify produced no output ({e.why if e else 'not in the tree'}), not compiled")
            continue
        hip_src = str(hip_root / (e.output or e.copy))
        incs = [d for inc in u.includes for d in _hip_dirs(src, hip_root, inc)]
        for arch in req.archs:
            argv = cc.argv_for(tool, arch, hip_src, u.defines, incs, u.std, req.codegen)
            # the cache is per user, shared by every tree: the entry is named by the tree, unit and arch
            name = Cache.entry_name(str(src), str(req.out.resolve()), u.source, arch)
            jobs.append(cc.CompileJob(u.source, arch, hip_src, argv, name))
    return jobs, notes


class _Mapper:
    """Compiler locations in the hipified tree -> the CUDA file and line (manifest + line map)."""

    def __init__(self, src: Path, hip_root: Path, manifest) -> None:
        self.src, self.hip_root = src, hip_root
        self.source_of: dict[str, str] = {}
        for e in manifest.files:
            for p in (e.copy, e.output):  # the hipified output wins over the plain copy
                if p:
                    self.source_of[p] = e.source
        self._maps: dict[str, tuple[dg.LineMap, list[str], list[str]]] = {}

    def locate(self, path: str, line: int) -> tuple[str, int, str, list[dict[str, str]]] | None:
        """(CUDA file rel SRC, CUDA line, hipified file rel OUT, renamed names) or None if outside."""
        if not dg.is_within(path, str(self.hip_root)):
            return None
        rel = os.path.relpath(os.path.abspath(path), self.hip_root)
        source = self.source_of.get(rel)
        if source is None:
            return None
        if rel not in self._maps:
            cuda_lines = _lines(self.src / source)
            hip_lines = _lines(self.hip_root / rel)
            self._maps[rel] = (dg.LineMap(cuda_lines, hip_lines), cuda_lines, hip_lines)
        lmap, cuda_lines, hip_lines = self._maps[rel]
        cline = lmap.cuda_line(line)
        names = dg.renamed(_at(cuda_lines, cline), _at(hip_lines, line))
        return source, cline, rel, names


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def _at(lines: list[str], n: int) -> str:
    return lines[n - 1] if 0 < n <= len(lines) else ""


def _place(d: dict, notes: list[dict], chain: list[tuple[str, int]], mapper: _Mapper):
    """Where a diagnostic belongs in the user's code: its own spot, else the first note there
    (a static_assert in a ROCm header, instantiated from the user's line), else the include.
    Returns (CUDA file, CUDA line, col, hipified file, hipified line, names) or None."""
    spots = [(d["file"], d["line"], d["col"]), *[(n["file"], n["line"], n["col"]) for n in notes],
             *[(path, line, 1) for path, line in reversed(chain)]]  # clang prints the outermost first
    for path, line, col in spots:
        hit = mapper.locate(path, line)
        if hit is not None:
            source, cline, hip_rel, names = hit
            return source, cline, col, hip_rel, line, names
    return None


def _arch_diagnostics(unit: Unit, job: cc.CompileJob, res: cc.CompileResult, mapper: _Mapper,
                      merged: dict[tuple, dg.Diagnostic]) -> list[dg.Diagnostic]:
    """One compile's diagnostics, in the compiler's order, merged with the other arches' by place."""
    found: list[dg.Diagnostic] = []
    missing_seen = False
    for d, notes, chain in dg.parse(res.stderr):
        kind, header = dg.kind_of(d["sev"], d["msg"], d["flag"])
        placed = _place(d, notes, chain, mapper)
        if placed is None and kind == "warning":
            continue  # a warning inside ROCm's own headers is not the user's work
        file, line, col, hip_file, hip_line, names = placed or (d["file"], d["line"], d["col"], "", 0, [])
        sev = "warning" if d["sev"] == "warning" else "error"
        key = (file, line, col, sev, d["msg"])
        if key not in merged:
            merged[key] = dg.Diagnostic(sev, kind, d["msg"], file, line, col, [], d["flag"] or "", header,
                                        hip_file, hip_line, names, missing_seen and kind not in dg.MISSING_KINDS,
                                        _package(kind, header))
            if kind in dg.USER_KINDS:
                merged[key].hints = dg.declaration_hints(notes, lambda f: not dg.is_within(f, str(mapper.hip_root)))
        missing_seen = missing_seen or kind in dg.MISSING_KINDS
        if job.arch not in merged[key].archs:  # clang reports a line for the host and again per device pass
            merged[key].archs.append(job.arch)
        found.append(merged[key])
    if res.returncode != 0 and not any(x.severity == "error" for x in found):
        # the compiler refused to run or died (a driver error has no file location): no verdict on the code
        last = (res.stderr.strip().splitlines() or ["no output"])[-1]
        crash = merged[("tool-error", job.arch)] = dg.Diagnostic(
            "error", "tool-error", f"compiler exited {res.returncode}: {last}", unit.source, 0, 0, [job.arch])
        found.append(crash)
    return found


def _package(kind: str, header: str) -> str:
    if kind != "missing-system-header":
        return ""
    from .system_headers import system_package

    pkg = system_package(header)
    return pkg.describe(header) if pkg else ""


def _unit_result(unit: Unit, runs: list[tuple[cc.CompileJob, cc.CompileResult]], mapper: _Mapper) -> UnitResult:
    merged: dict[tuple, dg.Diagnostic] = {}
    per_arch = {job.arch: dg.classify(_arch_diagnostics(unit, job, res, mapper, merged)) for job, res in runs}
    verdict = min(per_arch.values(), key=dg.CLASSES.index)
    diags = sorted(merged.values(), key=lambda x: (x.file, x.line, x.col))
    missing = sorted({x.header for x in diags if x.kind == "missing-rocm-header"})
    packages = sorted({x.package for x in diags if x.kind == "missing-system-header"})
    return UnitResult(unit, os.path.relpath(runs[0][0].source, mapper.hip_root), verdict, per_arch, diags, missing,
                      sum(r.cached for _, r in runs), packages)
