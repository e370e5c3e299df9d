"""`port build`: build ``native/`` for one path into ``<build_dir>/<path>/``.

    from porting.builder import build
    record = build("cpu", build_dir="build/port")   # BuildRecord; record.ok, record.library

Incremental (content-hash stamps), parallel (``jobs``), serialised per path by a file lock
(safe under pytest-xdist), and always leaves ``<build_dir>/<path>/build-record.json``.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from .. import assets, process_group
from ..atomic import write_bytes, write_json
from ..errors import UsageError
from ..paths import OutputDir
from ..registry import build_path
from ..registry import toolchain as toolchain_spec
from .backends import BACKENDS, Backend, BuildContext, find_compiler
from .record import RECORD_NAME, BuildRecord, Step
from .sources import header_files
from .steps import StepFailed, run_commands

if TYPE_CHECKING:
    from ..plan import Toolchain

PATHS = tuple(BACKENDS)

__all__ = ["build", "BuildRecord", "Step", "BACKENDS", "PATHS", "RECORD_NAME", "record_path", "read_record"]


def record_path(path: str, build_dir: str | os.PathLike[str]) -> Path:
    return Path(build_dir) / path / RECORD_NAME


def read_record(path: str, build_dir: str | os.PathLike[str]) -> BuildRecord | None:
    import json

    file = record_path(path, build_dir)
    try:
        return BuildRecord.from_json(json.loads(file.read_text()), str(file))
    except (FileNotFoundError, ValueError, RecursionError):
        return None


@contextmanager
def _locked(build_dir: OutputDir, path: str) -> Iterator[None]:
    """Hold ``<build_dir>/<path>/.lock``, reached without following a symlink (a symlinked path
    directory is refused, and a symlink named .lock is never opened: it would be truncated)."""
    dir_fd, name = build_dir.dir_fd(f"{path}/.lock")
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=dir_fd)
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror, os.path.join(build_dir.root, path, name)) from None
    finally:
        os.close(dir_fd)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _version(compiler: str) -> str | None:
    try:
        proc = process_group.run([compiler, "--version"], timeout=60, env=dict(os.environ, HIP_PLATFORM="amd"))
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = [ln.strip() for ln in (proc.stdout or "").splitlines() if ln.strip()]
    release = next((ln for ln in lines if "release" in ln or "HIP version" in ln), None)
    return release or (lines[0] if lines else None)


def _toolchain_here(path: str) -> Toolchain:
    """The toolchain the plan picks for ``path`` on this machine (what `port detect` lists)."""
    from ..config import load_config
    from ..plan import make_plan
    from ..probe import probe_machine

    return make_plan(probe_machine("/", os.environ), load_config(env=os.environ)).toolchain(path)


def _context(path: str, src: Path, out_dir: Path, found: str, tc: Toolchain | None, archs: list[str],
             jobs: int) -> BuildContext:
    sdk = None
    if tc is not None and tc.toolchain == "rocm7-sdk":
        from ..probe.rocm_sdk import probe_rocm_sdk

        sdk = probe_rocm_sdk(Path("/"), os.environ)
    return BuildContext(path=path, source_dir=src.resolve(), out_dir=out_dir, compiler=found, gpu_archs=archs,
                        alias_include=assets.aliases_include(), jobs=jobs,
                        headers=header_files(src.resolve(), assets.aliases_include()),
                        toolchain=tc.toolchain if tc is not None else "", sdk=sdk)


def build(path: str, build_dir: str | os.PathLike[str] = "build/port", *, jobs: int = 0,
          gpu_archs: list[str] | None = None, compiler: str | None = None,
          compiler_version: str | None = None, source_dir: str | os.PathLike[str] | None = None,
          toolchain: Toolchain | None = None) -> BuildRecord:
    """Build ``native/`` for ``path``; returns the record (also written next to the library).

    GPU paths compile with ``toolchain`` (the plan's record for the path; default: what the
    plan picks here), e.g. the compile-only ROCm 7 SDK toolchain for the ROCm paths."""
    if path not in BACKENDS:
        raise UsageError(f"--path: unknown build path {path!r} (expected one of {', '.join(BACKENDS)})")
    backend: Backend = BACKENDS[path]
    src = Path(source_dir) if source_dir is not None else assets.native_dir()
    if not (src / "include" / "port_native.h").is_file():
        raise UsageError(f"{src}: not a native/ source tree (no include/port_native.h)")
    spec = build_path(path)
    tc = toolchain if toolchain is not None or spec.backend != "hip" else _toolchain_here(path)
    outputs = OutputDir(build_dir)
    out_dir = Path(outputs.path(f"{path}/{RECORD_NAME}")).parent.resolve()  # refuses a symlinked <path>
    started = time.monotonic()
    with _locked(outputs, path):
        found = find_compiler(backend, compiler or (tc.compiler if tc is not None else None))
        record = BuildRecord(path=path, ok=False, compiler=found, compiler_version=compiler_version,
                             gpu_archs=[], source_dir=str(src.resolve()), build_dir=str(out_dir), library=None,
                             toolchain=tc.toolchain if tc is not None else None,
                             headers=tc.headers if tc is not None else None,
                             runnable=not (tc is not None and toolchain_spec(tc.toolchain).compile_only))
        if tc is not None and spec.backend == "hip" and not tc.can_compile:
            record.error = f"no toolchain can compile {path} here: {tc.reason}"
            return _finish(record, out_dir, started)
        if found is None:
            record.error = f"no compiler for path {path} (looked for {', '.join(backend.compiler_names)} on PATH)"
            return _finish(record, out_dir, started)
        if record.compiler_version is None or record.toolchain == "rocm7-sdk":  # its version is the SDK's
            record.compiler_version = _version(found)
        ctx = _context(path, src, out_dir, found, tc, list(gpu_archs or []), jobs)
        ctx.gpu_archs = backend.archs(ctx)
        record.gpu_archs = list(ctx.gpu_archs)
        return _run(backend, ctx, record, out_dir, started)


def _run(backend: Backend, ctx: BuildContext, record: BuildRecord, out_dir: Path, started: float) -> BuildRecord:
    try:
        compiles, link = backend.commands(ctx)
    except Exception as exc:  # the hipify/generation step: a failure is a build failure, not a crash
        record.steps, record.notes = ctx.pre_steps, ctx.notes
        record.error = f"preparing {ctx.source_dir} failed: {type(exc).__name__}: {exc}"
        return _finish(record, out_dir, started)
    record.steps, record.notes = list(ctx.pre_steps), ctx.notes
    try:
        record.steps += run_commands(compiles, ctx.jobs)
        record.steps += run_commands([link], 1)
    except StepFailed as failed:
        record.steps += getattr(failed, "steps", [failed.step])
        record.error = (f"{failed.step.kind} of {failed.step.source} failed (exit {failed.step.returncode}): "
                        f"{' '.join(failed.step.command)}")
        record.error_output = failed.output
        return _finish(record, out_dir, started)
    record.ok = True
    record.library = str(ctx.library.relative_to(out_dir))
    if build_path(ctx.path).backend == "hip":
        record.code_objects = _code_objects(ctx.library, out_dir, record.notes)
    return _finish(record, out_dir, started)


def _code_objects(library: Path, out_dir: Path, notes: list[str]) -> list[dict]:
    """Extract each arch's code object from the library's offload bundle into code-objects/."""
    from ..errors import InputError
    from .codeobj import library_code_objects

    try:
        found = library_code_objects(library.read_bytes(), str(library))
    except InputError as exc:
        notes.append(f"code objects not listed: {exc}")
        return []
    out = []
    for co, image in found:
        target = out_dir / "code-objects" / f"{co.arch}.co"
        write_bytes(target, image)
        co.file = str(target.relative_to(out_dir))
        out.append(co.to_json())
    return out


def _finish(record: BuildRecord, out_dir: Path, started: float) -> BuildRecord:
    record.seconds = time.monotonic() - started
    write_json(out_dir / RECORD_NAME, record.to_json())
    return record
