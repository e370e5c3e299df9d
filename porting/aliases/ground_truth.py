"""Aliases held to the headers: a HIP target counts when ROCm 7's own headers declare it.

``rocm_names(env)`` reads the names the ROCm headers here declare (a ROCm >= 7.0 install, else
the compile-only SDK of `port sdk fetch`) with ``porting.headers``. ``verify(entries, names,
rules)`` then sorts every alias into:

- ``declared``: the HIP target is declared (kinds compatible);
- ``renamed``: hipify's target is not declared but one spelling of it is, found by rule
  (``CU_X``/``CUDA_X`` -> ``HIP_X``, ``cuX``/``cudaX`` -> ``hipX``, or hipify's name or the
  CUDA name with a hip prefix, up to case, underscores and a ``_t`` suffix: ``CU_MEMORYTYPE_HOST``
  -> ``hipMemoryTypeHost``); the declared name replaces hipify's;
- ``unverified``: a library alias (hipBLAS, hipSPARSE, ...) whose headers are not available
  here: kept, marked, and left out on request;
- ``dropped``: undeclared and matched by an ``[[undeclared]]`` rule of overrides.toml (a class
  of names ROCm does not have, with the reason);
- anything else is an error naming the entry: generation fails.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import ConfigError
from ..headers import HeaderNames, declared_names
from ..headers.reader import DEFAULT_COMPILER
from ..rocm_libraries import family_of

# Which declared kinds can stand behind an alias kind (a macro can stand in for anything).
# "function" is the table's catch-all for camelCase names hipify does not classify
# (cudaStreamCaptureStatus is an enum type), so any declared kind fits it.
COMPATIBLE = {"type": {"type", "macro"}, "const": {"enum_constant", "macro", "variable"},
              "function": {"function", "macro", "enum_constant", "variable", "type"}}
_SPELLINGS = (("CUDA_", "HIP_"), ("CU_", "HIP_"), ("cuda", "hip"), ("cu", "hip"))


@dataclass(frozen=True)
class UndeclaredRule:
    pattern: str  # regex searched in the CUDA name
    reason: str

    def matches(self, cuda: str) -> bool:
        return re.search(self.pattern, cuda) is not None


def library_of(cuda: str, hip: str) -> str | None:
    """The ROCm library (porting.rocm_libraries) whose headers could not confirm this alias; the
    runtime's interop headers are left to overrides.toml's [[undeclared]] rules."""
    family = family_of(cuda, hip, interop=False)
    return family.name if family is not None else None


def held_to(include_dirs: list[str]) -> str:
    """``ROCm HIP 7.1.25424 headers``: what a table was held to, without this machine's paths
    (the first include dir with a hip/hip_version.h says)."""
    from ..probe.rocm import version_from_include

    for inc in include_dirs:
        version, _where = version_from_include(Path("/"), inc)
        if version is not None:
            return f"ROCm HIP {version} headers"
    return "ROCm headers of unknown version"


def header_set(include_dir: Path) -> list[str]:
    """hip/hip_runtime.h first (the others need its definitions), then every other hip/*.h."""
    rest = sorted(f"hip/{p.name}" for p in (include_dir / "hip").glob("*.h") if p.name != "hip_runtime.h")
    return ["hip/hip_runtime.h", *rest]


class NoGroundTruth(ConfigError):
    """This machine cannot read ROCm 7's headers (none, or no clang to parse them with)."""


def rocm_include_dir(env: Mapping[str, str]) -> tuple[Path, str]:
    """(include dir, what it is): a ROCm >= 7.0 install wins over the compile-only SDK."""
    from ..probe.rocm import probe_rocm
    from ..probe.rocm_sdk import probe_rocm_sdk
    from ..versions import compare, parse_version

    rocm = probe_rocm(Path("/"), env)
    version = parse_version(rocm.version)
    if rocm.home and version is not None and compare(version, ">=", (7, 0)) \
            and Path(rocm.home, "include", "hip", "hip_runtime.h").is_file():
        return Path(rocm.home) / "include", f"ROCm {rocm.version} at {rocm.home}"
    sdk = probe_rocm_sdk(Path("/"), env)
    if sdk.include_dir and Path(sdk.include_dir, "hip", "hip_runtime.h").is_file():
        return Path(sdk.include_dir), f"ROCm {sdk.hip_version} SDK headers ({sdk.headers_from})"
    raise NoGroundTruth("no ROCm >= 7.0 headers to hold the aliases to: install ROCm 7, or run "
                      "`port sdk fetch` (the compile-only SDK)")


def rocm_names(env: Mapping[str, str] | None = None) -> HeaderNames:
    env = dict(os.environ if env is None else env)
    include, _ = rocm_include_dir(env)
    if shutil.which(DEFAULT_COMPILER, path=env.get("PATH")) is None:
        raise NoGroundTruth(f"no {DEFAULT_COMPILER} on PATH to read the ROCm headers with (Debian: apt-get "
                            f"install clang-22)")
    return declared_names(header_set(include), include_dirs=[include], language="hip", env=env)


def _kinds_fit(names: HeaderNames, name: str, kind: str) -> bool:
    return bool(set(names.kinds(name)) & COMPATIBLE[kind])


def _norm(name: str) -> str:
    key = name.lower().replace("_", "")
    return key[:-1] if name.endswith("_t") else key


def _renamed(cuda: str, hip: str, kind: str, names: HeaderNames, by_norm: dict[str, list[str]]) -> str | None:
    """The declared spelling of an undeclared target, when exactly one rule finds exactly one."""
    if hip.endswith("__"):
        return None  # hipify's marker for 'unsupported in HIP': never guess a replacement
    for prefix, hip_prefix in _SPELLINGS:
        if cuda.startswith(prefix):
            candidate = hip_prefix + cuda[len(prefix):]
            if candidate in names and _kinds_fit(names, candidate, kind):
                return candidate
    for key in (_norm(hip), _norm(_hip_spelling(cuda))):
        near = [n for n in by_norm.get(key, []) if _kinds_fit(names, n, kind)]
        if len(near) == 1:
            return near[0]
    return None


def _hip_spelling(cuda: str) -> str:
    """``CU_MEMORYTYPE_HOST`` -> ``hipMEMORYTYPE_HOST`` (compared up to case and underscores)."""
    for prefix, _ in _SPELLINGS:
        if cuda.startswith(prefix):
            return "hip" + cuda[len(prefix):]
    return cuda


def verify(entries: Iterable, names: HeaderNames, rules: list[UndeclaredRule], where: str) -> tuple[list, list]:
    """(kept aliases with their status, dropped aliases); ConfigError names what is neither."""
    by_norm: dict[str, list[str]] = {}
    for name in names.decls:
        if "::" not in name:
            by_norm.setdefault(_norm(name), []).append(name)
    kept, dropped, problems = [], [], []
    for alias in entries:
        target = alias.hip_pointee or alias.hip
        library = library_of(alias.cuda, alias.hip)
        if library is not None:
            kept.append(replace(alias, status="unverified", library=library))
        elif target in names and _kinds_fit(names, target, alias.kind):
            kept.append(replace(alias, status="declared"))
        elif target.endswith("__"):  # hipify's own marker: no HIP counterpart
            dropped.append(replace(alias, status="dropped",
                                   reason=f"hipify marks the HIP target {alias.hip} unsupported (trailing __)"))
        elif (new := _renamed(alias.cuda, target, alias.kind, names, by_norm)) is not None:
            hip = alias.hip.replace(target, new) if alias.hip_pointee else new
            kept.append(replace(alias, hip=hip, status="renamed", origin="headers",
                                reason=f"hipify's {alias.hip} is not declared by the ROCm headers; {new} is"))
        elif (rule := next((r for r in rules if r.matches(alias.cuda)), None)) is not None:
            dropped.append(replace(alias, status="dropped", reason=rule.reason))
        else:
            problems.append(f"{alias.cuda} -> {alias.hip} ({alias.origin})")
    if problems:
        raise ConfigError(f"{where}: {len(problems)} alias target(s) not declared by the ROCm headers and not "
                          f"covered by an [[undeclared]] rule or [[alias]] override: {', '.join(problems[:12])}"
                          + (" ..." if len(problems) > 12 else ""))
    return kept, dropped
