"""The compile cache cannot lie: entries are authenticated with a per-user key kept outside
every tree, a header created after a failed lookup invalidates the entry, and the default cache
is never inside the tree being checked."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from porting.check.cache import Cache, cache_location, load_key
from porting.cli import main
from porting.errors import InputError

# a compiler that judges the code: a located error unless the source says OK (the arch probe passes)
JUDGE = ('for a; do f="$a"; done\n'
         'if [ "$f" = /dev/null ] || grep -q OK "$f"; then exit 0; fi\necho "$f:1:1: error: broken code" >&2; exit 1\n')


def _run(src: Path, out: Path, capsys, *extra: str) -> tuple[int, dict]:
    code = main(["check", str(src), "--out", str(out), "--format", "json", "--arch", "gfx942", "-j", "1", *extra])
    return code, json.loads(capsys.readouterr().out)


def _entries(cache: Path) -> set[Path]:
    return set(cache.glob("*.json"))


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("__global__ void k() { broken }\n")
    return src


def test_an_edited_entry_is_rejected_and_recompiled(broken, tmp_path, capsys, fake_tool, check_cache):
    fake_tool(JUDGE)
    before = _entries(check_cache)
    code, data = _run(broken, tmp_path / "out", capsys)
    assert code == 1 and data["units"][0]["class"] == "fails"
    (entry,) = _entries(check_cache) - before
    mac, body = entry.read_bytes().split(b"\n", 1)
    forged = {**json.loads(body), "returncode": 0, "stderr": "", "deps": []}
    entry.write_bytes(mac + b"\n" + json.dumps(forged, sort_keys=True).encode())  # the old MAC, a new verdict
    code, data = _run(broken, tmp_path / "out", capsys)
    assert code == 1 and data["units"][0]["class"] == "fails" and data["summary"]["compiled"] == 1


def test_an_entry_signed_with_another_key_is_rejected(broken, tmp_path, capsys, fake_tool, check_cache):
    """A repository (or another user) can ship entries; without this user's key they are garbage."""
    fake_tool(JUDGE)
    before = _entries(check_cache)
    _run(broken, tmp_path / "out", capsys)
    (entry,) = _entries(check_cache) - before
    body = json.loads(entry.read_bytes().split(b"\n", 1)[1])
    Cache(check_cache, b"k" * 32).store(entry.name, {**body, "returncode": 0, "stderr": "", "deps": []})
    code, data = _run(broken, tmp_path / "out", capsys)
    assert code == 1 and data["summary"]["compiled"] == 1 and data["summary"]["cached"] == 0


def test_warm_rerun_is_served_from_the_cache(broken, tmp_path, capsys, fake_tool):
    """The control of the two tests above: an untouched entry is used."""
    fake_tool(JUDGE)
    _run(broken, tmp_path / "out", capsys)
    code, data = _run(broken, tmp_path / "out", capsys)
    assert code == 1 and data["summary"]["compiled"] == 0 and data["summary"]["cached"] == 1


def test_a_header_created_after_a_failed_lookup_invalidates(toolchain, tmp_path, capsys):
    src = tmp_path / "src"
    (src / "include").mkdir(parents=True)
    (src / "k.cu").write_text('#include "mine.h"\n__global__ void k(float* x) { x[0] = VALUE; }\n')
    code, data = _run(src, tmp_path / "out", capsys)
    assert code == 1 and data["units"][0]["class"] == "fails"
    (src / "include" / "mine.h").write_text("#define VALUE 1.0f\n")  # found through -I include
    code, data = _run(src, tmp_path / "out", capsys)
    assert code == 0 and data["units"][0]["class"] == "compiles" and data["summary"]["compiled"] == 1


def test_the_default_cache_and_key_are_per_user_outside_the_tree(tmp_path):
    cache, key = cache_location("", {"HOME": str(tmp_path / "home")})
    assert cache == tmp_path / "home" / ".cache" / "rocm-port" / "check-cache"
    assert key.parent == cache.parent
    assert cache_location("/elsewhere", {"HOME": "/h"}) == (Path("/elsewhere"), Path("/h/.cache/rocm-port/check-key"))
    value = load_key(key)
    assert len(value) == 32 and stat.S_IMODE(key.stat().st_mode) == 0o600 and load_key(key) == value


def test_a_key_others_can_read_is_refused(tmp_path):
    key = tmp_path / "check-key"
    load_key(key)
    key.chmod(0o644)
    with pytest.raises(InputError, match="0600"):
        load_key(key)
    key.unlink()
    os.symlink(tmp_path / "elsewhere", key)  # never created or read through a symlink
    with pytest.raises(InputError):
        load_key(key)


def test_check_dot_writes_no_cache_into_the_tree(broken, capsys, fake_tool, monkeypatch):
    fake_tool(JUDGE)
    monkeypatch.chdir(broken)
    monkeypatch.delenv("PORT_CHECK_CACHE")
    monkeypatch.setenv("HOME", str(broken.parent / "home"))
    main(["check", ".", "--format", "json", "--arch", "gfx942"])
    capsys.readouterr()
    inside = {p.relative_to(broken).as_posix() for p in broken.rglob("*")}
    assert not any("cache" in p for p in inside), sorted(inside)
    assert any((broken.parent / "home" / ".cache" / "rocm-port" / "check-cache").iterdir())
