"""Diff against an earlier parity.json: what changed between two reports.

Columns are paired by exact key, else by platform + GPU arch, else by platform when that is
unambiguous (so ``rocm-7.0.1/gfx942`` is compared with ``rocm-7.0.2/gfx942``).
Durations are compared only when either side took at least ``DURATION_FLOOR`` seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .model import PASSED, Matrix

DURATION_FLOOR = 0.01
DURATION_FACTOR = 2.0
FAILING = ("failed", "error", "xpassed", "xfailed")


@dataclass
class BaselineDiff:
    file: str
    columns: dict[str, str] = field(default_factory=dict)  # current key -> baseline key
    newly_failing: list[dict[str, Any]] = field(default_factory=list)
    newly_passing: list[dict[str, Any]] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    duration_changes: list[dict[str, Any]] = field(default_factory=list)
    unmatched_columns: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def counts(self) -> dict[str, int]:
        return {"newly_failing": len(self.newly_failing), "newly_passing": len(self.newly_passing),
                "added": len(self.added), "removed": len(self.removed),
                "duration_changes": len(self.duration_changes)}


def _pair_columns(current: list[dict[str, str]], base: list[dict[str, str]]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    free = {c["key"]: c for c in base}
    for col in current:
        if col["key"] in free:
            pairs[col["key"]] = col["key"]
            del free[col["key"]]
    for rule in (lambda a, b: a["platform"] == b["platform"] and a["gpu_arch"] == b["gpu_arch"],
                 lambda a, b: a["platform"] == b["platform"]):
        for col in current:
            if col["key"] in pairs or not col["platform"]:
                continue
            cands = [k for k, b in free.items() if rule(col, b)]
            if len(cands) == 1:
                pairs[col["key"]] = cands[0]
                del free[cands[0]]
    return pairs


def _magnitude(ratio: float | None) -> float:
    return float("inf") if not ratio else max(ratio, 1 / ratio)


def diff_against(matrix: Matrix, baseline: dict[str, Any], file: str) -> BaselineDiff:
    """``baseline`` is a parsed parity.json (already schema-checked)."""
    base_tests: dict[str, dict[str, Any]] = {t["id"]: t.get("results", {}) for t in baseline.get("tests", [])}
    cur_cols = [{"key": c.key, "platform": c.platform, "gpu_arch": c.gpu_arch} for c in matrix.columns]
    base_cols = [{"key": c.get("key", ""), "platform": c.get("platform", ""), "gpu_arch": c.get("gpu_arch", "")}
                 for c in baseline.get("columns", [])]
    diff = BaselineDiff(file=file, columns=_pair_columns(cur_cols, base_cols))
    diff.unmatched_columns = [c["key"] for c in cur_cols if c["key"] not in diff.columns]
    diff.added = sorted(t for t in matrix.cells if t not in base_tests)
    diff.removed = sorted(t for t in base_tests if t not in matrix.cells)
    for test_id in matrix.test_ids:
        base_row = base_tests.get(test_id)
        if base_row is None:
            continue
        row = matrix.cells[test_id]
        for key, base_key in diff.columns.items():
            cell, old = row.get(key), base_row.get(base_key)
            if cell is None or old is None:
                continue
            before, after = old.get("status", ""), cell.status
            entry = {"test_id": test_id, "column": key, "before": before, "after": after}
            if before == PASSED and after in FAILING:
                diff.newly_failing.append(dict(entry, message=cell.message))
            elif before != PASSED and after == PASSED:
                diff.newly_passing.append(entry)
            old_d, new_d = float(old.get("duration", 0.0) or 0.0), cell.duration
            if max(old_d, new_d) >= DURATION_FLOOR:
                lo, hi = sorted((old_d, new_d))
                if lo <= 0 or hi / lo > DURATION_FACTOR:
                    ratio = (new_d / old_d) if old_d > 0 else float("inf")
                    diff.duration_changes.append({"test_id": test_id, "column": key, "before": old_d,
                                                  "after": new_d,
                                                  "ratio": round(ratio, 3) if ratio != float("inf") else None})
    diff.duration_changes.sort(key=lambda d: -_magnitude(d["ratio"]))
    return diff
