"""--baseline diffs, and the artifacts: parity.json (schema), parity.md, chart.svg, index.html."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from porting import assets
from porting.errors import InputError
from porting.report import build_report, write_artifacts
from porting.report.render_md import md, md_link

OLD = [("t.a::fast", "passed", "", 0.1), ("t.a::slow", "passed", "", 0.1), ("t.a::gone", "passed"),
       ("t.b::flaky", "failed", "x"), ("t.b::steady", "passed", "", 1.0)]
NEW = [("t.a::fast", "failed", "now broken", 0.1), ("t.a::slow", "passed", "", 0.5), ("t.a::new", "passed"),
       ("t.b::flaky", "passed"), ("t.b::steady", "passed", "", 1.5)]


def _schema():
    return json.loads(assets.schema("parity").read_text())


def test_baseline_diff(write_junit, jx, tmp_path):
    old = build_report([str(write_junit("old.xml", dict(jx.ROCM, **{"port.rocm_version": "7.0.1"}), OLD))])
    write_artifacts(old, tmp_path / "old")
    new = build_report([str(write_junit("new.xml", jx.ROCM, NEW))], baseline=tmp_path / "old" / "parity.json")
    d = new.baseline
    assert d.columns == {"rocm-7.0.2/gfx942": "rocm-7.0.1/gfx942"}  # paired across a version bump
    assert [(x["test_id"], x["before"], x["after"]) for x in d.newly_failing] == [("t.a::fast", "passed", "failed")]
    assert [x["test_id"] for x in d.newly_passing] == ["t.b::flaky"]
    assert d.added == ["t.a::new"] and d.removed == ["t.a::gone"]
    assert [(x["test_id"], x["ratio"]) for x in d.duration_changes] == [("t.a::slow", 5.0)]  # 1.0 -> 1.5 is < 2x


@pytest.mark.parametrize("content,needle", [
    ("not json", "not JSON"), ('{"kind": "other"}', "not a parity.json"),
    ('{"kind": "rocm-port.parity", "schema": 99}', "schema 99"),
    ('{"kind": "rocm-port.parity", "schema": 1, "tests": [1]}', "'tests' must be"),
])
def test_bad_baseline_is_an_input_error(write_junit, jx, tmp_path, content, needle):
    base = tmp_path / "base.json"
    base.write_text(content)
    with pytest.raises(InputError, match="base.json") as info:
        build_report([str(write_junit("r.xml", jx.ROCM, NEW))], baseline=base)
    assert needle in str(info.value)


def test_parity_json_matches_its_schema_and_round_trips(write_junit, jx, tmp_path):
    paths = [write_junit("cpu.xml", jx.CPU, OLD, run_id="c"), write_junit("rocm.xml", jx.ROCM, NEW, run_id="r")]
    rep = build_report([str(p) for p in paths])
    write_artifacts(rep, tmp_path / "a")
    again = build_report([str(p) for p in paths], baseline=tmp_path / "a" / "parity.json")
    write_artifacts(again, tmp_path / "b")
    for sub in ("a", "b"):
        data = json.loads((tmp_path / sub / "parity.json").read_text())
        jsonschema.validate(data, _schema())
    data = json.loads((tmp_path / "b" / "parity.json").read_text())
    assert data["baseline"]["newly_failing"] == [] and data["baseline"]["added"] == []
    assert data["verdict"]["status"] == "not certified"
    by_id = {t["id"]: t for t in data["tests"]}
    assert by_id["t.a::fast"]["results"]["rocm-7.0.2/gfx942"] == {"status": "failed", "duration": 0.1,
                                                                     "message": "now broken"}
    assert "rocm-7.0.2/gfx942" not in by_id["t.a::gone"]["results"]  # absent = missing
    assert data["totals"]["rocm-7.0.2/gfx942"]["*"]["missing"] == 1


def test_markdown_starts_with_verdict_and_counts(write_junit, jx, tmp_path):
    rep = build_report([str(write_junit("cpu.xml", jx.CPU, OLD, run_id="c")),
                        str(write_junit("rocm.xml", jx.ROCM, NEW, run_id="r"))])
    text = write_artifacts(rep, tmp_path)["parity.md"].read_text()
    first, second = text.splitlines()[:2]
    assert first == "# ❌ ROCm parity: NOT CERTIFIED"
    assert second.startswith("**6 tests** · 2 platforms · reference: cpu (cpu) · 2 blocking · 0 exempted")
    assert len(text.encode()) < 1024 * 1024
    assert "| t.b::flaky | cpu | failed | x |" in text  # failures outside the verdict are listed too
    assert "## Runs (2)" in text and "| rocm.xml | rocm-7.0.2/gfx942 | native-hip | 1/1 |" in text


def test_markdown_escapes_html_and_table_syntax():
    assert md("<script>a|b</script>\nnext") == "&lt;script&gt;a\\|b&lt;/script&gt; next"
    assert md_link("https://github.com/o/r/issues/1") == "[link](https://github.com/o/r/issues/1)"
    assert md_link("javascript:alert(1)") == "javascript:alert(1)"
    assert md_link("https://x.io/a) [b](c") == "https://x.io/a) \\[b\\](c"


def test_html_escapes_everything_and_svg_is_well_formed(tmp_path, jx):
    evil = '<script>document.title="pwned"</script><img src=x onerror=alert(1)> "q" & \'s\''
    rocm = tmp_path / "rocm.xml"
    rocm.write_text(jx.xml(jx.ROCM, [("t.<b>x</b>::a", "failed", evil, 0.1, "<i>comp</i>")], run_id="r"))
    cpu = tmp_path / "cpu.xml"
    cpu.write_text(jx.xml(jx.CPU, [("t.<b>x</b>::a", "passed", "", 0.1, "<i>comp</i>")], run_id="c"))
    paths = write_artifacts(build_report([str(cpu), str(rocm)]), tmp_path / "out")
    html = paths["index.html"].read_text()
    assert html.count("<script") == 1  # ours only
    assert "<img" not in html and "<b>x</b>" not in html and "<i>comp</i>" not in html
    assert "&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;" in html
    assert "Content-Security-Policy" in html and "script-src 'sha256-" in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html
    svg = ET.fromstring(paths["chart.svg"].read_text())
    texts = " ".join(t.text or "" for t in svg.iter("{http://www.w3.org/2000/svg}text"))
    assert "<i>comp</i>" in texts and "rocm-7.0.2/gfx942" in texts


def test_html_row_limit_keeps_the_interesting_rows(tmp_path, jx, monkeypatch):
    from porting.report import render_html
    monkeypatch.setattr(render_html, "MAX_ROWS", 3)
    cases = [(f"t.m::ok{i}", "passed") for i in range(10)] + [("t.m::zz_bad", "failed", "boom")]
    path = tmp_path / "r.xml"
    path.write_text(jx.xml(jx.ROCM, cases))
    html = write_artifacts(build_report([str(path)]), tmp_path / "o")["index.html"].read_text()
    assert "t.m::zz_bad" in html and "8 all-green tests omitted" in html


def test_runs_table_names_each_build(write_junit, jx, tmp_path):
    rocm = {**jx.ROCM, "port.torch_version": "2.14.1", "port.torch_flavour": "rocm",
            "port.monarch_version": "0.7.0", "port.monarch_flavour": "cuda"}
    rep = build_report([str(write_junit("cpu.xml", jx.CPU, OLD, run_id="c")),
                        str(write_junit("rocm.xml", rocm, NEW, run_id="r"))])
    out = write_artifacts(rep, tmp_path)
    text = out["parity.md"].read_text()
    assert "| 2.14.1 (rocm build) | 0.7.0 (cuda build) |" in text
    assert "torchmonarch is a cuda build on a rocm run" in text  # under Warnings
    assert "0.7.0 (cuda build)" in out["index.html"].read_text()
