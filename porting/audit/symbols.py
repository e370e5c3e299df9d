"""Symbol sets read from headers, not from docs: what the CUDA toolkit on this machine declares
and what ROCm 7's HIP headers declare, deprecate and mark [[nodiscard]].

Both come from ``porting.headers.declared_names`` (clang reads the headers; the answer is cached,
so only the first audit on a machine pays for the parse). Where a header set cannot be read (no
CUDA toolkit, no ROCm 7 SDK, no clang), the rules that need it are skipped and ``problems``
says why, once per run, instead of falling back to guessing from name prefixes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

# The CUDA API as the toolkit declares it: driver, runtime, profiler and library data types.
CUDA_HEADERS = ("cuda.h", "cuda_runtime_api.h", "cudaProfiler.h", "cuda_profiler_api.h", "library_types.h")
ROCM7_HEADERS = ("hip/hip_runtime.h",)


@dataclass(frozen=True)
class SymbolSets:
    cuda: frozenset[str] = frozenset()  # names the CUDA headers declare (empty: unknown)
    rocm: frozenset[str] = frozenset()  # names ROCm 7's HIP headers declare (empty: unknown)
    deprecated: dict[str, str] = field(default_factory=dict)  # ROCm 7 name -> the header's message
    unavailable: dict[str, str] = field(default_factory=dict)  # ROCm 7 name -> message (removed)
    nodiscard: frozenset[str] = frozenset()  # ROCm 7 functions whose result must not be ignored
    problems: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # where each set came from (for reports)

    @property
    def have_cuda(self) -> bool:
        return bool(self.cuda)

    @property
    def have_rocm(self) -> bool:
        return bool(self.rocm)


def rocm7_include(env: dict[str, str]) -> Path | None:
    """ROCm 7's HIP include dir: the compile-only SDK as porting.probe.rocm_sdk finds it
    (`port sdk fetch`, PORT_ROCM7_SDK), else a ROCm 7 install (ROCM_PATH, /opt/rocm)."""
    from ..probe.rocm import version_from_header
    from ..probe.rocm_sdk import probe_rocm_sdk

    sdk = probe_rocm_sdk(Path("/"), env)
    if sdk.include_dir and (sdk.hip_version or "").startswith("7."):
        return Path(sdk.include_dir)
    home = env.get("ROCM_PATH") or "/opt/rocm"
    version, _note = version_from_header(Path("/"), home)
    return Path(home) / "include" if version and version.split(".")[0] == "7" else None


def cuda_include(env: dict[str, str]) -> Path | None:
    from ..probe.cuda import probe_cuda

    info = probe_cuda(Path("/"), env)
    inc = Path(info.home) / "include" if info.home else None
    return inc if inc is not None and (inc / "cuda.h").is_file() else None


def _read(headers: tuple[str, ...], inc: Path, language: str, env: dict[str, str]):
    from ..errors import PortError
    from ..headers import declared_names

    try:
        return declared_names(list(headers), include_dirs=[inc], language=language, env=env), None
    except PortError as exc:
        return None, str(exc)


@lru_cache(maxsize=4)
def _load(env_items: tuple[tuple[str, str], ...]) -> SymbolSets:
    env = dict(env_items)
    problems: list[str] = []
    sources: list[str] = []
    cuda: frozenset[str] = frozenset()
    inc = cuda_include(env)
    if inc is None:
        problems.append("cuda-unmapped: no CUDA toolkit headers (set CUDA_HOME); the rule was skipped")
    else:
        names, err = _read(CUDA_HEADERS, inc, "c++", env)
        if names is None:
            problems.append(f"cuda-unmapped: cannot read the CUDA headers in {inc}: {err}; the rule was skipped")
        else:
            cuda = frozenset(n for n in names.decls if "::" not in n)
            sources.append(f"CUDA API: {', '.join(CUDA_HEADERS)} in {inc}")
    rocm = None
    inc7 = rocm7_include(env)
    if inc7 is None:
        problems.append("ROCm 7 rules: no ROCm 7 HIP headers (run `port sdk fetch` or set PORT_ROCM7_SDK); "
                        "hip-deprecated, rocm7-removed and hip-error-ignored were skipped")
    else:
        rocm, err = _read(ROCM7_HEADERS, inc7, "hip", env)
        if rocm is None:
            problems.append(f"ROCm 7 rules: cannot read {inc7}/hip/hip_runtime.h: {err}; they were skipped")
        else:
            sources.append(f"ROCm 7 HIP API: hip/hip_runtime.h in {inc7}")
    if rocm is None:
        return SymbolSets(cuda=cuda, problems=tuple(problems), sources=tuple(sources))
    return SymbolSets(cuda=cuda, rocm=frozenset(rocm.decls), deprecated=rocm.deprecated(),
                      unavailable={n: d.unavailable for n, d in rocm.decls.items() if d.unavailable is not None},
                      nodiscard=frozenset(rocm.nodiscard()), problems=tuple(problems), sources=tuple(sources))


def symbol_sets(env: dict[str, str] | None = None) -> SymbolSets:
    """The symbol sets for this machine (read once per process; the header reader caches on disk)."""
    env = dict(os.environ if env is None else env)
    keep = ("CUDA_HOME", "CUDA_PATH", "PATH", "HOME", "XDG_CACHE_HOME", "PORT_ROCM7_SDK", "ROCM_PATH",
            "PORT_CACHE_DIR")
    return _load(tuple(sorted((k, v) for k, v in env.items() if k in keep)))
