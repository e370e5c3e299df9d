"""`port audit` on real CUDA code (tests/audit/corpus): labels cover every finding, and the tool
meets issue 17's bar: >= 80% precision weighted by frequency over default-on rules, no default-on
rule under 60%, >= 85% recall on the wave64 hazards listed by hand. Opt-in rules state their
measured precision in their help text; that statement is checked too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from porting.audit.evaluate import evaluate
from porting.audit.rules import RULES
from porting.audit.scan import audit_paths
from porting.audit.symbols import symbol_sets

CORPUS = Path(__file__).parent / "corpus"
pytestmark = pytest.mark.skipif(bool(symbol_sets().problems), reason="needs the CUDA toolkit headers and the "
                                "ROCm 7 SDK headers (ci/fetch-rocm7-sdk): " + "; ".join(symbol_sets().problems))


@pytest.fixture(scope="module")
def scored():
    result = audit_paths([CORPUS], jobs=1, enable=[r.id for r in RULES.values() if not r.default])
    assert not result.problems
    return evaluate(CORPUS, result.findings)


def test_every_finding_is_labelled_and_every_label_is_found(scored) -> None:
    assert scored.unlabelled == []
    assert scored.stale_labels == []


def test_precision_weighted_by_frequency(scored) -> None:
    assert scored.weighted_precision() >= 0.80


def test_no_default_rule_below_60_percent(scored) -> None:
    low = {r: scored.precision(r) for r in scored.total_by_rule if RULES[r].default and scored.precision(r) < 0.60}
    assert low == {}


def test_wave64_recall(scored) -> None:
    # the bar means something only with enough judged 32-lane sites (issue 26 moved 14 of the 27
    # listed lines to [[consistent]]: the same result at 64)
    assert sum(scored.hazards_by_class.values()) + scored.consistent >= 20
    assert scored.recall() >= 0.85, scored.missed


def test_consistent_32_lane_code_is_named_as_such(scored) -> None:
    # 12 of 16: two header constants whose users are in other translation units cannot be named
    # in the header (its findings depend only on what it includes), and two `>> 5` on a width
    # that is not a thread index are not lane math
    assert scored.consistent >= 10
    assert scored.consistent_named / scored.consistent >= 0.75


def test_opt_in_rules_state_their_measured_precision(scored) -> None:
    for rule in (r for r in RULES.values() if not r.default):
        stated = re.search(r"(\d+)% \((\d+) of (\d+) findings", rule.help)
        assert stated, f"{rule.id}: opt-in rule without its measured precision"
        assert (int(stated.group(2)), int(stated.group(3))) == (scored.true_by_rule[rule.id],
                                                                scored.total_by_rule[rule.id]), rule.id
        assert int(stated.group(1)) == round(100 * scored.precision(rule.id)), rule.id


def test_parallel_run_finds_the_same() -> None:
    one = audit_paths([CORPUS], jobs=1).findings
    two = audit_paths([CORPUS], jobs=2).findings  # 35 files: the worker pool runs
    assert [(f.path, f.line, f.rule, f.message) for f in one] == [(f.path, f.line, f.rule, f.message) for f in two]
