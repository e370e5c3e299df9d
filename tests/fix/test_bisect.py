"""The bisection of verify.py without compilers: the steps are replaced by a judge that fails any set
holding a given repair (or a given pair), so the test shows which repairs survive and why."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.fix.model import FileFix, Repair
from porting.fix.verify import Baseline, Options, Step, Verifier


def repairs(n: int) -> list[Repair]:
    return [Repair("f.cu", i + 1, 1, i * 10, i * 10 + 1, "x", "y", "warp-mask-32bit", "mask", "why")
            for i in range(n)]


def judged(monkeypatch, tmp_path: Path, bad: set[int], bad_pairs: set[frozenset[int]] = frozenset()):
    verifier = Verifier(Options(tmp_path))
    tried: list[set[int]] = []

    def steps(ff, base, chosen):
        lines = {r.line for r in chosen}
        tried.append(lines)
        if lines & bad:
            return {"nvcc": Step(False, f"fail: nvcc: line {sorted(lines & bad)[0]}")}
        if any(pair <= lines for pair in bad_pairs):
            return {"nvcc": Step(True, "pass"), "check": Step(False, "fail: port check: clash")}
        return {"nvcc": Step(True, "pass"), "check": Step(True, "pass"), "emulate": Step(True, "pass")}

    monkeypatch.setattr(verifier, "_steps", steps)
    return verifier, tried


@pytest.mark.parametrize("bad", [set(), {1}, {4}, {2, 7}, {1, 2, 3, 4, 5, 6, 7, 8}])
def test_each_failing_repair_withdraws_only_itself(monkeypatch, tmp_path: Path, bad: set[int]) -> None:
    verifier, tried = judged(monkeypatch, tmp_path, bad)
    cands = repairs(8)
    kept = verifier._accept(FileFix("f.cu", str(tmp_path), ""), Baseline(), cands)
    assert {r.line for r in kept} == set(range(1, 9)) - bad
    for r in cands:
        if r.line in bad:
            assert r.status == "withdrawn" and r.reason == f"fail: nvcc: line {r.line}"
            assert r.verifications == {"nvcc": r.reason}
    assert len(tried) <= 1 + 4 * max(len(bad), 1) * 3  # bisection, not every subset


def test_two_repairs_that_clash_keep_the_first(monkeypatch, tmp_path: Path) -> None:
    verifier, _ = judged(monkeypatch, tmp_path, set(), {frozenset({1, 2})})
    cands = repairs(2)
    kept = verifier._accept(FileFix("f.cu", str(tmp_path), ""), Baseline(), cands)
    assert [r.line for r in kept] == [1]
    assert cands[1].status == "withdrawn" and "conflicts with other repairs" in cands[1].reason
