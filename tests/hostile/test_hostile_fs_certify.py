"""`port certify DIR` and `port build` write and delete only inside their directories: symlinks
planted in DIR (logs/, junit/, a log file, hipified/) or in the build directory never redirect
a write, a truncation or a deletion outside it (issue 11, item 1's certify exposure)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from porting.builder import build
from porting.certify import Progress, certify
from porting.paths import PathRefused

ALL = {"detect", "audit", "hipify", "build", "matrix"}


def _certify(out: Path, tmp_path: Path, sources: list[str] | None = None, skip: set[str] = ALL) -> str:
    buf = io.StringIO()
    certify(out, sources=sources or ["native"], progress=Progress(stream=buf, interval=60), cwd=str(tmp_path),
            skip=skip)
    return buf.getvalue()


def test_a_symlinked_log_file_is_replaced_not_truncated(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "out"
    (out / "logs").mkdir(parents=True)
    os.symlink(victim, out / "logs" / "report.log")
    _certify(out, tmp_path)
    assert victim.read_text() == "precious"
    assert not (out / "logs" / "report.log").is_symlink()


def test_a_symlinked_junit_dir_is_refused_and_its_files_kept(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "other.xml").write_text("<testsuites/>")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(elsewhere, out / "junit")
    with pytest.raises(PathRefused, match="symlink"):
        _certify(out, tmp_path)
    assert (elsewhere / "other.xml").read_text() == "<testsuites/>"


def test_a_symlinked_logs_dir_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(elsewhere, out / "logs")
    with pytest.raises(PathRefused, match="symlink"):
        _certify(out, tmp_path)
    assert list(elsewhere.iterdir()) == []


def test_a_symlinked_hipified_dir_is_refused(tmp_path: Path) -> None:
    (tmp_path / "native").mkdir()
    (tmp_path / "native" / "a.cu").write_text("__global__ void k() {}\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(elsewhere, out / "hipified")
    with pytest.raises(PathRefused, match="symlink"):
        _certify(out, tmp_path, skip=ALL - {"hipify"})
    assert list(elsewhere.iterdir()) == []


def test_build_never_truncates_through_a_symlinked_lock(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "b" / "cpu").mkdir(parents=True)
    os.symlink(victim, tmp_path / "b" / "cpu" / ".lock")
    with pytest.raises(OSError):
        build("cpu", build_dir=tmp_path / "b", compiler=str(tmp_path / "no-such-compiler"))
    assert victim.read_text() == "precious"


def test_build_refuses_a_symlinked_path_dir(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "b").mkdir()
    os.symlink(elsewhere, tmp_path / "b" / "cpu")
    with pytest.raises(PathRefused, match="symlink"):
        build("cpu", build_dir=tmp_path / "b", compiler=str(tmp_path / "no-such-compiler"))
    assert list(elsewhere.iterdir()) == []


def test_build_still_writes_its_record(tmp_path: Path) -> None:
    record = build("cpu", build_dir=tmp_path / "b", compiler=str(tmp_path / "no-such-compiler"))
    assert (tmp_path / "b" / "cpu" / "build-record.json").is_file() and record.path == "cpu"
