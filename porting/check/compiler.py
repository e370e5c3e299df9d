"""Compile one hipified unit for one arch with the best ROCm 7 toolchain present, and cache it.

The toolchain comes from ``port detect``'s plan (``Plan.toolchain("hipified-cuda")``): a real
ROCm >= the gate wins (hipcc), else the compile-only one (versioned clang++ with the ROCm 7
SDK headers, ``-nogpuinc -nogpulib``; Debian's /usr/include/hip is never on the path).
``-H`` lists every header the compile opened, so the cache key of a unit is its argv, the
toolchain id, the hashes of the source and every header it read, and the paths searched for
every header it did not find (``cache``): editing one header recompiles exactly the units
that include it, creating a missing one recompiles the units that looked for it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .. import process_group
from ..errors import ToolError, UsageError
from .cache import Cache, failed_lookups, lookups_still_missing
from .diagnostics import has_located_error

COMPILE_TIMEOUT_S = 900
_HEADER_LINE = re.compile(r"^\.+ (\S.*)$")


@dataclass
class Toolchain:
    kind: str  # "rocm" (a real ROCm install) | "rocm7-sdk" (clang + SDK headers, compile-only)
    compiler: str
    version: str  # the HIP/ROCm version of the headers
    base: list[str]  # flags every unit gets (language, SDK include path)
    ident: str  # what invalidates the cache: compiler --version, header origin
    headers: str = ""
    env: dict[str, str] = field(default_factory=dict)  # added to the compiler's environment

    def describe(self) -> str:
        return f"{os.path.basename(self.compiler)} ({self.kind}) against ROCm {self.version} headers {self.headers}"


def select_toolchain(plan, machine, guard: Path) -> Toolchain | None:
    """The ``hipified-cuda`` toolchain of the plan, with the flags it needs; None if none compiles.
    ``guard``: where the compile-only SDK's guard headers go (inside the output directory)."""
    from ..builder.hip_toolchains import sdk_includes  # the flags `port build` uses for the same toolchain

    tc = plan.toolchain("hipified-cuda")
    if not tc.can_compile or not tc.compiler:
        return None
    version = _version_text(tc.compiler)
    if tc.toolchain == "rocm7-sdk":
        sdk = machine.rocm_sdk
        try:
            includes = sdk_includes(tc.compiler, Path(sdk.include_dir), guard)
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            raise ToolError(f"{tc.compiler}: cannot set up the ROCm 7 SDK include path: {exc}") from None
        base = ["-x", "hip", "-nogpuinc", "-nogpulib", *includes]
        ident = json.dumps([version, sdk.hip_version, sdk.source, base])
    else:
        base, ident = ["-x", "hip"], json.dumps([version, tc.version])
    env = {} if tc.toolchain == "rocm7-sdk" else {"HIP_PLATFORM": "amd"}  # else hipcc may pick nvcc
    return Toolchain(tc.toolchain, tc.compiler, tc.version or "?", base, ident, tc.headers or "", env)


def check_archs(tool: Toolchain, archs: list[str]) -> None:
    """Refuse an arch the compiler does not support, before anything is compiled: clang exits
    1 on ``unsupported HIP gpu architecture`` with no file location, which is no verdict on the
    code. One empty HIP compile per arch asks the compiler itself (no table of our own)."""
    for arch in archs:
        argv = [tool.compiler, *tool.base, f"--offload-arch={arch}", "-fsyntax-only", os.devnull]
        try:
            proc = process_group.run(argv, timeout=120, env={**os.environ, **tool.env})
        except (OSError, subprocess.SubprocessError) as exc:
            raise ToolError(f"{tool.compiler}: cannot run to validate --arch {arch}: {exc}") from None
        if proc.returncode != 0:
            why = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
            raise UsageError(f"--arch {arch}: {os.path.basename(tool.compiler)} does not support it ({why})")


