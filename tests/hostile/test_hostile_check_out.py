"""`port check` writes only inside OUT (and its per-user cache): a symlinked stage directory in
OUT is refused, never written through; a file name that is not UTF-8 is reported, not a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from porting.check import compiler as cc
from porting.cli import main


@pytest.fixture
def fake_compiler(tmp_path, monkeypatch):
    script = tmp_path / "fake-clang"
    script.write_text('#!/bin/sh\nfor a; do f="$a"; done\n'
                      'if [ "$f" = /dev/null ] || grep -q OK "$f"; then exit 0; fi\n'
                      'echo "$f:1:1: error: broken" >&2; exit 1\n')
    script.chmod(0o755)
    tool = cc.Toolchain("rocm7-sdk", str(script), "7.1", ["-x", "hip"], "fake")
    monkeypatch.setattr(cc, "select_toolchain", lambda plan, machine, guard: tool)
    monkeypatch.setenv("PORT_CHECK_CACHE", str(tmp_path / "cache"))


def _src(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("// OK\n__global__ void k() {}\n")
    return src


@pytest.mark.parametrize("stage", ["hipified", "rocm7-guard"])
def test_a_symlinked_stage_dir_in_out_is_refused(tmp_path, capsys, fake_compiler, stage):
    src = _src(tmp_path)
    victim = tmp_path / "victim"
    victim.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim, out / stage)
    assert main(["check", str(src), "--out", str(out), "--arch", "gfx942"]) == 2
    err = capsys.readouterr().err
    assert "symlink" in err and stage in err and "Traceback" not in err
    assert list(victim.iterdir()) == []


def test_a_symlinked_report_is_replaced_not_written_through(tmp_path, capsys, fake_compiler):
    src = _src(tmp_path)
    victim = tmp_path / "victim.json"
    victim.write_text("keep\n")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim, out / "check.json")
    assert main(["check", str(src), "--out", str(out), "--arch", "gfx942", "--format", "json"]) == 0
    capsys.readouterr()
    assert victim.read_text() == "keep\n" and not (out / "check.json").is_symlink()


def test_a_symlinked_cache_entry_is_replaced_not_written_through(tmp_path, capsys, fake_compiler):
    from porting.check.cache import Cache

    src = _src(tmp_path)
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    (tmp_path / "cache").mkdir()
    name = Cache.entry_name(str(src.resolve()), str((tmp_path / "out").resolve()), "k.cu", "gfx942")
    os.symlink(victim, tmp_path / "cache" / name)
    assert main(["check", str(src), "--out", str(tmp_path / "out"), "--arch", "gfx942"]) == 0
    capsys.readouterr()
    assert victim.read_text() == "keep\n" and not (tmp_path / "cache" / name).is_symlink()


def test_a_non_utf8_file_name(tmp_path, capsys, fake_compiler):
    src = _src(tmp_path)
    (src / os.fsdecode(b"\xffbad.cu")).write_text("broken\n")
    code = main(["check", str(src), "--out", str(tmp_path / "out"), "--arch", "gfx942", "--format", "text"])
    cap = capsys.readouterr()
    assert code == 1 and "Traceback" not in cap.err and "\\udcffbad.cu" in cap.out
    data = json.loads((tmp_path / "out" / "check.json").read_text())
    assert {u["source"] for u in data["units"]} == {os.fsdecode(b"\xffbad.cu"), "k.cu"}
