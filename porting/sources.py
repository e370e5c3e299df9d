"""Classify GPU sources: already HIP / portable-header (native-hip) vs plain CUDA (hipified-cuda)."""

from __future__ import annotations

import os
import re

from .records import Record, asdict
from .walk import read_head, source_files

SOURCE_SUFFIXES = {".cu", ".cuh", ".hip", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".inl"}
MAX_FILES = 5000
_INCLUDE = re.compile(rb'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
PORTABLE_HEADER_DIR = "hip_aliases/"


class SourceScan(Record):
    hip: list[str] = []  # already HIP (.hip, hip_runtime.h)
    portable: list[str] = []  # our portable header
    cuda: list[str] = []  # plain CUDA: needs hipify
    missing: list[str] = []  # source dirs that do not exist

    def to_json(self) -> dict:
        return {**asdict(self), "counts": {"hip": len(self.hip), "portable": len(self.portable),
                                           "cuda": len(self.cuda)}}


def classify(path: str | os.PathLike[str]) -> str | None:
    """``hip`` / ``portable`` / ``cuda`` for one file, None for host-only code."""
    head = read_head(path, 64 << 10)  # a FIFO named like a source is not opened for a blocking read
    if head is None:
        return None
    includes = [i.decode("latin-1") for i in _INCLUDE.findall(head)]
    suffix = os.path.splitext(path)[1]  # os.path, not pathlib: `port detect` scans sources and must start fast
    if any(i.startswith(PORTABLE_HEADER_DIR) for i in includes):
        return "portable"
    if suffix == ".hip" or any(i.startswith("hip/") for i in includes):
        return "hip"
    if suffix in (".cu", ".cuh") or any(i in ("cuda.h", "cuda_runtime.h", "cuda_runtime_api.h")
                                             for i in includes):
        return "cuda"
    return None


def scan_sources(dirs: list[str], project_dir: str | os.PathLike[str]) -> SourceScan:
    scan = SourceScan()
    seen = 0
    for entry in dirs:
        base = os.path.join(project_dir, entry)  # an absolute entry stays itself
        if not os.path.isdir(base):
            scan.missing.append(str(entry))
            continue
        files, _ = source_files([base], skip_dir=lambda d: d.startswith("."))  # the one walker
        for path in files:
            if os.path.splitext(path)[1] in SOURCE_SUFFIXES:
                seen += 1
                if seen > MAX_FILES:
                    return scan
                kind = classify(path)
                if kind:
                    getattr(scan, kind).append(os.path.relpath(path, project_dir))
    return scan
