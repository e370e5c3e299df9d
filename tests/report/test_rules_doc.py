"""docs/report.md's rules table and ``porting.report.rules.RULES`` stay in step: every rule is
listed, in order, and the test named beside each exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from porting.report.rules import RULES

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `(?P<rule>\w+)` \| .* \| `(?P<test>tests/[\w/]+\.py::\w+)` \|$")


def _rows() -> list[tuple[str, str]]:
    text = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    section = text.split("## Verdict rules", 1)[1].split("\n## ", 1)[0]
    return [(m["rule"], m["test"]) for line in section.splitlines() if (m := ROW.match(line))]


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}


def test_every_rule_is_documented_in_order():
    assert [rule for rule, _ in _rows()] == [r.__name__ for r in RULES]


def test_every_named_test_exists():
    for rule, test in _rows():
        file, _, name = test.partition("::")
        assert name in _test_names(ROOT / file), f"{rule}: {test} does not exist"


def test_every_rule_has_a_docstring_a_reviewer_can_read():
    assert all((r.__doc__ or "").strip() for r in RULES)
