"""Probe: CUDA toolkit (home, version, nvcc) and the driver library (libcuda).

Version sources, cheapest first: ``version.json``, ``CUDA_VERSION`` in ``include/cuda.h``,
``nvcc --version``. The driver is ``libcuda.so.1`` in the loader's directories (stubs excluded).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..errors import PortError
from ..parsing import bounded_int, loads_json
from ..records import Record, asdict
from ..versions import format_version, parse_version, version_prefix
from . import fs

TYPE_CHECKING = False  # typing is not imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    from .fs import Root

DRIVER_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/nvidia/lib64",
               "/usr/local/nvidia/lib", "/usr/lib/wsl/lib", "/usr/lib/aarch64-linux-gnu")


class CudaInfo(Record):
    found: bool = False
    home: str | None = None
    version: str | None = None
    version_source: str | None = None
    nvcc: str | None = None
    driver: str | None = None
    evidence: list[str] = []
    problems: list[str] = []

    def to_json(self) -> dict:
        return asdict(self)


def version_from_json(root: Root, home: str) -> tuple[str | None, str]:
    """``<home>/version.json`` (CUDA >= 11.1): ``{"cuda": {"version": "13.0.2"}}``."""
    path = f"{home}/version.json"
    text = fs.read_text(root, path)
    if text is None:
        return None, f"{path}: absent"
    try:
        version = loads_json(text, path)["cuda"]["version"]
    except (PortError, KeyError, TypeError):  # bad JSON, too deep, or another shape
        return None, f"{path}: unparseable"
    v = parse_version(str(version), anchored=True)
    if v is None or len(v) < 2:
        return None, f"{path}: unparseable"
    return format_version(v[:2]), path


def version_from_header(root: Root, home: str) -> tuple[str | None, str]:
    """``#define CUDA_VERSION 13000`` in ``<home>/include/cuda.h``."""
    path = f"{home}/include/cuda.h"
    text = fs.read_text(root, path, limit=64 << 10)
    if text is None:
        return None, f"{path}: absent"
    m = re.search(r"#define\s+CUDA_VERSION\s+([0-9]+)", text)
    v = bounded_int(m.group(1)) if m else None
    if v is None:
        return None, f"{path}: no CUDA_VERSION define"
    return f"{v // 1000}.{(v % 1000) // 10}", path


def version_from_nvcc(root: Root, nvcc: str | None) -> tuple[str | None, str]:
    """``nvcc --version`` (a subprocess; only on the real root)."""
    if nvcc is None or str(root) != "/":
        return None, "nvcc --version: not run"
    import subprocess

    from .toolcache import run_tool

    try:
        out = run_tool([nvcc, "--version"], timeout=20)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"{nvcc} --version: failed ({exc})"
    m = re.search(r"release ([0-9.]+)", out)
    version = version_prefix(m.group(1)) if m else None
    return (version, f"{nvcc} --version") if version else (None, f"{nvcc} --version: unparseable")


def wrapper_target(root: Root, nvcc: str) -> str | None:
    """A small shell script that execs ``<home>/bin/nvcc`` (as /usr/local/bin/nvcc here): its home."""
    text = fs.read_text(root, nvcc, limit=4096)
    if not text or not text.startswith("#!"):
        return None
    m = re.search(r"(/[^\s\"']+)/bin/nvcc\b", text)
    return m.group(1) if m else None


def probe_driver(root: Root, env: Mapping[str, str]) -> tuple[str | None, list[str]]:
    """Locate libcuda.so.1 (the driver) in the loader's directories; stub libraries do not count."""
    dirs = [d for d in env.get("LD_LIBRARY_PATH", "").split(":") if d] + list(DRIVER_DIRS)
    for directory in dirs:
        if "stubs" in directory:
            continue
        for name in ("libcuda.so.1", "libcuda.so"):
            if fs.exists(root, f"{directory}/{name}"):
                return f"{directory}/{name}", [f"libcuda: {directory}/{name}"]
    return None, [f"libcuda.so.1: not in {', '.join(dirs)}"]


def probe_cuda(root: Root, env: Mapping[str, str]) -> CudaInfo:
    info = CudaInfo()
    candidates: list[tuple[str, str]] = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if env.get(var):
            candidates.append((env[var], var))
        else:
            info.evidence.append(f"{var}: unset")
    nvcc = fs.which(root, env, "nvcc")
    if nvcc is None:
        info.evidence.append("nvcc: not on PATH")
    else:
        try:
            real = fs.resolve(root, nvcc)
            info.evidence.append(f"nvcc: {nvcc}" + (f" -> {real}" if real != nvcc else ""))
            if real.endswith("/bin/nvcc"):
                candidates.append((real[: -len("/bin/nvcc")], "prefix of nvcc"))
            target = wrapper_target(root, real)
            if target:
                info.evidence.append(f"nvcc: {real} is a wrapper script for {target}/bin/nvcc")
                candidates.append((target, "target of the nvcc wrapper script"))
        except fs.LinkError as exc:
            info.problems.append(f"nvcc on PATH is broken: {exc}")
    candidates.append(("/usr/local/cuda", "default /usr/local/cuda"))
    seen: set[str] = set()
    for path, why in candidates:
        try:
            home = fs.resolve(root, path)
        except fs.LinkError as exc:
            info.evidence.append(f"{path} ({why}): {exc}")
            continue
        if home in seen:
            continue
        seen.add(home)
        shown = path if home == path else f"{path} -> {home}"
        if not (fs.exists(root, f"{home}/include/cuda.h") or fs.exists(root, f"{home}/version.json")):
            info.evidence.append(f"{shown} ({why}): not a CUDA toolkit (no include/cuda.h or version.json)")
            continue
        info.evidence.append(f"{shown} ({why}): CUDA toolkit")
        info.found, info.home = True, home
        info.nvcc = f"{home}/bin/nvcc" if fs.exists(root, f"{home}/bin/nvcc") else nvcc
        for version, note in (version_from_json(root, home), version_from_header(root, home)):
            info.evidence.append(note if version is None else f"{note}: {version}")
            if version:
                info.version, info.version_source = version, note
                break
        else:
            version, note = version_from_nvcc(root, info.nvcc)
            info.evidence.append(note if version is None else f"{note}: {version}")
            info.version, info.version_source = version, (note if version else None)
        break
    info.driver, notes = probe_driver(root, env)
    info.evidence.extend(notes)
    return info
