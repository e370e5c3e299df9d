"""`port audit` output formats, SARIF schema validity, --fail-on, baselines, config, errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from porting.cli import main

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
SCHEMA = json.loads((HERE / "data" / "sarif-schema-2.1.0.json").read_text())


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(GOLDEN, root / "src")
    (root / "README.md").write_text("cudaMalloc in markdown is not scanned\n")
    return root


def test_sarif_is_valid_and_complete(tree: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tree)
    out = tmp_path / "audit.sarif"
    assert main(["audit", "src", "--format", "sarif", "-o", str(out), "--fail-on", "never"]) == 0
    log = json.loads(out.read_text())
    jsonschema.validate(log, SCHEMA)
    run = log["runs"][0]
    results = run["results"]
    assert results and all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "SRCROOT"
                           for r in results)
    rules = run["tool"]["driver"]["rules"]
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        assert r["level"] in ("error", "warning", "note")
        region = r["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert "src/bindings.rs" in uris and not any(u.endswith(".md") for u in uris)


def test_json_and_text_agree(tree: Path, capsys) -> None:
    assert main(["audit", str(tree), "--format", "json", "--fail-on", "never", "-j", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "rocm-port/audit/1"
    assert data["summary"]["files"] == len(list(GOLDEN.iterdir()))
    n = len(data["findings"])
    assert n == data["summary"]["error"] + data["summary"]["warning"] + data["summary"]["note"]
    assert main(["audit", str(tree), "--fail-on", "never"]) == 0
    text = capsys.readouterr().out
    assert text.count("    suggestion: ") == n
    rust = [f for f in data["findings"] if f["rule"] == "rust-cuda-binding"]
    assert {(f["symbol"], f["hip"]) for f in rust} >= {("cuInit", "hipInit"), ("CUresult", "hipError_t")}
    first = data["findings"][0]
    assert f"{first['path']}:{first['line']}:{first['col']}: {first['severity']}[{first['rule']}]" in text


@pytest.mark.parametrize("fail_on, source, code", [
    ("error", "inline_ptx.cu", 1),        # has errors
    ("error", "hip_deprecated.cu", 0),    # warnings only
    ("warning", "hip_deprecated.cu", 1),
    ("never", "inline_ptx.cu", 0),
])
def test_fail_on(fail_on: str, source: str, code: int, capsys) -> None:
    assert main(["audit", str(GOLDEN / source), "--fail-on", fail_on]) == code
    if code:
        assert "port: error:" in capsys.readouterr().err


def test_baseline_accepts_known_findings_only(tmp_path: Path, capsys) -> None:
    src = tmp_path / "k.cu"
    # a function that counts lanes by 32 and its warps by warpSize: a wave64 hazard (issue 26)
    mixed = "  float v = __shfl_xor_sync(~0ull, 1.f, 1); int q = threadIdx.x / warpSize;\n"
    src.write_text("__global__ void k() {\n  int lane = threadIdx.x % 32;\n" + mixed + "}\n")
    base = tmp_path / "baseline.json"
    assert main(["audit", str(src), "--write-baseline", str(base)]) == 0
    assert main(["audit", str(src), "--baseline", str(base), "--fail-on", "warning"]) == 0
    assert "1 in baseline" in capsys.readouterr().out
    # moving the line does not matter; a new hazard does
    src.write_text("// moved\n__global__ void k() {\n  int lane = threadIdx.x % 32;\n  int w = threadIdx.x / 32;\n"
                   + mixed + "}\n")
    assert main(["audit", str(src), "--baseline", str(base), "--fail-on", "warning"]) == 1
    out = capsys.readouterr().out
    assert ":4:" in out and ":3:" not in out.split("audit:")[0]


def test_config_file_sets_fail_on_and_disable(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "port.toml"
    cfg.write_text('[audit]\nfail_on = "never"\ndisable = ["inline-ptx"]\n')
    assert main(["audit", str(GOLDEN / "inline_ptx.cu"), "--config", str(cfg)]) == 0
    assert "inline-ptx" not in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["audit", "/nonexistent/dir"], "no such file or directory"),
    (["audit", str(GOLDEN), "--disable", "no-such-rule"], "unknown rule id"),
    (["audit", str(GOLDEN), "--baseline", "/nonexistent/b.json"], "cannot read baseline"),
    # under a regular file nothing can be written
    (["audit", str(GOLDEN / "warp.cu"), "--fail-on", "never", "-o", str(GOLDEN / "warp.cu" / "out")],
     "--output " + str(GOLDEN / "warp.cu" / "out") + ": cannot write"),
    (["audit", str(GOLDEN / "warp.cu"), "--write-baseline", str(GOLDEN / "warp.cu" / "b.json")],
     "--write-baseline " + str(GOLDEN / "warp.cu" / "b.json") + ": cannot write"),
])
def test_errors_are_one_line(argv, message, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("port: error:") and message in err and "Traceback" not in err


def test_bad_baseline_content(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "b.json"
    bad.write_text('{"schema": "something-else"}')
    assert main(["audit", str(GOLDEN), "--baseline", str(bad)]) == 2
    assert "not an audit baseline" in capsys.readouterr().err


def test_odd_files_do_not_crash(tmp_path: Path) -> None:
    from porting.audit.scan import audit_paths
    (tmp_path / "latin1.h").write_bytes(b"// caf\xe9\n__device__ void f(float v) {\nint lane = threadIdx.x % 32;\n"
                                        b"v = __shfl_xor_sync(~0ull, v, 1); int w = threadIdx.x / warpSize;\n}\n")
    (tmp_path / "blob.cu").write_bytes(b"\x00\x01\x02")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "loop").symlink_to("..")
    (tmp_path / "empty.cu").write_text("")
    (tmp_path / "unterminated.cu").write_text('const char* s = "open\n/* never closed cudaNope(')
    result = audit_paths([tmp_path], jobs=1)
    assert [(Path(f.path).name, f.rule) for f in result.findings] == [("latin1.h", "warp-size-literal")]
    assert any("binary" in p for p in result.problems) and any("symlink loop" in p for p in result.problems)


def test_list_rules(capsys) -> None:
    assert main(["audit", "--list-rules"]) == 0
    assert "warp-mask-32bit" in capsys.readouterr().out
    assert main(["audit"]) == 2
    assert "give at least one PATH" in capsys.readouterr().err


def test_parallel_audit_equals_serial(tmp_path: Path) -> None:
    from porting.audit.scan import audit_paths
    for i in range(3):
        shutil.copytree(GOLDEN, tmp_path / f"copy{i}")
    serial = audit_paths([tmp_path], jobs=1)
    parallel = audit_paths([tmp_path], jobs=2)
    assert serial.files >= 16 and serial.findings
    assert [f.to_json() for f in parallel.findings] == [f.to_json() for f in serial.findings]
    assert (parallel.lines, parallel.suppressed) == (serial.lines, serial.suppressed)
