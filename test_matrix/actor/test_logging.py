"""Log forwarding: what the client process sees of its procs' stdout, stderr and Python logging
records under each ProcMesh.logging_option (streamed with a per-rank prefix, filtered by level,
aggregated into "[N similar log lines]", not streamed, flushed at stop), and the option's
refusals. Forwarding is a setting of the spawning process, so a separate client
(log_driver.py) runs with it and the cases read that process's stdout and stderr."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value, load_file, stop_mesh

pytestmark = pytest.mark.component("actor")
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_actor_subjects")

DRIVER = Path(__file__).with_name("log_driver.py")
driver = load_file(DRIVER, "port_matrix_actor_log_driver")
FORWARDED_LINE_LIMIT = 4096  # characters of a line the forwarder keeps (torchmonarch 0.7.0)
DRIVER_LIMIT_S = 300  # the driver spawns five proc meshes; past this it is hung and the cases fail
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# A streamed line: "[vm <proc>@<address>] [<rank>] <text>" (one whole line per record).
FORWARDED = re.compile(r"^\[vm [^\]]*\] \[(\d+)\] (.*)$")
AGGREGATED = re.compile(r"^\[(\d+) similar log lines\] \[\d+\] (.*)$")


@pytest.fixture(scope="module")
def driven(tmp_path_factory):
    """stdout and stderr of one log_driver.py run, as lines without colour codes."""
    env = dict(os.environ, HYPERACTOR_MESH_ENABLE_LOG_FORWARDING="true")
    done = subprocess.run([sys.executable, str(DRIVER)], cwd=tmp_path_factory.mktemp("log_driver"), env=env,
                          capture_output=True, text=True, timeout=DRIVER_LIMIT_S)
    assert done.returncode == 0 and "log-driver: done" in done.stdout, done.stderr[-4000:]
    return {name: ANSI.sub("", text).splitlines() for name, text in (("out", done.stdout), ("err", done.stderr))}


def _forwarded(lines: list[str], text_prefix: str) -> list[tuple[int, str]]:
    return [(int(m[1]), m[2]) for m in map(FORWARDED.match, lines) if m and m[2].startswith(text_prefix)]


def _aggregated_count(lines: list[str], text: str) -> int:
    """How many lines the aggregated groups whose shown line is ``text`` (a regex) stand for."""
    return sum(int(m[1]) for m in map(AGGREGATED.match, lines) if m and re.fullmatch(text, m[2]))


def test_streamed_stdout_lines_carry_the_rank_and_keep_each_ranks_order(driven):
    per_rank = defaultdict(list)
    for rank, text in _forwarded(driven["out"], "stream-out"):
        _, i, suffix = text.split(" ")
        assert suffix == f"r{rank}", f"line of rank {suffix} under prefix [{rank}]"
        per_rank[rank].append(int(i))
    assert dict(per_rank) == {0: [0, 1, 2, 3, 4], 1: [0, 1, 2, 3, 4]}


def test_stderr_is_streamed_to_stderr_only(driven):
    got = sorted(_forwarded(driven["err"], "stream-err"))
    assert got == [(0, "stream-err r0")] * 5 + [(1, "stream-err r1")] * 5
    assert _forwarded(driven["out"], "stream-err") == []


def test_python_logging_records_are_streamed(driven):
    assert sorted(_forwarded(driven["err"], "stream-warn")) == [(0, "stream-warn"), (1, "stream-warn")]


def test_a_multi_line_print_is_forwarded_line_by_line(driven):
    got = sorted(_forwarded(driven["out"], "stream-multi"))
    assert got == [(0, "stream-multi first"), (0, "stream-multi second r0"),
                   (1, "stream-multi first"), (1, "stream-multi second r1")]
    for rank in (0, 1):  # and in order within each rank
        texts = [t for r, t in _forwarded(driven["out"], "stream-multi") if r == rank]
        assert texts == ["stream-multi first", f"stream-multi second r{rank}"]


def test_a_long_line_is_truncated_with_a_marker(driven):
    """The forwarder keeps the first 4096 characters of a line and marks the cut; the rest of
    the line is dropped, not sent as another line."""
    text = "stream-long " + "x" * driver.LONG_LINE
    want = text[:FORWARDED_LINE_LIMIT] + "... [TRUNCATED]"
    assert sorted(_forwarded(driven["out"], "stream-long")) == [(0, want), (1, want)]


def test_level_drops_records_below_it_and_keeps_prints(driven):
    everything = driven["out"] + driven["err"]
    assert sorted(_forwarded(driven["err"], "level-error")) == [(0, "level-error"), (1, "level-error")]
    assert not any("level-warn" in line for line in everything), "a WARNING record passed an ERROR level"
    assert sorted(_forwarded(driven["out"], "level-print")) == [(0, "level-print r0"), (1, "level-print r1")]


def test_aggregation_window_groups_similar_lines(driven):
    assert _aggregated_count(driven["err"], "aggregate-line") == 6  # 3 records x 2 ranks, in one or more windows
    assert _forwarded(driven["err"], "aggregate-line") == []
    starts = [i for i, line in enumerate(driven["err"]) if line.startswith(">>> Aggregated Logs")]
    ends = [i for i, line in enumerate(driven["err"]) if line.startswith("<<< Aggregated Logs")]
    assert starts and len(starts) == len(ends) and all(s < e for s, e in zip(starts, ends))


def test_different_lines_are_separate_groups(driven):
    assert _aggregated_count(driven["err"], "aggregate-line") == 6
    assert _aggregated_count(driven["err"], "a different record altogether: 12345") == 6


def test_lines_differing_in_one_token_are_one_group_per_stream(driven):
    # "aggregate-stdout r0" and "... r1" are similar: one group of both ranks, on stdout only
    assert _aggregated_count(driven["out"], r"aggregate-stdout r[01]") == 6
    assert _aggregated_count(driven["err"], r"aggregate-stdout r[01]") == 0


def test_not_streaming_forwards_nothing_while_procs_still_print(driven):
    assert _forwarded(driven["out"], "off-line") == [] and _aggregated_count(driven["out"], "off-line") == 0
    raw = "\n".join(driven["out"])  # the procs' own stdout (inherited), lines may interleave
    assert "off-line r0" in raw and "off-line r1" in raw


def test_stop_flushes_what_the_window_holds(driven):
    # a 1000 s window never elapses in the driver: the lines come out because stop() flushes
    assert _aggregated_count(driven["err"], "flush-line") == 6


@pytest.fixture(scope="module")
def procs(fault_log):
    from monarch.actor import this_host

    mesh = this_host().spawn_procs(per_host={"gpus": 1})
    yield mesh
    stop_mesh(mesh)


def test_streaming_without_forwarding_warns_that_it_has_no_effect(procs):
    from monarch._rust_bindings.monarch_hyperactor.config import get_global_config

    assert get_global_config()["enable_log_forwarding"] is False, "this case needs the default (no forwarding)"
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        asyncio.run(procs.logging_option(stream_to_client=True))
    messages = [str(w.message) for w in seen]
    assert any(m.startswith("logging_option(stream_to_client=True) has no effect") for m in messages), messages


def test_logging_option_refusals(procs):
    for level in (-1, 256):
        with pytest.raises(ValueError, match=f"Invalid logging level: {level}"):
            asyncio.run(procs.logging_option(level=level))
    with pytest.raises(RuntimeError, match="cannot set aggregate window without streaming to client"):
        asyncio.run(procs.logging_option(stream_to_client=False, aggregate_window_sec=2))


def test_python_log_records_inside_an_actor_carry_the_actor(procs):
    """Monarch adds a filter to every logging handler in a proc: a record logged inside an
    endpoint is prefixed with the actor's identity; an empty message (structured logging) is
    left empty."""
    probe = procs.spawn("logging_probe", subjects.Probe).slice(gpus=0)
    written = probe.log_through_a_handler.call_one("record from an endpoint").get()
    prefix = r"\[actor=<root>\.<\S*Probe logging_probe\{'gpus': 0/1\}>\] "
    assert re.fullmatch(prefix + "record from an endpoint\n", written), written
    assert probe.log_through_a_handler.call_one("").get() == "\n"
