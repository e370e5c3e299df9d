"""Probe: the host C++ compiler, and the platform hipcc would pick (the HIP_PLATFORM trap).

hipcc (ROCm <= 6 perl driver, hipvars.pm) chooses its platform when ``HIP_PLATFORM`` is unset:
``amd`` if an unversioned ``clang++`` is found (``$HIP_CLANG_PATH``, ``<rocm>/llvm/bin`` or PATH),
else ``nvidia`` if ``nvcc`` is found. Debian ships only ``clang++-15``, so with a CUDA toolkit
present hipcc silently compiles with nvcc.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..records import Record, asdict
from . import fs
from .toolcache import cached_version

TYPE_CHECKING = False  # typing is not imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    from .fs import Root


class HostCompiler(Record):
    path: str | None = None
    version: str | None = None
    evidence: list[str] = []

    def to_json(self) -> dict:
        return asdict(self)


class HipPlatform(Record):
    """What platform hipcc would select here, and why."""

    selected: str | None = None  # "amd" | "nvidia" | None (no hipcc)
    reason: str = ""
    trap: bool = False  # hipcc would silently pick nvcc

    def to_json(self) -> dict:
        return asdict(self)


def _ask_version(compiler: str) -> str | None:
    import subprocess

    from .toolcache import run_tool

    try:
        out = run_tool([compiler, "-dumpfullversion", "-dumpversion"], timeout=10).strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out.splitlines()[0] if out else None


def probe_host_compiler(root: Root, env: Mapping[str, str]) -> HostCompiler:
    info = HostCompiler()
    for name in ([env["CXX"]] if env.get("CXX") else []) + ["c++", "g++", "clang++"]:
        path = name if name.startswith("/") and fs.exists(root, name) else fs.which(root, env, name)
        if path:
            info.path = path
            break
    if info.path is None:
        info.evidence.append("host C++ compiler: none of $CXX, c++, g++, clang++ on PATH")
        return info
    info.evidence.append(f"host C++ compiler: {info.path}")
    if str(root) == "/":
        found = info.path
        info.version = cached_version(found, lambda: _ask_version(found), env)
    return info


def _versioned_clangs(root: Root, env: Mapping[str, str]) -> list[str]:
    found: set[str] = set()
    for entry in env.get("PATH", "").split(":"):
        for name in fs.glob_names(root, entry, "clang++-"):
            if re.fullmatch(r"clang\+\+-\d+", name):
                found.add(name)
    return sorted(found)


def probe_hip_platform(root: Root, env: Mapping[str, str], hipcc: str | None, rocm_home: str | None,
                       cuda_home: str | None) -> HipPlatform:
    if hipcc is None:
        return HipPlatform(None, "no hipcc")
    if env.get("HIP_PLATFORM"):
        chosen = {"hcc": "amd", "nvcc": "nvidia"}.get(env["HIP_PLATFORM"], env["HIP_PLATFORM"])
        return HipPlatform(chosen, f"HIP_PLATFORM={env['HIP_PLATFORM']} is set")
    clang_dirs = [d for d in (env.get("HIP_CLANG_PATH"), f"{rocm_home}/llvm/bin" if rocm_home else None) if d]
    for directory in clang_dirs:
        if fs.exists(root, f"{directory}/clang++"):
            return HipPlatform("amd", f"HIP_PLATFORM unset; hipcc finds {directory}/clang++")
    if fs.which(root, env, "clang++"):
        return HipPlatform("amd", "HIP_PLATFORM unset; hipcc finds clang++ on PATH")
    nvcc = fs.which(root, env, "nvcc") or (f"{cuda_home}/bin/nvcc" if cuda_home else None)
    versioned = _versioned_clangs(root, env)
    only = f" (only {', '.join(versioned)})" if versioned else ""
    if nvcc:
        return HipPlatform("nvidia", f"HIP_PLATFORM unset and no unversioned clang++{only}: hipcc would "
                           f"silently compile with nvcc ({nvcc}); set HIP_PLATFORM=amd", trap=True)
    return HipPlatform("amd", f"HIP_PLATFORM unset, no clang++{only} and no nvcc: hipcc defaults to amd")
