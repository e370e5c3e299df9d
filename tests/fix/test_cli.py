"""`port fix` on the command line: dry-run diff, --apply in place (atomic, inside the tree only,
never through a symlink), --out copies, JSON against its schema, SARIF 2.1.0 with fixes, errors.
Unverified (--no-verify) so that nothing compiles here; test_verify.py runs the verifications."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import jsonschema
import pytest

from porting.assets import schema
from porting.cli import main

PROGRAMS = Path(__file__).parent / "programs"
SARIF = json.loads((Path(__file__).parents[1] / "audit" / "data" / "sarif-schema-2.1.0.json").read_text())


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "kernels").mkdir(parents=True)
    shutil.copy(PROGRAMS / "mask_bug.cu", root / "mask_bug.cu")
    shutil.copy(PROGRAMS / "width_bug.cu", root / "kernels" / "width_bug.cu")
    return root


def port_fix(tmp_path: Path, *args: str) -> int:
    return main(["fix", *args, "--no-verify", "--work", str(tmp_path / "work")])


def test_dry_run_prints_a_diff_and_writes_nothing(tree: Path, tmp_path: Path, capsys) -> None:
    before = (tree / "mask_bug.cu").read_bytes()
    assert port_fix(tmp_path, str(tree)) == 1  # repairs offered, not applied
    out = capsys.readouterr()
    assert "+++ b/mask_bug.cu" in out.out and "__shfl_xor_sync(GPU_FULL_MASK, v, o)" in out.out
    assert "+++ b/kernels/width_bug.cu" in out.out
    assert (tree / "mask_bug.cu").read_bytes() == before


def test_apply_writes_in_place_and_a_second_run_changes_nothing(tree: Path, tmp_path: Path, capsys) -> None:
    assert port_fix(tmp_path, str(tree), "--apply") == 0
    assert "GPU_FULL_MASK" in (tree / "kernels" / "width_bug.cu").read_text()
    capsys.readouterr()
    assert port_fix(tmp_path, str(tree)) == 0
    assert capsys.readouterr().out == ""


def test_apply_never_follows_a_symlink_out_of_the_tree(tree: Path, tmp_path: Path, capsys) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(PROGRAMS / "mask_bug.cu", outside / "victim.cu")
    shutil.copy(PROGRAMS / "mask_bug.cu", outside / "dir_victim.cu")
    os.symlink(outside / "victim.cu", tree / "link.cu")
    os.symlink(outside, tree / "linked_dir")
    os.symlink(tree / "mask_bug.cu", tree / "inner_link.cu")  # inside: its target is repaired, the link kept
    assert port_fix(tmp_path, str(tree), "--apply") == 0
    err = capsys.readouterr().err
    assert (outside / "victim.cu").read_bytes() == (PROGRAMS / "mask_bug.cu").read_bytes()
    assert (outside / "dir_victim.cu").read_bytes() == (PROGRAMS / "mask_bug.cu").read_bytes()
    assert "outside the source directory, not followed" in err
    assert os.path.islink(tree / "inner_link.cu") and "GPU_FULL_MASK" in (tree / "mask_bug.cu").read_text()


def test_out_writes_a_repaired_copy_only(tree: Path, tmp_path: Path) -> None:
    before = (tree / "mask_bug.cu").read_bytes()
    out = tmp_path / "repaired"
    assert port_fix(tmp_path, str(tree), "--out", str(out)) == 1
    assert "GPU_FULL_MASK" in (out / "kernels" / "width_bug.cu").read_text()
    assert (tree / "mask_bug.cu").read_bytes() == before


@pytest.mark.parametrize("args,message", [
    (["{tree}", "--out", "{tree}/inside"], "--out"),
    (["{tmp}/missing.cu"], "no such file or directory"),
    (["{tree}", "--rules", "nope"], "--rules: unknown"),
    (["{tree}", "--arch", "gfx942"], "--arch"),
    (["{tree}", "--apply", "--out", "{tmp}/o"], "--apply and --out"),
])
def test_bad_input_is_one_line_and_exit_2(tree: Path, tmp_path: Path, capsys, args: list[str], message: str) -> None:
    argv = [a.format(tree=tree, tmp=tmp_path) for a in args]
    assert port_fix(tmp_path, *argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and "Traceback" not in err[0]


def test_json_follows_its_schema(tree: Path, tmp_path: Path, capsys) -> None:
    port_fix(tmp_path, str(tree), "--format", "json")
    data = json.loads(capsys.readouterr().out)
    jsonschema.validate(data, json.loads(schema("fix-1").read_text()))
    assert data["summary"]["offered"] == sum(len(f["repairs"]) for f in data["files"])
    assert {r["verifications"]["nvcc"] for f in data["files"] for r in f["repairs"]} == {"skipped: --no-verify"}


def test_sarif_is_valid_and_carries_fixes(tree: Path, tmp_path: Path, capsys) -> None:
    port_fix(tmp_path, str(tree), "--format", "sarif")
    log = json.loads(capsys.readouterr().out)
    jsonschema.validate(log, SARIF)
    results = log["runs"][0]["results"]
    assert results and all(r["fixes"] for r in results)
    text = (tree / "mask_bug.cu").read_text().splitlines(keepends=True)
    for r in results:
        change = r["fixes"][0]["artifactChanges"][0]
        rep = change["replacements"][0]
        region = rep["deletedRegion"]
        if change["artifactLocation"]["uri"] == "mask_bug.cu" and region["startLine"] == region["endLine"]:
            line = text[region["startLine"] - 1]
            old = line[region["startColumn"] - 1:region["endColumn"] - 1]
            assert old in ("0xffffffff", "0xFFFFFFFFu") and rep["insertedContent"]["text"] == "GPU_FULL_MASK"
