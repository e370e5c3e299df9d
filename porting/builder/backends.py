"""One build backend per path, behind a small Protocol; ``BACKENDS`` maps path -> backend.

Which backend flavour a path uses is declared in ``porting.registry`` (``BuildPath.backend``).

Each backend turns a ``BuildContext`` into compile commands (one per translation unit) and
one link command. ``porting.builder.build`` runs them incrementally and writes the record.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from .. import process_group
from ..probe.rocm_sdk import RocmSdkInfo
from ..registry import PATHS, BuildPath
from . import hip_toolchains
from .convert import convert_tree, converted_include_dirs, converted_path
from .record import Step
from .sources import LIBRARY_NAME, Unit, header_files, units_for
from .steps import Command

COMMON_FLAGS = ["-O3", "-std=c++17", "-DNDEBUG"]
HOST_FLAGS = ["-fPIC", "-fvisibility=hidden", "-Wall", "-Wextra"]
DEFAULT_HIP_ARCHS = ("gfx942", "gfx950")  # ROCm 7 targets: MI300 and MI350/355
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
    toolchain: str = ""  # the declared toolchain compiling it (porting.registry): rocm, rocm7-sdk, ...
    sdk: RocmSdkInfo | None = None  # rocm7-sdk: the SDK's include and device-library dirs, clang's tools

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


def _host_compiler() -> str:
    return shutil.which("c++") or shutil.which("g++") or shutil.which("clang++") or "c++"


def _host_unit(ctx: BuildContext, unit: Unit, compiler: str | None = None) -> Command:
    """Plain C++ units (no GPU code, no GPU headers) build with the host compiler on every path."""
    src = ctx.source_dir / unit.source
    return _compile(ctx, unit, [compiler or _host_compiler(), *COMMON_FLAGS, *HOST_FLAGS, *_defines(ctx),
                                *_includes(ctx), "-c", str(src), "-o", str(ctx.obj(unit))], src)


class CpuBackend:
    compiler_names = ("c++", "g++", "clang++")

    def __init__(self, spec: BuildPath) -> None:
        self.path = spec.name

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

    compiler_names = ("nvcc",)

    def __init__(self, spec: BuildPath) -> None:
        self.path = spec.name

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


class HipBackend:
    """The ROCm paths. hipify converts what the path's registry entry says (the plain-CUDA units,
    or every GPU unit); plain C++ units use the host compiler. Two toolchains compile the rest:
    ``rocm`` (hipcc of a ROCm install at the gate) and ``rocm7-sdk`` (clang with the ROCm 7 SDK:
    relocatable device code, device-linked with ocml/ockl and the oclc control variables).
    Both with ``-Werror``: ROCm 7's [[nodiscard]] hipError_t is an error, not a warning."""

    compiler_names = ("hipcc",)

    def __init__(self, spec: BuildPath) -> None:
        self.path = spec.name
        self.convert_all = spec.convert == "all"

    def archs(self, ctx: BuildContext) -> list[str]:
        return list(ctx.gpu_archs) or list(DEFAULT_HIP_ARCHS)

    def _sources(self, ctx: BuildContext) -> list[tuple[Unit, Path, list[str], list[Path]]]:
        """(unit, source, include flags, extra inputs) of each GPU unit, after the hipify step."""
        converted = ctx.out_dir / "hipified"
        ctx.pre_steps.append(convert_tree(ctx.source_dir, converted, ctx.jobs))
        converted_incs = _includes(ctx, converted_include_dirs(converted, ["include"]))
        converted_headers = header_files(converted)
        out = []
        for u in units_for(self.path):
            if u.kind == "host":
                continue
            if self.convert_all or u.kind == "cuda":
                src = converted_path(converted, u.source)
                if src is None:
                    raise FileNotFoundError(f"hipify produced no output for {u.source} in {converted}")
                out.append((u, src, converted_incs, converted_headers))
            else:
                out.append((u, ctx.source_dir / u.source, _includes(ctx), []))
        return out

    def commands(self, ctx: BuildContext) -> tuple[list[Command], Command]:
        flavour = hip_toolchains.ROCM7_SDK if ctx.toolchain == "rocm7-sdk" else hip_toolchains.HIPCC
        head, env = flavour.compile_head(ctx)
        cmds = [_host_unit(ctx, u) for u in units_for(self.path) if u.kind == "host"]
        objs = [ctx.obj(u) for u in units_for(self.path)]
        for u, src, incs, extra in self._sources(ctx) + flavour.generated_units(ctx):
            cmd = _compile(ctx, u, [*head, *_defines(ctx), *incs, "-c", str(src), "-o", str(ctx.obj(u))], src, env)
            cmd.inputs += extra
            cmds.append(cmd)
            if ctx.obj(u) not in objs:
                objs.append(ctx.obj(u))
        return cmds, _link(ctx, flavour.link_head(ctx), objs, flavour.link_tail(ctx), env)


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


_FLAVOURS: dict[str, type[CpuBackend] | type[CudaBackend] | type[HipBackend]] = {
    "host": CpuBackend, "nvcc": CudaBackend, "hip": HipBackend}
BACKENDS: dict[str, Backend] = {p.name: _FLAVOURS[p.backend](p) for p in PATHS}
