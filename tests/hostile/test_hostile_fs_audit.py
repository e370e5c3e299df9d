"""Hostile input to `port audit` (issue 11, items 8, 10 and 14): huge lines must not make memory
or the report grow with findings x line length; a file name that is not UTF-8 works in every
format and in baselines; SARIF URIs are percent-encoded (RFC 3986) and still resolve."""

from __future__ import annotations

import json
import os
import urllib.parse
from pathlib import Path

import pytest

from porting.audit.findings import MAX_FIELD, MAX_SNIPPET, Finding
from porting.audit.scan import audit_paths
from porting.cli import main

HAZARD = "__shfl_sync(0xffffffff, v, 1); "  # one warp-mask-32bit finding each


def test_long_lines_keep_a_bounded_snippet_around_the_finding(tmp_path: Path) -> None:
    src = tmp_path / "long.cu"
    pad = "int a = 0; " * 2000  # 22 KB of code before the hazard on every line
    src.write_text("".join(f"void f{i}() {{ {pad}{HAZARD}}}\n" for i in range(100)))
    result = audit_paths([src], jobs=1)
    assert len(result.findings) == 100
    # the old code kept the whole 22 KB line per finding (in memory and in the report)
    assert all(len(f.snippet) <= MAX_SNIPPET for f in result.findings)
    report = json.dumps([f.to_json() for f in result.findings])
    assert len(report) / len(result.findings) < 2 * (MAX_SNIPPET + 3 * MAX_FIELD)
    assert all("__shfl_sync(0xffffffff" in f.snippet for f in result.findings)  # a window around it
    assert result.findings[0].snippet.startswith("…")


def test_one_megabyte_single_line_file_is_audited(tmp_path: Path) -> None:
    src = tmp_path / "mega.cu"
    body = "".join(f"cudaFoo{i}(x); __shfl_sync(0xffffffff, v{i}, 1); int y{i} = {i} % 32; "
                   for i in range(18000))  # ~1 MB of hazards on one line, no newline
    src.write_text(body)
    out = tmp_path / "r.json"
    assert main(["audit", str(src), "--format", "json", "-o", str(out), "--fail-on", "never", "-j", "1"]) == 0
    data = json.loads(out.read_text())
    assert data["summary"]["lines"] == 1 and data["findings"]
    assert out.stat().st_size / len(data["findings"]) < 2 * (MAX_SNIPPET + 3 * MAX_FIELD)


def test_every_field_of_a_finding_is_bounded() -> None:
    huge = "cuda" + "x" * 1_000_000
    f = Finding("a.cu", 1, 1, "cuda-unmapped", "warning", f"{huge} has no entry", "s" * 10**6, huge, huge, huge)
    assert len(json.dumps(f.to_json())) < MAX_SNIPPET + 6 * MAX_FIELD
    assert f.message.startswith("cudaxxx") and f.message.endswith("…")


def _bad_name_tree(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "src"
    root.mkdir()
    bad = os.fsencode(root) + b"/k\xff\xfe.cu"
    with open(bad, "wb") as fh:
        fh.write(b"__global__ void k(unsigned v) { __shfl_sync(0xffffffff, v, 1); }\n")
    return root, Path(os.fsdecode(bad))


@pytest.mark.parametrize("fmt", ["json", "sarif", "text"])
def test_non_utf8_file_name_in_every_format(tmp_path: Path, fmt: str) -> None:
    root, bad = _bad_name_tree(tmp_path)
    out = tmp_path / f"report.{fmt}"
    with open(os.fsencode(root) + b"/bin\xff.cu", "wb") as fh:
        fh.write(b"\0binary")  # a problem (not audited), named in the report
    assert main(["audit", str(root), "--format", fmt, "-o", str(out), "--fail-on", "never", "-j", "1"]) == 0
    text = out.read_text(encoding="utf-8")  # valid UTF-8, no lone surrogates
    assert "\\udc" not in text
    shown = "k\\xff\\xfe.cu"  # the bytes that are not UTF-8, escaped
    if fmt == "json":
        assert any(p.startswith(str(root) + "/bin\\xff.cu") for p in json.loads(text)["problems"])
    if fmt == "text":
        assert f"{shown}:1:" in text
    elif fmt == "json":
        assert json.loads(text)["findings"][0]["path"].endswith("/" + shown)
    else:
        uri = json.loads(text)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri == "src/k%FF%FE.cu" or uri.endswith("/k%FF%FE.cu")


def test_non_utf8_file_name_in_a_baseline_round_trips(tmp_path: Path, capsys) -> None:
    root, bad = _bad_name_tree(tmp_path)
    base = tmp_path / "baseline.json"
    assert main(["audit", str(root), "--write-baseline", str(base), "-j", "1"]) == 0
    json.loads(base.read_text(encoding="utf-8"))
    capsys.readouterr()
    assert main(["audit", str(root), "--baseline", str(base), "--format", "json", "-j", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["findings"] == [] and data["summary"]["baselined"] == 1


def test_fingerprint_is_the_file_name_bytes() -> None:
    a = Finding(os.fsdecode(b"k\xff.cu"), 1, 1, "warp-mask-32bit", "warning", "m", "s", "x")
    b = Finding(os.fsdecode(b"k\xfe.cu"), 1, 1, "warp-mask-32bit", "warning", "m", "s", "x")
    assert a.fingerprint != b.fingerprint and len(a.fingerprint) == 32
    assert a.fingerprint == Finding(os.fsdecode(b"k\xff.cu"), 9, 9, "warp-mask-32bit", "warning", "m", "s",
                                    "x").fingerprint


@pytest.mark.parametrize("name", ["a b.cu", "x#1.cu", "100%.cu", "q?.cu", "ü.cu", "[x].cu"])
def test_sarif_uris_are_percent_encoded_and_resolve(tmp_path: Path, name: str, monkeypatch) -> None:
    root = tmp_path / "proj"
    (root / "sub dir").mkdir(parents=True)
    target = root / "sub dir" / name
    target.write_text("void f(unsigned v) { __shfl_sync(0xffffffff, v, 1); }\n")
    out = tmp_path / "r.sarif"
    monkeypatch.chdir(root)
    assert main(["audit", ".", "--format", "sarif", "-o", str(out), "--fail-on", "never", "-j", "1"]) == 0
    run = json.loads(out.read_text())["runs"][0]
    loc = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    uri = loc["uri"]
    unreserved = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/%")
    assert set(uri) <= unreserved, uri
    base = run["originalUriBaseIds"][loc["uriBaseId"]]["uri"]
    resolved = urllib.parse.urljoin(base, uri)
    assert urllib.parse.unquote(urllib.parse.urlparse(resolved).path) == str(target)
