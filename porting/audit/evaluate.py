"""Precision and recall of `port audit` on a labelled corpus (tests/audit/corpus).

``labels.toml`` labels every finding (``[[finding]] file, line, rule, real, why``) and
``hazards.toml`` lists wave64 hazard lines found by reading the code (``[[hazard]] file, line,
class, why``). ``evaluate`` matches them against an audit run: per-rule precision, precision over
default-on rules weighted by how often each fires (= true findings / all findings), recall per
hazard class (a hazard counts as found when a wave64 rule reports its line; ``[[consistent]]`` lines, self-consistent
32-lane code, are not hazards and count as named when warp32-logical reports them), and the findings
without a label and the labels without a finding (both must be empty for the numbers to mean
anything). Used by tests/audit/test_corpus.py and bench/bench_audit.py.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..config import _load_toml  # the project's one TOML reader (tomllib / tomli)
from .findings import Finding
from .rules import RULES

# the rules that name a wave64 hazard (warp32-logical is a note: consistent code, not a hazard)
WAVE64_RULES = frozenset({"warp-size-literal", "warp-mask-32bit", "ballot-32bit", "activemask", "shfl-fixed-lane",
                          "warp-width-mixed", "launch-warp32", "shared-warp32"})
Key = tuple[str, int, str]


@dataclass
class Evaluation:
    true_by_rule: Counter[str] = field(default_factory=Counter)
    total_by_rule: Counter[str] = field(default_factory=Counter)
    found_by_class: Counter[str] = field(default_factory=Counter)
    hazards_by_class: Counter[str] = field(default_factory=Counter)
    unlabelled: list[Key] = field(default_factory=list)
    stale_labels: list[Key] = field(default_factory=list)
    missed: list[tuple[str, int, str]] = field(default_factory=list)
    # self-consistent 32-lane lines (hazards.toml [[consistent]]): warp32-logical should name them
    consistent: int = 0
    consistent_named: int = 0

    def precision(self, rule: str) -> float:
        return self.true_by_rule[rule] / self.total_by_rule[rule] if self.total_by_rule[rule] else float("nan")

    def weighted_precision(self, default_only: bool = True) -> float:
        rules = [r for r in self.total_by_rule if not default_only or RULES[r].default]
        total = sum(self.total_by_rule[r] for r in rules)
        return sum(self.true_by_rule[r] for r in rules) / total if total else float("nan")

    def recall(self, cls: str | None = None) -> float:
        found = sum(self.found_by_class.values()) if cls is None else self.found_by_class[cls]
        listed = sum(self.hazards_by_class.values()) if cls is None else self.hazards_by_class[cls]
        return found / listed if listed else float("nan")


def _load(path: Path, table: str) -> list[dict]:
    return list(_load_toml(path).get(table, []))


def evaluate(root: str | os.PathLike[str], findings: list[Finding]) -> Evaluation:
    """Score ``findings`` (an audit of ``root`` with every rule enabled) against root's labels."""
    base = Path(root)
    labels = {(d["file"], int(d["line"]), d["rule"]): bool(d["real"]) for d in _load(base / "labels.toml", "finding")}
    hazards = [(d["file"], int(d["line"]), d["class"]) for d in _load(base / "hazards.toml", "hazard")]
    ev = Evaluation()
    seen: set[Key] = set()
    wave64_lines: set[tuple[str, int]] = set()
    for f in findings:
        key = (Path(os.path.relpath(f.path, base)).as_posix(), f.line, f.rule)
        seen.add(key)
        if f.rule in WAVE64_RULES:
            wave64_lines.add(key[:2])
        if key not in labels:
            ev.unlabelled.append(key)
            continue
        ev.total_by_rule[f.rule] += 1
        ev.true_by_rule[f.rule] += labels[key]
    ev.stale_labels = sorted(set(labels) - seen)
    notes = {key[:2] for key in seen if key[2] == "warp32-logical"}
    for d in _load(base / "hazards.toml", "consistent"):
        ev.consistent += 1
        ev.consistent_named += (d["file"], int(d["line"])) in notes
    for file, line, cls in hazards:
        ev.hazards_by_class[cls] += 1
        if (file, line) in wave64_lines:
            ev.found_by_class[cls] += 1
        else:
            ev.missed.append((file, line, cls))
    return ev
