"""The translation units of ``native/`` and which build paths compile them.

Kinds: ``host`` (plain C++, every path), ``portable`` (written against
``hip_aliases/gpu_runtime.h``; GPU paths), ``cuda`` (plain CUDA; nvcc, or hipify + hipcc),
``cpu`` (the host runtime and kernels of the cpu path).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..registry import build_path

LIBRARY_NAME = "libport_native.so"


@dataclass(frozen=True)
class Unit:
    source: str  # relative to native/
    kind: str  # host | portable | cuda | cpu


UNITS: tuple[Unit, ...] = (
    Unit("src/library.cpp", "host"),
    Unit("src/registry.cpp", "host"),
    Unit("src/copy_engine.cpp", "host"),
    Unit("src/runtime_cpu.cpp", "cpu"),
    Unit("src/shard_cpu.cpp", "cpu"),
    Unit("src/runtime_gpu.cpp", "portable"),
    Unit("src/shard_kernels.cu", "cuda"),
)

def units_for(path: str) -> list[Unit]:
    """The units path ``path`` compiles (its unit kinds are declared in porting.registry)."""
    kinds = build_path(path).units
    return [u for u in UNITS if u.kind in kinds]


def header_files(source_dir: Path, extra_include: Path | None = None) -> list[Path]:
    """Every header a unit may include (a change to any rebuilds every unit: simple and safe)."""
    found = sorted(p for p in source_dir.rglob("*") if p.suffix in (".h", ".hpp", ".cuh", ".inl") and p.is_file())
    if extra_include is not None and extra_include.is_dir():
        found += sorted(p for p in extra_include.rglob("*") if p.suffix in (".h", ".hpp") and p.is_file())
    return found
