"""Every wave64 hazard class: the buggy program diverges between 32 and 64 lanes, its fix does not."""

from __future__ import annotations

from pathlib import Path

import pytest

PROGRAMS = Path(__file__).parent / "programs"

HAZARDS = PROGRAMS / "hazards"
CLASSES = sorted(p.name[:-len("_bug.cu")] for p in HAZARDS.glob("*_bug.cu"))
# what each buggy program's 64-lane run gets wrong (the 32-lane run is right)
EXPECTED = {
    "ballot32": ("stdout", "block 0 has a negative: yes", "block 0 has a negative: no"),
    "fullmask": ("exit", "exit 0", "lane 32 is not in its mask 0xffffffff"),
    "lane31": ("stdout", "block 0 sum 1140", "block 0 sum 1144"),
    "reduce16": ("stdout", "total 14336.0", "total 7168.0"),
    "warpsize_smem": ("stdout", "total 523776 (expected 523776)", "total 536064 (expected 523776)"),
    "popc_ballot": ("stdout", "positive values: 683", "positive values: 341"),
}


def test_every_hazard_class_has_a_bug_and_a_fix():
    assert set(CLASSES) == set(EXPECTED)
    for name in CLASSES:
        assert (HAZARDS / f"{name}_fix.cu").is_file()


@pytest.mark.parametrize("name", CLASSES)
def test_buggy_program_diverges_at_64_lanes(name, emulate_program):
    result = emulate_program(HAZARDS / f"{name}_bug.cu")
    assert result.verdict == "diverged"
    what, at32, at64 = EXPECTED[name]
    first = result.differences[0]
    assert first.what == what
    assert first.values[32] == at32
    assert at64 in first.values[64]


@pytest.mark.parametrize("name", CLASSES)
def test_fixed_program_is_the_same_at_both_widths(name, emulate_program):
    result = emulate_program(HAZARDS / f"{name}_fix.cu")
    assert result.verdict == "same", [d.line() for d in result.differences]
    assert [r.exit for r in result.runs] == [0, 0]
    # and it computes what the buggy program computes at 32 lanes, where the bug is latent
    bug = emulate_program(HAZARDS / f"{name}_bug.cu", warps=[32])
    assert result.runs[0].stdout == bug.runs[0].stdout


def test_a_reported_mask_fault_widens_the_mask_and_compares_the_results(emulate_program):
    """--mask-faults report: the 32-bit mask at 64 lanes is one difference (a finding at 64 only),
    and the run goes on with the mask widened, so the results are compared as well: here, with
    every lane in the reduction, they agree with the 32-lane run."""
    result = emulate_program(HAZARDS / "fullmask_bug.cu", mask_faults="report")
    assert result.verdict == "diverged"
    [diff] = result.differences
    assert diff.what == "finding" and diff.values[32] == "none"
    assert "lane 32 is not in its mask 0xffffffff" in diff.values[64]
    assert "widened to 0xffffffffffffffff" in result.runs[1].findings[0]
    assert [r.exit for r in result.runs] == [0, 0]
    assert result.runs[0].stdout == result.runs[1].stdout
    assert result.runs[1].stdout.startswith("max of block 0: ")
