"""parity.json and index.html are written by hand-tuned code on 100,000s of tests (issue 29):
the bytes must be those of the plain versions (json.dumps of ``report_to_json``; html.escape)."""

from __future__ import annotations

import json
import random
from html import escape

import pytest

from porting.report import build_report, parity_json, render_html

from .conftest import CPU, CUDA, ROCM

TEXTS = ("plain", "a\"b'c<d>&e", "ünïcödé ✓ 漢字", "tab\there", "emoji 😀 \\ back", "</td><script>", "x" * 400,
         "line1\nline2", "\x7f del", "", "[XPASS(strict)] yes")
STATUS = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
DURATIONS = ("0.5", "1,234.5", "nan", "-1", "inf", "", "abc", "1e-9", "123456.7654321", "0.1234565")


def _cases(rng: random.Random, n: int) -> list[tuple]:
    return [(f"tests.{rng.choice(['a', 'x&y', 'ü'])}.t{i % 7}::test_{i}[{rng.choice(TEXTS)[:12]}]",
             rng.choice(STATUS), rng.choice(TEXTS), rng.choice(DURATIONS), rng.choice([None, "actor", "<c>"]))
            for i in range(n)]


@pytest.mark.parametrize("seed", range(3))
def test_parity_json_text_is_json_dumps_of_the_document(write_junit, seed):
    rng = random.Random(seed)
    files = [write_junit(f"{name}.xml", props, _cases(rng, 300))
             for name, props in (("cuda", CUDA), ("rocm", ROCM), ("cpu", CPU))]
    report = build_report([str(f) for f in files])
    assert parity_json.report_to_text(report) == json.dumps(parity_json.report_to_json(report), indent=None) + "\n"


def test_durations_json_spells_itself(write_junit):
    """A cell whose duration is not a finite float (set by a caller, not read) is still written by json."""
    report = build_report([str(write_junit("r.xml", ROCM, [("t.m::a", "passed"), ("t.m::b", "failed")]))])
    row_a, row_b = (report.matrix.cells[t] for t in ("t.m::a", "t.m::b"))
    next(iter(row_a.values())).duration = float("nan")
    next(iter(row_b.values())).duration = 3  # an int
    text = parity_json.report_to_text(report)
    assert text == json.dumps(parity_json.report_to_json(report)) + "\n" and "NaN" in text


def test_html_escape_is_html_escape():
    rng = random.Random(5)
    alphabet = "ab&<>\"' ü😀\n"
    for _ in range(2000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert render_html._e(s) == escape(s, quote=True)
    assert render_html._e(3) == "3"


def test_html_rows_are_those_of_plain_escaping(write_junit, monkeypatch):
    rng = random.Random(11)
    files = [write_junit(f"{name}.xml", props, _cases(rng, 200)) for name, props in (("cuda", CUDA), ("rocm", ROCM))]
    report = build_report([str(f) for f in files])
    fast = render_html.render_html(report, "<svg/>")
    monkeypatch.setattr(render_html, "_e", lambda text: escape(str(text), quote=True))
    assert fast == render_html.render_html(report, "<svg/>")
    assert "x&amp;y" in fast and "&lt;c&gt;" in fast  # the escaped texts are in the rows
