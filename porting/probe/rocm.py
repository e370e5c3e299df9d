"""Probe: ROCm / HIP installation (home, version, hipcc, runtime library).

Each step records what it looked at in ``evidence``; nothing here raises on a broken install.
Version sources, cheapest first: ``.info/version``, ``include/hip/hip_version.h``,
``share/hip/version`` (Debian), ``hipconfig --version``, ``hipRuntimeGetVersion`` via ctypes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from ..parsing import bounded_int
from ..records import Record, asdict
from ..versions import FIELD_DIGITS, version_prefix
from . import fs

TYPE_CHECKING = False  # typing is not imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    from .fs import Root

_DEFINE = re.compile(r"#define\s+HIP_VERSION_(MAJOR|MINOR|PATCH)\s+([0-9]+)")
_KV = re.compile(r"^HIP_VERSION_(MAJOR|MINOR|PATCH)=([0-9]+)", re.M)
_LIBDIRS = ("lib", "lib64", "../lib/x86_64-linux-gnu")
HIPCONFIG_TIMEOUT_S = 10.0


class RocmInfo(Record):
    found: bool = False
    home: str | None = None
    version: str | None = None
    version_source: str | None = None
    hipcc: str | None = None
    runtime_library: str | None = None
    evidence: list[str] = []
    problems: list[str] = []

    def to_json(self) -> dict:
        return asdict(self)


def _triple(found: dict[str, str]) -> str | None:
    if "MAJOR" in found and "MINOR" in found:
        fields = [bounded_int(found[k], FIELD_DIGITS) for k in ("MAJOR", "MINOR")]
        fields.append(bounded_int(found.get("PATCH", "0"), FIELD_DIGITS))
        if None not in fields:  # a field of thousands of digits is no version, not a traceback
            return ".".join(str(f) for f in fields)
    return None


def version_from_info(root: Root, home: str) -> tuple[str | None, str]:
    """``<home>/.info/version`` (e.g. ``7.0.2-56``): the ROCm release itself."""
    path = f"{home}/.info/version"
    text = fs.read_text(root, path)
    if text is None:
        return None, f"{path}: absent"
    version = version_prefix(text)
    if version is None:
        return None, f"{path}: unparseable {text.strip()[:40]!r}"
    return version, path


def _version_from_defines(root: Root, path: str, pattern: re.Pattern[str], what: str) -> tuple[str | None, str]:
    text = fs.read_text(root, path)
    if text is None:
        return None, f"{path}: absent"
    version = _triple(dict(pattern.findall(text)))
    return (version, path) if version else (None, f"{path}: no {what}")


def version_from_header(root: Root, home: str) -> tuple[str | None, str]:
    """``<home>/include/hip/hip_version.h`` HIP_VERSION_MAJOR/MINOR/PATCH defines."""
    return version_from_include(root, f"{home}/include")


def version_from_include(root: Root, include_dir: str) -> tuple[str | None, str]:
    """``<include_dir>/hip/hip_version.h`` HIP_VERSION_MAJOR/MINOR/PATCH defines."""
    return _version_from_defines(root, f"{include_dir}/hip/hip_version.h", _DEFINE,
                                 "HIP_VERSION_MAJOR/MINOR defines")


def version_from_share(root: Root, home: str) -> tuple[str | None, str]:
    """``<home>/share/hip/version`` KEY=VALUE lines (Debian's layout under /usr)."""
    return _version_from_defines(root, f"{home}/share/hip/version", _KV, "HIP_VERSION_MAJOR/MINOR lines")


def version_from_hipconfig(root: Root, home: str, env: Mapping[str, str]) -> tuple[str | None, str]:
    """``<home>/bin/hipconfig --version`` (a subprocess; only on the real root)."""
    path = f"{home}/bin/hipconfig"
    if str(root) != "/" or not fs.exists(root, path):
        return None, f"{path}: not run"
    import subprocess

    from .toolcache import run_tool

    try:  # a hanging hipconfig (a script: perl, its children) is ended with its whole group
        out = run_tool([path, "--version"], timeout=HIPCONFIG_TIMEOUT_S, env=env)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"{path} --version: failed ({exc})"
    version = version_prefix(out)
    return (version, f"{path} --version") if version else (None, f"{path} --version: unparseable {out[:40]!r}")


def version_from_runtime(root: Root, library: str | None) -> tuple[str | None, str]:
    """``hipRuntimeGetVersion`` through ctypes on libamdhip64 (only on the real root)."""
    if library is None or str(root) != "/":
        return None, "hipRuntimeGetVersion: not tried"
    import ctypes

    try:
        lib = ctypes.CDLL(library)
        value = ctypes.c_int(0)
        rc = lib.hipRuntimeGetVersion(ctypes.byref(value))
    except (OSError, AttributeError) as exc:
        return None, f"hipRuntimeGetVersion({library}): {exc}"
    if rc != 0 or value.value <= 0:
        return None, f"hipRuntimeGetVersion({library}): error {rc}"
    v = value.value
    return f"{v // 10_000_000}.{(v // 100_000) % 100}.{v % 100_000}", f"hipRuntimeGetVersion({library})"


def _runtime_library(root: Root, home: str) -> str | None:
    for sub in _LIBDIRS:
        directory = fs.resolve(root, f"{home}/{sub}") if fs.is_dir(root, f"{home}/{sub}") else None
        if directory:
            names = fs.glob_names(root, directory, "libamdhip64.so")
            if names:
                return f"{directory}/{min(names, key=len)}"
    return None


def _candidates(root: Root, env: Mapping[str, str], info: RocmInfo) -> list[tuple[str, str]]:
    """(machine path, why) in priority order: env vars, /opt/rocm, hipcc's prefix, distro /usr."""
    out: list[tuple[str, str]] = []
    for var in ("ROCM_PATH", "ROCM_HOME", "HIP_PATH"):
        if env.get(var):
            out.append((env[var], var))
        else:
            info.evidence.append(f"{var}: unset")
    out.append(("/opt/rocm", "default /opt/rocm"))
    hipcc = fs.which(root, env, "hipcc")
    if hipcc is None:
        info.evidence.append("hipcc: not on PATH")
    else:
        try:
            real = fs.resolve(root, hipcc)
        except fs.LinkError as exc:
            info.problems.append(f"hipcc on PATH is broken: {exc}")
            info.evidence.append(f"hipcc: {exc}")
        else:
            info.hipcc = real
            info.evidence.append(f"hipcc: {hipcc}" + (f" -> {real}" if real != hipcc else ""))
            bindir = real.rsplit("/", 1)[0]
            if bindir.endswith("/bin"):
                out.append((bindir[: -len("/bin")] or "/", "prefix of hipcc"))
    if fs.exists(root, "/usr/share/hip/version") or fs.exists(root, "/usr/include/hip/hip_version.h"):
        out.append(("/usr", "distro layout (/usr/share/hip or /usr/include/hip)"))
    return out


def probe_rocm(root: Root, env: Mapping[str, str]) -> RocmInfo:
    """Find a ROCm installation and its version; the first candidate with a version wins."""
    info = RocmInfo()
    seen: set[str] = set()
    for path, why in _candidates(root, env, info):
        try:
            home = fs.resolve(root, path)
        except fs.LinkError as exc:
            info.evidence.append(f"{path} ({why}): {exc}")
            info.problems.append(f"{path} ({why}) is a broken symlink chain: {exc}")
            continue
        if home in seen:
            continue
        seen.add(home)
        shown = path if home == path else f"{path} -> {home}"
        if not fs.is_dir(root, home):
            what = "broken symlink" if os.path.islink(fs.under(root, path)) else "absent"
            info.evidence.append(f"{shown} ({why}): {what}")
            if what == "broken symlink":
                info.problems.append(f"{path} is a broken symlink (points to {home})")
            continue
        info.evidence.append(f"{shown} ({why}): directory")
        library = _runtime_library(root, home)
        for step in (version_from_info, version_from_header, version_from_share):
            version, note = step(root, home)
            info.evidence.append(note if version is None else f"{note}: {version}")
            if version:
                break
        else:
            version, note = version_from_hipconfig(root, home, env)
            if version is None:
                info.evidence.append(note)  # e.g. a hipconfig that hung and was ended
                version, note = version_from_runtime(root, library)
            info.evidence.append(note if version is None else f"{note}: {version}")
        if version is None:
            info.problems.append(f"{home} looks like ROCm but no version could be read")
            if info.home is None:
                info.found, info.home, info.runtime_library = True, home, library
            continue
        info.found, info.home, info.version, info.version_source = True, home, version, note
        info.runtime_library = library
        if info.hipcc is None and fs.exists(root, f"{home}/bin/hipcc"):
            info.hipcc = f"{home}/bin/hipcc"
        return info
    return info
