"""Hostile file-system input to `port hipify` (issue 11, items 1-4): a tampered manifest, symlinks
in SRC that leave SRC or point into OUT, and symlinks inside OUT. Nothing outside OUT may be
written or deleted, and every refusal is reported (manifest + command output)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from porting.cli import main
from porting.hipify import MANIFEST_NAME, convert_tree

KERNEL = "#include <cuda_runtime.h>\n__global__ void k() {}\nvoid f() { cudaMalloc(0, 0); }\n"


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.cu").write_text(KERNEL)
    (src / "sub" / "b.h").write_text("#pragma once\nint b();\n")
    return src, tmp_path / "out"


def _tamper(out: Path, **fields: str) -> None:
    mpath = out / MANIFEST_NAME
    data = json.loads(mpath.read_text())
    data["files"].append({"source": "gone.cu", "status": "unchanged", **fields})
    mpath.write_text(json.dumps(data))


@pytest.mark.parametrize("field", ["output", "copy"])
@pytest.mark.parametrize("how", ["absolute", "dotdot", "dotdot-inside"])
def test_tampered_manifest_cannot_delete_outside_out(tmp_path: Path, capsys, field: str, how: str) -> None:
    src, out = _tree(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    assert main(["hipify", str(src), "--out", str(out), "-j", "1"]) == 0
    path = {"absolute": str(victim), "dotdot": "../victim.txt", "dotdot-inside": "sub/../../victim.txt"}[how]
    _tamper(out, **{field: path})
    assert main(["hipify", str(src), "--out", str(out), "-j", "1"]) == 0
    assert victim.read_text() == "precious"
    manifest = json.loads((out / MANIFEST_NAME).read_text())
    assert any(r["path"] == path and "outside" in r["why"] for r in manifest["refused"])
    assert "refused" in capsys.readouterr().out


def test_tampered_manifest_cannot_delete_through_a_symlinked_dir_in_out(tmp_path: Path) -> None:
    src, out = _tree(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.h").write_text("keep")
    convert_tree(src, out, jobs=1)
    os.symlink(elsewhere, out / "link")
    _tamper(out, output="link/x.h")
    m = convert_tree(src, out, jobs=1)
    assert (elsewhere / "x.h").read_text() == "keep"
    assert any(r["path"] == "link/x.h" and "symlink" in r["why"] for r in m.refused)


def test_a_stale_output_inside_out_is_still_removed(tmp_path: Path) -> None:
    src, out = _tree(tmp_path)
    convert_tree(src, out, jobs=1)
    assert (out / "sub" / "b.h").exists()
    (src / "sub" / "b.h").unlink()
    m = convert_tree(src, out, jobs=1)
    assert not (out / "sub" / "b.h").exists() and m.refused == []


@pytest.mark.parametrize("kind", ["file", "dir"])
def test_symlink_out_of_src_is_not_followed_unless_asked(tmp_path: Path, capsys, kind: str) -> None:
    src, out = _tree(tmp_path)
    secret_dir = tmp_path / "secret"
    secret_dir.mkdir()
    (secret_dir / "passwd.h").write_text("root:x:0:0\n")
    os.symlink(secret_dir / "passwd.h" if kind == "file" else secret_dir, src / "link")
    assert main(["hipify", str(src), "--out", str(out), "-j", "1"]) == 0
    copied = out / "link" if kind == "file" else out / "link" / "passwd.h"
    assert not copied.exists()
    entry = {e["source"]: e for e in json.loads((out / MANIFEST_NAME).read_text())["files"]}["link"]
    assert entry["status"] == "skipped" and "outside" in entry["why"] and "--follow-external-symlinks" in entry["why"]
    assert "link" in capsys.readouterr().out
    # asked for explicitly: followed, as before
    out2 = tmp_path / "out2"
    assert main(["hipify", str(src), "--out", str(out2), "-j", "1", "--follow-external-symlinks"]) == 0
    assert (out2 / "link" if kind == "file" else out2 / "link" / "passwd.h").read_text() == "root:x:0:0\n"


def test_symlink_inside_src_is_followed(tmp_path: Path) -> None:
    src, out = _tree(tmp_path)
    os.symlink("sub/b.h", src / "alias.h")
    m = convert_tree(src, out, jobs=1)
    assert (out / "alias.h").read_text() == "#pragma once\nint b();\n" and m.refused == []


@pytest.mark.parametrize("follow", [False, True])
@pytest.mark.parametrize("out_inside_src", [False, True])
def test_symlink_into_out_does_not_make_output_grow(tmp_path: Path, follow: bool, out_inside_src: bool) -> None:
    src, out = _tree(tmp_path)
    if out_inside_src:
        out = src / "hip-out"
    out.mkdir()
    os.symlink(out, src / "into-out")
    counts = []
    for _ in range(3):
        convert_tree(src, out, jobs=1, follow_external_symlinks=follow)
        counts.append(sum(len(files) for _, _, files in os.walk(out)))
    assert counts[0] == counts[1] == counts[2]
    m = convert_tree(src, out, jobs=1, follow_external_symlinks=follow)
    entry = m.by_source()["into-out"]
    assert entry.status == "skipped" and "output directory" in entry.why


@pytest.mark.parametrize("jobs", ["1", "2"])  # inline and in pool workers
def test_symlinked_dir_inside_out_never_redirects_writes(tmp_path: Path, capsys, jobs: str) -> None:
    src, out = _tree(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out.mkdir()
    os.symlink(elsewhere, out / "sub")
    rc = main(["hipify", str(src), "--out", str(out), "-j", jobs])
    assert list(elsewhere.iterdir()) == []
    assert rc == 1  # the file that could not be written is a failure, named
    text = capsys.readouterr().out
    assert "sub/b.h" in text and "symlink" in text
    manifest = json.loads((out / MANIFEST_NAME).read_text())
    assert any(r["path"] == "sub/b.h" for r in manifest["refused"])


def test_symlinked_file_inside_out_is_replaced_not_written_through(tmp_path: Path) -> None:
    src, out = _tree(tmp_path)
    target = tmp_path / "target.h"
    target.write_text("untouched")
    (out / "sub").mkdir(parents=True)
    os.symlink(target, out / "sub" / "b.h")
    convert_tree(src, out, jobs=1)
    assert target.read_text() == "untouched"
    assert not (out / "sub" / "b.h").is_symlink()
    assert (out / "sub" / "b.h").read_text() == "#pragma once\nint b();\n"


@pytest.mark.parametrize("entry", [
    {"source": ["a.cu"], "status": "unchanged"},
    {"source": "a.cu", "status": "unchanged", "output": ["x"]},
    {"source": "a.cu", "status": "unchanged", "output": {"x": 1}},
    {"source": "a.cu", "status": "converted", "replacements": [["x"]], "size": 61},
    {"source": "a.cu", "status": "converted", "facts": {"breadcrumb": 1}},
    {"source": "a.cu", "status": "converted", "facts": [1, 2]},
    "not an object",
])
def test_a_manifest_with_wrong_types_is_a_full_rebuild_not_a_traceback(tmp_path: Path, capsys, entry) -> None:
    src, out = _tree(tmp_path)
    assert main(["hipify", str(src), "--out", str(out), "-j", "1"]) == 0
    mpath = out / MANIFEST_NAME
    data = json.loads(mpath.read_text())
    data["files"].append(entry)
    mpath.write_text(json.dumps(data))
    assert main(["hipify", str(src), "--out", str(out), "-j", "1"]) == 0
    assert "Traceback" not in capsys.readouterr().err
    assert {e["source"] for e in json.loads(mpath.read_text())["files"]} == {"a.cu", "sub/b.h"}


def test_a_deeply_nested_manifest_is_a_full_rebuild(tmp_path: Path) -> None:
    src, out = _tree(tmp_path)
    convert_tree(src, out, jobs=1)
    (out / MANIFEST_NAME).write_text('{"schema": "rocm-port/hipify-manifest/1", "x": ' + "[" * 100000 + "]" * 100000
                                     + "}")
    m = convert_tree(src, out, jobs=1)
    assert m.ok and {e.source for e in m.files} == {"a.cu", "sub/b.h"}
