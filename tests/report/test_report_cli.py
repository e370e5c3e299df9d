"""`port report` on the command line: exit codes, labels, bad arguments, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from porting.cli import main


def _port(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "porting", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, check=False)


def test_exit_codes_follow_the_verdict(write_junit, jx, tmp_path, capsys):
    cases = [("t.a::x", "passed")]
    cpu = write_junit("cpu.xml", jx.CPU, cases, run_id="c")
    good = write_junit("rocm.xml", jx.ROCM, cases, run_id="r")
    bad = write_junit("rocm_bad.xml", jx.ROCM, [("t.a::x", "failed")], run_id="b")
    out = tmp_path / "out"
    assert main(["report", str(cpu), str(good), "--out", str(out)]) == 0
    assert main(["report", str(cpu), str(bad), "--out", str(out)]) == 1
    assert main(["report", str(cpu), "--out", str(out)]) == 3
    assert main(["report", str(cpu), "--out", str(out), "--no-evidence-ok"]) == 0
    assert json.loads((out / "parity.json").read_text())["verdict"]["status"] == "no evidence"
    printed = capsys.readouterr().out
    assert "verdict: certified" in printed and "verdict: not certified" in printed


def test_labels_for_producers_without_properties(write_junit, jx, tmp_path, capsys):
    """A label gives the platform facts; ctest's native tests need no torch or Monarch build, so
    they certify (a torch-dependent component would not: its build is unrecorded)."""
    cases = [("native.a::x", "passed")]
    cpu = write_junit("cpu.xml", None, cases)
    rocm = write_junit("rocm.xml", None, cases)
    out = tmp_path / "out"
    rc = main(["report", str(cpu), str(rocm), "--out", str(out), "--label", f"{cpu}=cpu",
               "--label", f"{rocm}=rocm-7.0.2/gfx942"])
    assert rc == 0
    cols = [c["key"] for c in json.loads((out / "parity.json").read_text())["columns"]]
    assert cols == ["rocm-7.0.2/gfx942", "cpu"]


def test_directory_input(write_junit, jx, tmp_path):
    write_junit("cpu.xml", jx.CPU, [("t.a::x", "passed")])
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "o")]) == 3


@pytest.mark.parametrize("args,needle", [
    (["nope.xml"], "nope.xml: no such file or directory"),
    (["{cpu}", "--label", "x.xml=cpu"], "x.xml is not one of the input files"),
    (["{cpu}", "--label", "{cpu}=gpu"], "must look like cpu"),
    (["{cpu}", "--label", "justtext"], "expected FILE=PLATFORM"),
    (["{cpu}", "--exemptions", "missing.toml"], "missing.toml: no such file"),
    (["{cpu}", "--baseline", "{cpu}"], "baseline is not JSON"),
    (["{cpu}", "--min-rocm", "banana"], "min_rocm: 'banana' is not a released version"),
])
def test_bad_arguments_exit_2_with_one_line(write_junit, jx, tmp_path, args, needle):
    cpu = write_junit("cpu.xml", jx.CPU, [("t.a::x", "passed")])
    proc = _port("report", *[a.format(cpu=cpu) for a in args], "--out", tmp_path / "o", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert needle in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("port: error: ")


def test_an_unwritable_out_dir_is_one_line_naming_it(write_junit, jx, tmp_path):
    cpu = write_junit("cpu.xml", jx.CPU, [("t.a::x", "passed")])
    (tmp_path / "file").write_text("")
    for command in (["report", cpu], ["certify"]):
        proc = _port(*command, "--out", tmp_path / "file" / "o", cwd=tmp_path)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.strip().splitlines()[-1].startswith(f"port: error: {tmp_path / 'file' / 'o'}: cannot ")
        assert not (tmp_path / "port-out").exists()


@pytest.mark.parametrize("content", [b"", b"<not-xml", b"<html/>", b"\xff\xfe garbage \x00"])
def test_garbage_only_input_writes_a_partial_report_and_exits_2(tmp_path, content):
    bad = tmp_path / "bad.xml"
    bad.write_bytes(content)
    proc = _port("report", bad, "--out", tmp_path / "o")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "port: error: no usable test results" in proc.stderr
    data = json.loads((tmp_path / "o" / "parity.json").read_text())
    assert data["partial"] is True and data["verdict"]["status"] == "no evidence"


def test_one_bad_file_among_good_ones_is_a_partial_report(write_junit, jx, tmp_path):
    cases = [("t.a::x", "passed")]
    cpu = write_junit("cpu.xml", jx.CPU, cases, run_id="c")
    rocm = write_junit("rocm.xml", jx.ROCM, cases, run_id="r")
    bad = tmp_path / "trunc.xml"
    bad.write_text(jx.xml(jx.ROCM, cases * 1, run_id="t")[:-40])
    proc = _port("report", cpu, rocm, bad, "--out", tmp_path / "o")
    assert proc.returncode == 4 and "Traceback" not in proc.stderr
    assert "trunc.xml: truncated or malformed XML" in proc.stderr
    assert "verdict: incomplete (PARTIAL)" in proc.stdout
