"""Build paths and toolchains: each declared once here; every stage reads these entries.

Plan (which toolchain serves a path here), build (units, backend, which ``--gpu-arch`` values
apply), the native loader (load order), certify/report (platform of a path), the detect schema
(path enum) and the backends all look a path or toolchain up here instead of keeping their own
list. Adding a toolchain is one ``ToolchainSpec`` (plus its probe, and a backend flavour if it
compiles differently); adding a path is one ``BuildPath``.

Kept free of heavy imports: ``port detect`` reads it on its 60 ms budget.
"""

from __future__ import annotations

from .records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


class ToolchainSpec(Record, frozen=True):
    name: str
    device: str  # the device its code is for: cuda | rocm | none
    compilers: tuple[str, ...]  # the drivers it runs, by name
    requirements: str  # what the machine needs for it, one phrase (shown in docs and errors)
    compile_only: bool  # by construction nothing it builds runs (no runtime libraries)


class BuildPath(Record, frozen=True):
    name: str
    device: str  # cuda | rocm | none
    platform: str  # the report/certify column a run of this path is filed under: cuda | rocm | cpu
    units: tuple[str, ...]  # native/ unit kinds it compiles (porting.builder.sources)
    backend: str  # porting.builder.backends flavour: host | nvcc | hip
    toolchains: tuple[str, ...]  # preference order: the first that can compile here serves the path
    convert: str  # what hipify converts first: none | cuda (the plain-CUDA units) | all (every GPU unit)
    arch_prefix: str | None  # which --gpu-arch values apply (sm_ / gfx); None: no GPU code
    summary: str


TOOLCHAINS: tuple[ToolchainSpec, ...] = (
    ToolchainSpec("nvcc", "cuda", ("nvcc",), "a CUDA toolkit (nvcc); a driver and an NVIDIA GPU to run", False),
    ToolchainSpec("rocm", "rocm", ("hipcc",), "ROCm at or above the gate (hipcc, libamdhip64); an AMD GPU to run",
                  False),
    ToolchainSpec("rocm7-sdk", "rocm", ("clang++", "clang-offload-bundler", "ld.lld"),
                  "clang++-N (N >= 20, knows gfx950) with its bundler and ld.lld, and the ROCm 7 SDK headers + "
                  "ocml/ockl (`port sdk fetch`)", True),
    ToolchainSpec("host", "none", ("c++", "g++", "clang++"), "a host C++ compiler", False),
)

# In load() preference order: the native loader tries them in this order.
PATHS: tuple[BuildPath, ...] = (
    BuildPath("cuda", "cuda", "cuda", ("host", "portable", "cuda"), "nvcc", ("nvcc",), "none", "sm_",
              "the reference: nvcc on the CUDA sources"),
    BuildPath("native-hip", "rocm", "rocm", ("host", "portable", "cuda"), "hip", ("rocm", "rocm7-sdk"), "cuda",
              "gfx", "HIP sources and the portable header compile as they are; plain CUDA is hipified"),
    BuildPath("hipified-cuda", "rocm", "rocm", ("host", "portable", "cuda"), "hip", ("rocm", "rocm7-sdk"), "all",
              "gfx", "every GPU unit from the hipified tree"),
    BuildPath("cpu", "none", "cpu", ("host", "cpu"), "host", ("host",), "none", None,
              "no GPU toolchain: the host runtime and kernels"),
)

PATH_NAMES: tuple[str, ...] = tuple(p.name for p in PATHS)
TOOLCHAIN_NAMES: tuple[str, ...] = tuple(t.name for t in TOOLCHAINS)


def build_path(name: str) -> BuildPath:
    """The declared path ``name``; KeyError names the known ones."""
    for p in PATHS:
        if p.name == name:
            return p
    raise KeyError(f"unknown build path {name!r} (expected one of {', '.join(PATH_NAMES)})")


def toolchain(name: str) -> ToolchainSpec:
    for t in TOOLCHAINS:
        if t.name == name:
            return t
    raise KeyError(f"unknown toolchain {name!r} (expected one of {', '.join(TOOLCHAIN_NAMES)})")


def paths_on(device: str) -> tuple[str, ...]:
    """Names of the paths whose code is for ``device`` (cuda | rocm | none)."""
    return tuple(p.name for p in PATHS if p.device == device)


def platform_of_path(name: str | None) -> str:
    """The report platform of a path; an unknown or missing path is the CPU column."""
    return next((p.platform for p in PATHS if p.name == name), "cpu")


def archs_for(name: str, archs: Iterable[str]) -> list[str]:
    """The ``--gpu-arch`` values that apply to path ``name`` (``90`` counts as ``sm_90``)."""
    prefix = build_path(name).arch_prefix
    if prefix is None:
        return []
    return [a for a in archs if a.startswith(prefix) or (prefix == "sm_" and a.isdigit())]
