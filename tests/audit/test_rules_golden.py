"""Golden tests: every `expect: RULE` line is found with exactly those rules; nothing else is."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from porting.audit.rules import RULES
from porting.audit.scan import audit_paths
from porting.audit.symbols import symbol_sets

GOLDEN = Path(__file__).parent / "golden"
EXPECT = re.compile(r"expect:\s*([\w\-, ]+)")
ENABLE = re.compile(r"audit-enable:\s*([\w\-]+)")  # opt-in rules a golden file turns on


def enabled(path: Path) -> list[str]:
    return ENABLE.findall(path.read_text())


def expected(path: Path) -> set[tuple[int, str]]:
    out = set()
    for no, line in enumerate(path.read_text().splitlines(), 1):
        m = EXPECT.search(line)
        if m:
            out.update((no, rule.strip()) for rule in m.group(1).split(",") if rule.strip())
    return out


# Rules that read the CUDA toolkit's and ROCm 7's headers (porting.audit.symbols): their golden
# cases need both installed (nvcc's include dir; ci/fetch-rocm7-sdk).
HEADER_RULES = {"cuda-unmapped", "hip-deprecated", "hip-error-ignored"}


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.iterdir()))
def test_golden(name: str) -> None:
    path = GOLDEN / name
    missing = symbol_sets().problems
    if missing and HEADER_RULES & {rule for _, rule in expected(path)}:
        pytest.skip("; ".join(missing))
    result = audit_paths([path], jobs=1, enable=enabled(path))
    found = {(f.line, f.rule) for f in result.findings}
    assert found == expected(path)
    for f in result.findings:
        assert f.severity == RULES[f.rule].severity and f.message and f.suggestion
        assert f.snippet and f.snippet in path.read_text()


def test_every_rule_has_a_positive_golden_case() -> None:
    covered = {rule for p in GOLDEN.iterdir() for _, rule in expected(p)}
    assert covered == set(RULES)


def test_opt_in_rules_are_off_by_default() -> None:
    path = GOLDEN / "strings.cpp"
    assert "string-cuda-name" in enabled(path)
    assert "string-cuda-name" not in {f.rule for f in audit_paths([path], jobs=1).findings}
    assert not RULES["string-cuda-name"].default


def test_suppressions_are_counted() -> None:
    result = audit_paths([GOLDEN / "suppress.cu"], jobs=1)
    assert result.suppressed == 3  # one per ignored line (a line names real findings of one rule each)
    assert [f.rule for f in result.findings] == ["warp-size-literal"]


def test_columns_point_at_the_token() -> None:
    result = audit_paths([GOLDEN / "strings.cpp"], jobs=1)
    f = next(f for f in result.findings if f.rule == "dlsym-cuda-symbol")
    line = (GOLDEN / "strings.cpp").read_text().splitlines()[f.line - 1]
    assert line[f.col - 1:].startswith('"cuInit"')
