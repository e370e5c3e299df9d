"""Merge runs into the ``Matrix``: one column per platform, shards re-joined, gaps flagged."""

from __future__ import annotations

import os
from collections import defaultdict

from ..junit_contract import MAX_SHARDS
from .model import SEVERITY, Cell, Column, Matrix, Run, RunInfo


def column_key(info: RunInfo) -> tuple[str, str, str, str]:
    """(key, platform, version, arch): ``rocm-7.0.2/gfx942``, ``cuda-13.0/sm_90``, ``cpu``."""
    platform = info.platform or ""
    if platform == "rocm":
        version = info.rocm_version
    elif platform == "cuda":
        version = info.cuda_version
    else:
        version = ""
    arch = info.gpu_arch if platform in ("rocm", "cuda") else ""
    if not platform:
        return f"unknown:{os.path.basename(info.file)}", "", "", ""
    key = platform + (f"-{version}" if version else "") + (f"/{arch}" if arch else "")
    return key, platform, version, arch


def _shard(spec: str) -> tuple[int, int] | None:
    """``I/N`` with 1 <= I <= N <= MAX_SHARDS, ASCII digits only; else None (a bad shard)."""
    left, sep, right = spec.partition("/")
    if not sep or not (left.isascii() and left.isdigit() and right.isascii() and right.isdigit()) \
            or len(right) > len(str(MAX_SHARDS)):
        return None
    index, total = int(left), int(right)
    return (index, total) if 1 <= index <= total <= MAX_SHARDS else None


def _shard_problems(runs: list[RunInfo]) -> list[str]:
    problems: list[str] = []
    by_run: dict[str, list[RunInfo]] = defaultdict(list)
    for info in runs:
        if info.run_id:
            by_run[info.run_id].append(info)
    for run_id, infos in by_run.items():
        seen: dict[int, int] = {}
        totals: set[int] = set()
        for info in infos:
            if not info.shard:
                continue
            parsed = _shard(info.shard)
            if parsed is None:
                problems.append(f"run {run_id[:12]}: bad port.shard {info.shard[:40]!r} in {info.file} "
                                f"(expected I/N with 1 <= I <= N <= {MAX_SHARDS})")
                continue
            seen[parsed[0]] = seen.get(parsed[0], 0) + 1
            totals.add(parsed[1])
        if len(totals) > 1:
            problems.append(f"run {run_id[:12]}: shards disagree on the shard count {sorted(totals)}")
        for total in totals:
            missing = [i for i in range(1, total + 1) if i not in seen]
            if missing:
                listed = ", ".join(f"{i}/{total}" for i in missing[:10])
                problems.append(f"run {run_id[:12]}: missing shard(s) {listed}")
        repeated = [i for i, n in seen.items() if n > 1]
        if repeated:
            problems.append(f"run {run_id[:12]}: shard(s) {repeated} given more than once")
    return problems


def build_matrix(runs: list[Run]) -> Matrix:
    columns: dict[str, Column] = {}
    components: dict[str, str] = {}
    cells: dict[str, dict[str, Cell]] = {}
    problems: list[str] = []
    for run in runs:
        info = run.info
        key, platform, version, arch = column_key(info)
        col = columns.get(key)
        if col is None:
            col = columns[key] = Column(key, platform, version, arch)
        col.runs.append(info)
        name = os.path.basename(info.file)
        col.problems.extend(f"{name}: {p}" for p in info.problems)
        if not platform:
            problems.append(f"{name}: no port.platform property; pass --label {name}=PLATFORM")
        for test_id, case in run.cases.items():
            components.setdefault(test_id, case.component)
            row = cells.get(test_id)
            if row is None:
                row = cells[test_id] = {}
            old = row.get(key)
            if old is not None and SEVERITY[old.status] >= SEVERITY[case.status]:
                continue
            row[key] = Cell(case.status, case.duration, case.message, case.exemption)
    for col in columns.values():
        col.problems.extend(_shard_problems(col.runs))
    order = {"cuda": 0, "rocm": 1, "cpu": 2, "": 3}
    ordered = sorted(columns.values(), key=lambda c: (order.get(c.platform, 3), c.key))
    return Matrix(columns=ordered, components=components, cells=cells, problems=problems)