def _version_text(compiler: str) -> str:
    try:
        return process_group.run([compiler, "--version"], timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return compiler


@dataclass
class CompileJob:
    unit: str  # source relative to SRC
    arch: str
    source: str  # the hipified file compiled
    argv: list[str]
    cache_name: str  # the entry's file name in the cache

    def key_seed(self, tool: Toolchain) -> str:
        return json.dumps([tool.ident, self.argv])


@dataclass
class CompileResult:
    returncode: int
    stderr: str
    headers: list[str] = field(default_factory=list)
    cached: bool = False
    seconds: float = 0.0


def argv_for(tool: Toolchain, arch: str, source: str, defines: list[str], includes: list[str],
             std: str | None, codegen: bool) -> list[str]:
    mode = ["--cuda-device-only", "-S", "-o", os.devnull] if codegen else ["-fsyntax-only"]
    return [tool.compiler, *tool.base, f"--offload-arch={arch}", f"-std={std or 'c++17'}",
            *[f"-D{d}" for d in defines], *[f"-I{i}" for i in includes],
            "-H", "-fno-color-diagnostics", "-fno-caret-diagnostics", "-ferror-limit=100", *mode, source]


class HashMemo:
    """sha256 of files, each read once per run (the SDK's headers are shared by every unit)."""

    def __init__(self) -> None:
        self._seen: dict[str, str | None] = {}

    def __call__(self, path: str) -> str | None:
        if path not in self._seen:
            try:
                with open(path, "rb") as fh:
                    self._seen[path] = hashlib.sha256(fh.read()).hexdigest()
            except OSError:
                self._seen[path] = None
        return self._seen[path]


def cached(job: CompileJob, tool: Toolchain, memo: HashMemo, cache: Cache) -> CompileResult | None:
    """The stored result when its MAC is ours and argv, toolchain, every file the compile read
    and every header it failed to find are unchanged."""
    entry = cache.load(job.cache_name)
    if entry is None:
        return None
    try:
        if entry["seed"] != job.key_seed(tool) or memo(job.source) != entry["source_sha"]:
            return None
        if any(memo(path) != sha for path, sha in entry["deps"]) or not lookups_still_missing(entry["lookups"]):
            return None
        return CompileResult(entry["returncode"], entry["stderr"], [p for p, _ in entry["deps"]], cached=True)
    except (ValueError, KeyError, TypeError):
        return None


def compile_job(job: CompileJob, tool: Toolchain, memo: HashMemo, cache: Cache) -> CompileResult:
    hit = cached(job, tool, memo, cache)
    if hit is not None:
        return hit
    import time

    started = time.monotonic()
    try:
        proc = process_group.run(job.argv, timeout=COMPILE_TIMEOUT_S, env={**os.environ, **tool.env})
        rc, err = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired:  # no file location: a tool-error, never the code's verdict
        rc, err = 124, f"error: compiler timed out after {COMPILE_TIMEOUT_S}s"
    except OSError as exc:
        rc, err = 127, f"error: cannot run {job.argv[0]}: {exc.strerror or exc}"
    headers, diag = _split_headers(err)
    result = CompileResult(rc, diag, headers, seconds=time.monotonic() - started)
    if rc == 0 or (rc == 1 and has_located_error(diag)):  # a verdict on the code; a refusal is not
        fresh = HashMemo()  # hash what the compiler read now, not what an earlier unit saw
        cache.store(job.cache_name, {
            "seed": job.key_seed(tool), "argv": job.argv, "source_sha": fresh(job.source), "returncode": rc,
            "stderr": diag, "deps": [[p, fresh(p)] for p in headers], "lookups": failed_lookups(diag, job.argv)})
    return result


def _split_headers(stderr: str) -> tuple[list[str], str]:
    headers: dict[str, None] = {}
    rest = []
    for line in stderr.splitlines():
        m = _HEADER_LINE.match(line)
        if m:
            headers[os.path.abspath(m.group(1))] = None
        elif not line.startswith("Multiple include guards may be useful for:"):
            rest.append(line)
    # after "Multiple include guards..." clang lists bare paths; drop lines that are existing files
    diag = [ln for ln in rest if not (ln and not ln.startswith(" ") and ":" not in ln and os.path.isfile(ln))]
    return list(headers), "\n".join(diag)
