"""Atomic writes (porting/atomic.py) and the containment helper (porting/paths.py): modes follow
the umask like a plain open(), a regenerated file keeps its mode, and writes under a root never
leave it (no absolute paths, no '..', no symlinked directory on the way)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from porting import atomic
from porting.paths import OutputDir, PathRefused


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


@pytest.fixture
def umask022():
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_new_file_mode_follows_the_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        atomic.write_text(tmp_path / "a.json", "{}\n")
        with open(tmp_path / "plain", "w"):
            pass
    finally:
        os.umask(old)
    assert _mode(tmp_path / "a.json") == 0o666 & ~umask == _mode(tmp_path / "plain")


def test_regenerating_keeps_the_existing_mode(tmp_path: Path, umask022) -> None:
    target = tmp_path / "aliases.rs"
    target.write_text("old")
    os.chmod(target, 0o640)
    atomic.write_text(target, "new")
    assert target.read_text() == "new" and _mode(target) == 0o640


def test_explicit_mode_is_masked_like_open(tmp_path: Path, umask022) -> None:
    atomic.write_bytes(tmp_path / "run.sh", b"#!/bin/sh\n", mode=0o777)
    assert _mode(tmp_path / "run.sh") == 0o755


def test_no_temp_file_left_on_failure(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(IsADirectoryError):
        atomic.write_text(tmp_path / "d", "x")
    assert list(tmp_path.iterdir()) == [tmp_path / "d"] and list((tmp_path / "d").iterdir()) == []


@pytest.mark.parametrize("bad", ["/etc/passwd", "../x", "a/../../x", "", "a/\0b"])
def test_output_dir_refuses_paths_that_leave_it(tmp_path: Path, bad: str) -> None:
    out = OutputDir(tmp_path / "out")
    with pytest.raises(PathRefused) as info:
        out.write_bytes(bad, b"x")
    assert repr(bad)[1:-1] in str(info.value) or bad == ""
    assert not (tmp_path / "x").exists()
    assert out.refused and out.refused[0]["path"] == bad
    assert out.unlink(bad) is False


def test_output_dir_accepts_absolute_paths_inside_it(tmp_path: Path) -> None:
    out = OutputDir(tmp_path / "out")
    out.write_bytes(str(tmp_path / "out" / "a" / "b.txt"), b"x")
    assert (tmp_path / "out" / "a" / "b.txt").read_bytes() == b"x"
    assert out.unlink("a/b.txt") is True and not (tmp_path / "out" / "a" / "b.txt").exists()


def test_output_dir_never_writes_through_a_symlinked_directory(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out").mkdir()
    os.symlink(elsewhere, tmp_path / "out" / "sub")
    out = OutputDir(tmp_path / "out")
    with pytest.raises(PathRefused, match="symlink"):
        out.write_bytes("sub/f.txt", b"x")
    (elsewhere / "g.txt").write_text("keep")
    assert out.unlink("sub/g.txt") is False
    assert list(elsewhere.iterdir()) == [elsewhere / "g.txt"]


def test_output_root_itself_may_be_a_symlink(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "out")
    OutputDir(tmp_path / "out").write_bytes("f.txt", b"x")
    assert (tmp_path / "real" / "f.txt").read_bytes() == b"x"


def test_unlink_does_not_follow_a_final_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "out").mkdir()
    os.symlink(victim, tmp_path / "out" / "link")
    assert OutputDir(tmp_path / "out").unlink("link") is True
    assert victim.read_text() == "keep" and not (tmp_path / "out" / "link").exists()


def test_regenerating_a_checked_in_alias_block_keeps_0644(tmp_path: Path) -> None:
    """The issue's repro: `port aliases scan --out` on a checked-in 0644 file made it 0600."""
    from porting.cli import main

    src = tmp_path / "src"
    src.mkdir()
    (src / "lib.rs").write_text("fn f() { unsafe { cuInit(0) }; }\n")
    out = tmp_path / "rocm_compat.rs"
    out.write_text("// stale\n")
    os.chmod(out, 0o644)
    old = os.umask(0o077)
    try:
        assert main(["aliases", "scan", str(src), "--out", str(out)]) == 0
    finally:
        os.umask(old)
    assert "cuInit" in out.read_text() and _mode(out) == 0o644


def test_sarif_and_baseline_are_world_readable_under_umask_022(tmp_path: Path, umask022) -> None:
    from porting.cli import main

    (tmp_path / "a.cu").write_text("void f(unsigned v) { __shfl_sync(0xffffffff, v, 1); }\n")
    sarif, base = tmp_path / "a.sarif", tmp_path / "base.json"
    main(["audit", str(tmp_path / "a.cu"), "--format", "sarif", "-o", str(sarif), "--fail-on", "never"])
    main(["audit", str(tmp_path / "a.cu"), "--write-baseline", str(base)])
    assert _mode(sarif) == _mode(base) == 0o644


_PIECES = st.sampled_from(["a", "b", ".", "..", "", "/", "\0", "x y", "\udcff", "/tmp", "..."])


@given(st.lists(_PIECES, max_size=8).map("/".join), st.booleans())
def test_output_dir_never_resolves_outside_its_root(path: str, absolute: bool) -> None:
    root = "/srv/out"
    out = OutputDir(root)
    candidate = (root + "/" + path) if absolute else path
    try:
        parts = out.parts(candidate)
    except PathRefused:
        return
    assert parts and all(p not in ("", ".", "..") and "/" not in p and "\0" not in p for p in parts)
    full = os.path.normpath(os.path.join(root, *parts))
    assert full.startswith(root + "/")
