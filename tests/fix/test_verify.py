"""Every repair verified before it is offered (nvcc, port check for gfx942/gfx950, port emulate at
32 and 64 lanes): each buggy program diverges at 64 lanes before and agrees after; a repair that
breaks nvcc or changes the 32-lane result is withdrawn alone; the clean program is left as it is.

These run nvcc and clang (compile only) and the emulator on the CPU: emulation stands in for an
AMD GPU here; nothing runs on a GPU."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from porting.fix import FixRequest, run_fix

PROGRAMS = Path(__file__).parent / "programs"
pytestmark = pytest.mark.usefixtures("tools")


def fix(tmp_path: Path, work: Path, name: str, **kw):
    tree = tmp_path / "tree"
    tree.mkdir(exist_ok=True)
    shutil.copy(PROGRAMS / name, tree / name)
    result = run_fix(FixRequest(paths=[str(tree)], work=work / tmp_path.name, **kw))
    return tree / name, result


@pytest.mark.parametrize("name", ["mask_bug.cu", "ballot_bug.cu", "shift_bug.cu", "lanemath_bug.cu",
                                  "width_bug.cu"])
def test_buggy_program_diverges_before_and_agrees_after(tmp_path: Path, work: Path, name: str) -> None:
    path, result = fix(tmp_path, work, name, apply=True)
    (ff,) = result.files
    assert ff.emulation["before"] == "diverged" and ff.emulation["after"] == "same"
    assert ff.repairs and all(r.status == "offered" for r in ff.repairs)
    for r in ff.repairs:
        assert r.verifications["nvcc"].startswith("pass")
        assert r.verifications["check"].startswith("pass")  # hipified, compiled for gfx942 and gfx950
        assert r.verifications["emulate"].startswith("pass")
    assert re.search(r"mask/ballot errors \d+ -> 0;", ff.repairs[0].verifications["check"])  # none left
    assert result.applied == [str(path)]
    again = run_fix(FixRequest(paths=[str(path.parent)], work=work / (tmp_path.name + "-again"), verify=False))
    assert again.files == []  # idempotent: nothing left to repair


def test_clean_program_is_left_alone(tmp_path: Path, work: Path) -> None:
    path, result = fix(tmp_path, work, "clean.cu", apply=True)
    assert result.files == [] and result.applied == []
    assert path.read_bytes() == (PROGRAMS / "clean.cu").read_bytes()


def test_repair_that_breaks_nvcc_is_withdrawn_alone(tmp_path: Path, work: Path) -> None:
    _path, result = fix(tmp_path, work, "withdraw_nvcc.cu", emulate=False, check=False)
    (ff,) = result.files
    by_kind = {r.kind: r for r in ff.repairs}
    assert by_kind["ballot"].status == "withdrawn" and by_kind["ballot"].reason.startswith("fail: nvcc")
    assert by_kind["mask"].status == "offered" and by_kind["header"].status == "offered"


def test_repair_that_changes_the_32_lane_result_is_withdrawn_alone(tmp_path: Path, work: Path) -> None:
    _path, result = fix(tmp_path, work, "withdraw_emulate.cu", check=False)
    (ff,) = result.files
    by_kind = {r.kind: r for r in ff.repairs}
    assert by_kind["shift"].status == "withdrawn"
    assert "at 32 lanes the repaired program's result differs" in by_kind["shift"].reason
    assert by_kind["mask"].status == "offered"
    assert by_kind["mask"].verifications["emulate"].startswith("pass")
