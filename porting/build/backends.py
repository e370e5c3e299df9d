"""One build backend per path, behind a small Protocol; ``BACKENDS`` maps path -> backend.

Each backend turns a ``BuildContext`` into compile commands (one per translation unit) and
one link command. ``porting.build.build`` runs them incrementally and writes the record.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from .. import process_group
from .convert import convert_tree, converted_include_dirs, converted_path
from .record import Step
from .sources import LIBRARY_NAME, Unit, header_files, units_for
from .steps import Command

COMMON_FLAGS = ["-O3", "-std=c++17", "-DNDEBUG"]
HOST_FLAGS = ["-fPIC", "-fvisibility=hidden", "-Wall", "-Wextra"]
HIP_ENV = {"HIP_PLATFORM": "amd"}  # hipcc would otherwise pick nvcc when CUDA is installed
DEFAULT_HIP_ARCHS = ("gfx942", "gfx950")  # ROCm 7 targets; filtered by what the compiler accepts
FALLBACK_HIP_ARCH = "gfx90a"  # accepted by ROCm 5.x compilers, for compile checks
DEFAULT_CUDA_ARCHS = ("sm_90",)


@dataclass
class BuildContext:
    path: str
    source_dir: Path  # native/
    out_dir: Path  # <build_dir>/<path>
    compiler: str
    gpu_archs: list[str]
    alias_include: Path
    jobs: int
    headers: list[Path]
    notes: list[str] = field(default_factory=list)
    pre_steps: list[Step] = field(default_factory=list)

    def obj(self, unit: Unit) -> Path:
        return self.out_dir / "obj" / (Path(unit.source).name + ".o")

    @property
    def library(self) -> Path:
        return self.out_dir / "lib" / LIBRARY_NAME


class Backend(Protocol):
    path: str

    @property
    def compiler_names(self) -> tuple[str, ...]: ...

    def archs(self, ctx: BuildContext) -> list[str]: ...

    def commands(self, ctx: BuildContext) -> tuple[list[Command], Command]: ...


def _defines(ctx: BuildContext) -> list[str]:
    return [f'-DPN_BUILD_PATH="{ctx.path}"']


def _includes(ctx: BuildContext, extra: list[Path] | None = None) -> list[str]:
    dirs = list(extra or []) + [ctx.source_dir / "include", ctx.alias_include]
    return [f"-I{d}" for d in dirs]


def _compile(ctx: BuildContext, unit: Unit, argv: list[str], source: Path,
             env: dict[str, str] | None = None) -> Command:
    return Command("compile", unit.source, ctx.obj(unit), argv, [source] + ctx.headers, dict(env or {}))


def _link(ctx: BuildContext, argv_head: list[str], objs: list[Path], tail: list[str],
          env: dict[str, str] | None = None) -> Command:
    out = ctx.library
    argv = argv_head + ["-o", str(out)] + [str(o) for o in objs] + tail
    stamps = [o.with_name(o.name + ".stamp") for o in objs]  # object keys stand for the objects
    return Command("link", "objects", out, argv, stamps, dict(env or {}))


def _accepts(argv: list[str], env: dict[str, str] | None = None) -> bool:
    try:
        proc = process_group.run(argv, env=env, timeout=120, text=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _host_compiler() -> str:
    return shutil.which("c++") or shutil.which("g++") or shutil.which("clang++") or "c++"


def _host_unit(ctx: BuildContext, unit: Unit, compiler: str | None = None) -> Command:
    """Plain C++ units (no GPU code, no GPU headers) build with the host compiler on every path."""
    src = ctx.source_dir / unit.source
    return _compile(ctx, unit, [compiler or _host_compiler(), *COMMON_FLAGS, *HOST_FLAGS, *_defines(ctx),
                                *_includes(ctx), "-c", str(src), "-o", str(ctx.obj(unit))], src)


class CpuBackend:
    path = "cpu"
    compiler_names = ("c++", "g++", "clang++")

    def archs(self, ctx: BuildContext) -> list[str]:
        return []

    def commands(self, ctx: BuildContext) -> tuple[list[Command], Command]:
        units = units_for(self.path)
        cmds = [_host_unit(ctx, u, ctx.compiler) for u in units]
        link = _link(ctx, [ctx.compiler, "-shared"], [ctx.obj(u) for u in units], ["-lpthread", "-lrt"])
        return cmds, link


class CudaBackend:
    """nvcc for the GPU units (host compiler for plain C++ units); the CUDA runtime is linked
    statically and loads libcuda lazily (dlopen), so the library builds and loads on a machine
    without a driver."""

    path = "cuda"
    compiler_names = ("nvcc",)

    def archs(self, ctx: BuildContext) -> list[str]:
        wanted = [a if a.startswith("sm_") else f"sm_{a}" for a in ctx.gpu_archs] or list(DEFAULT_CUDA_ARCHS)
        try:
            proc = process_group.run([ctx.compiler, "--list-gpu-code"], timeout=60)
            known = set(proc.stdout.split()) if proc.returncode == 0 else set()
        except (OSError, subprocess.TimeoutExpired):
            known = set()
        if not known:
            return wanted
        accepted = [a for a in wanted if a in known]
        for arch in wanted:
            if arch not in known:
                ctx.notes.append(f"{ctx.compiler} cannot generate code for {arch} (it knows {' '.join(sorted(known))})")
        if accepted:
            return accepted
        fallback = min(known, key=lambda a: int("".join(ch for ch in a if ch.isdigit()) or 0))  # the oldest
        ctx.notes.append(f"building for {fallback} to check the code compiles")
        return [fallback]

    def commands(self, ctx: BuildContext) -> tuple[list[Command], Command]:
        units = units_for(self.path)
        gencode = [f"-gencode=arch=compute_{a[3:]},code={a}" for a in ctx.gpu_archs]
        host = ["-Xcompiler", "-fPIC,-fvisibility=hidden,-Wall"]
        cmds = []
        for u in units:
            if u.kind == "host":
                cmds.append(_host_unit(ctx, u))
                continue
            lang = ["-x", "cu"]
            cmds.append(_compile(ctx, u, [ctx.compiler, *COMMON_FLAGS, *host, *gencode, *_defines(ctx),
                                          *_includes(ctx), *lang, "-c", str(ctx.source_dir / u.source),
                                          "-o", str(ctx.obj(u))], ctx.source_dir / u.source))
        link = _link(ctx, [ctx.compiler, "-shared", *gencode, "-cudart", "static"], [ctx.obj(u) for u in units],
                     ["-lpthread", "-lrt", "-ldl"])
        return cmds, link


class _HipBase:
    compiler_names = ("hipcc",)
    path = ""
    convert_all = False  # hipified-cuda: every unit from the converted tree

    def archs(self, ctx: BuildContext) -> list[str]:
        if ctx.gpu_archs:
            return list(ctx.gpu_archs)
        probe = ctx.out_dir / "arch-check.cpp"
        probe.parent.mkdir(parents=True, exist_ok=True)
        probe.write_text("int main() { return 0; }\n")
        env = dict(os.environ, **HIP_ENV)
        accepted = [a for a in DEFAULT_HIP_ARCHS
                    if _accepts([ctx.compiler, f"--offload-arch={a}", "-x", "hip", "-fsyntax-only", str(probe)], env)]
        if accepted:
            return accepted
        ctx.notes.append(f"{ctx.compiler} accepts none of {', '.join(DEFAULT_HIP_ARCHS)} (ROCm 7 targets); "
                         f"building for {FALLBACK_HIP_ARCH} to check the code compiles")
        return [FALLBACK_HIP_ARCH]

    def commands(self, ctx: BuildContext) -> tuple[list[Command], Command]:
        units = units_for(self.path)
        converted = ctx.out_dir / "hipified"
        ctx.pre_steps.append(convert_tree(ctx.source_dir, converted, ctx.jobs))
        arch_flags = [f"--offload-arch={a}" for a in ctx.gpu_archs]
        converted_incs = _includes(ctx, converted_include_dirs(converted, ["include"]))
        converted_headers = header_files(converted)
        cmds = []
        for u in units:
            if u.kind == "host":
                cmds.append(_host_unit(ctx, u))
                continue
            use_converted = self.convert_all or u.kind == "cuda"
            if use_converted:
                src = converted_path(converted, u.source)
                if src is None:
                    raise FileNotFoundError(f"hipify produced no output for {u.source} in {converted}")
                incs, headers = converted_incs, converted_headers
            else:
                src, incs, headers = ctx.source_dir / u.source, _includes(ctx), []
            lang = ["-x", "hip"]
            argv = [ctx.compiler, *COMMON_FLAGS, *HOST_FLAGS, *arch_flags, *_defines(ctx), *incs, *lang,
                    "-c", str(src), "-o", str(ctx.obj(u))]
            cmd = _compile(ctx, u, argv, src, HIP_ENV)
            cmd.inputs += headers
            cmds.append(cmd)
        link = _link(ctx, [ctx.compiler, "-shared", *arch_flags], [ctx.obj(u) for u in units], ["-lpthread", "-lrt"],
                     HIP_ENV)
        return cmds, link


class NativeHipBackend(_HipBase):
    """hipcc directly on the portable-header unit; the plain-CUDA unit is the one thing hipify
    must convert first (hipcc cannot compile cuda_runtime.h). Plain C++ units: host compiler."""

    path = "native-hip"


class HipifiedCudaBackend(_HipBase):
    """`port hipify` over the whole tree, then hipcc on the converted copy of every GPU unit."""

    path = "hipified-cuda"
    convert_all = True


BACKENDS: dict[str, Backend] = {b.path: b for b in (CudaBackend(), NativeHipBackend(), HipifiedCudaBackend(),
                                                    CpuBackend())}


def find_compiler(backend: Backend, hint: str | None) -> str | None:
    if hint and Path(hint).is_file():
        return hint
    for name in backend.compiler_names:
        found = shutil.which(name)
        if found:
            return found
    if backend.path == "cuda" and Path("/usr/local/cuda/bin/nvcc").is_file():
        return "/usr/local/cuda/bin/nvcc"
    return None
