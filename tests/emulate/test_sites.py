"""The emulator's sites (emu_sites.cpp): the program lines where a warp collective behaved
otherwise at 64 lanes than in a 32-lane warp, in the record with the user's own path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from porting.emulate.run import parse_sites

HAZARDS = Path(__file__).parent / "programs" / "hazards"
CONFIRM = Path(__file__).parents[1] / "audit" / "confirm_lines"


@pytest.mark.parametrize("name, kind, line", [
    ("reduce16_bug.cu", "shuffle-other-half", 10),  # offsets from 16: lanes 16-31 read lanes 32-47
    ("fullmask_bug.cu", "mask-32bit", 9),           # 0xffffffff leaves out lanes 32-63
    ("ballot32_bug.cu", "ballot-64bit", 9),         # a lane of the upper half votes
])
def test_a_hazard_is_reported_at_its_line_at_64_lanes_only(emulate_program, name, kind, line) -> None:
    result = emulate_program(HAZARDS / name, mask_faults="report")
    by_warp = {r.warp: r.sites for r in result.runs}
    assert by_warp[32] == []
    assert (kind, line) in {(s.kind, s.line) for s in by_warp[64]}
    assert {s.file for s in by_warp[64]} == {str((HAZARDS / name).resolve())}  # not the mirror under OUT/src
    assert line in {s.line for s in result.runs[1].reached} or kind == "mask-32bit"
    assert result.runs[0].reached == []
    record = json.loads(json.dumps(result.to_json()))
    assert any(s["kind"] == kind and s["line"] == line for s in record["runs"][1]["sites"])


def test_the_mask_is_reported_before_a_stop_fault(emulate_program) -> None:
    result = emulate_program(HAZARDS / "fullmask_bug.cu")  # mask_faults="stop": the 64-lane run faults
    assert [(s.kind, s.line) for s in result.runs[1].sites] == [("mask-32bit", 9)]


def test_a_helper_reports_its_own_line_and_correct_code_has_sites_too(emulate_program) -> None:
    result = emulate_program(CONFIRM / "helper.cu")
    assert [s.line for s in result.runs[1].sites] == [7]  # the helper's shuffle, width 64 by default
    result = emulate_program(HAZARDS / "lane31_fix.cu")
    assert all(s.kind == "shuffle-other-half" for s in result.runs[1].sites)  # correct code has sites too


def test_a_collective_that_behaves_as_in_a_32_lane_warp_is_reached_but_no_site(emulate_program) -> None:
    result = emulate_program(CONFIRM / "mask_only.cu", mask_faults="report")  # xor 1 stays in its half
    assert [(s.kind, s.line) for s in result.runs[1].sites] == [("mask-32bit", 5)]
    assert [s.line for s in result.runs[1].reached] == [5]


def test_a_site_line_is_parsed_field_by_field() -> None:
    text = "noise\nemu: site: ballot-64bit\t12\t/a b/c:d.cu\t__ballot_sync: lane 3 gets 0x1: 2\nemu: site: bad\n"
    [site] = parse_sites(text)
    assert (site.kind, site.line, site.file, site.detail) == ("ballot-64bit", 12, "/a b/c:d.cu",
                                                              "__ballot_sync: lane 3 gets 0x1: 2")


def test_a_binary_from_a_shared_cache_names_the_users_file_not_another_runs_copy(tmp_path, emu_cache) -> None:
    from porting.emulate import Request, emulate
    source = HAZARDS / "fullmask_bug.cu"
    for out in ("first", "second"):  # the second run takes the first run's binary from the cache
        result = emulate(Request(sources=[source], out_dir=tmp_path / out, cache_dir=emu_cache,
                                 mask_faults="report"))
        assert {s.file for s in result.runs[1].sites} == {str(source.resolve())}
