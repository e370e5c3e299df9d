"""porting.matrix.procs: which processes a run left, and when "none" is believed."""

from __future__ import annotations

import os
import subprocess
import uuid

from porting.matrix import procs


def test_a_tagged_process_is_found_and_an_untagged_one_is_not():
    tag = uuid.uuid4().hex
    tagged = subprocess.Popen(["sleep", "300"], env={**os.environ, procs.TAG_ENV: tag})
    other = subprocess.Popen(["sleep", "300"], env={**os.environ, procs.TAG_ENV: tag + "x"})
    try:
        assert [p.pid for p in procs.tagged_processes(tag)] == [tagged.pid]
    finally:
        for p in (tagged, other):
            p.kill()
            p.wait()
    assert procs.tagged_processes(tag) == []  # reaped: gone; a zombie would not count either


class _Clock:
    """time for procs: each reading one second later; sleeping does nothing."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 1.0
        return self.now

    def sleep(self, seconds: float) -> None:
        pass


def test_one_empty_scan_is_not_taken_as_proof_that_nothing_is_left(monkeypatch):
    """A scan was seen to miss a live tagged process once under load: "nothing left" needs
    CONFIRM_SCANS empty scans in a row; a process found after an empty scan is still reported."""
    leftover = procs.Leftover(pid=12345, cmdline="sleep 300")
    scans = iter([[]] * (procs.CONFIRM_SCANS - 1) + [[leftover]] * 100)
    monkeypatch.setattr(procs, "tagged_processes", lambda run_id, tag_env=procs.TAG_ENV: next(scans))
    monkeypatch.setattr(procs, "time", _Clock())
    assert procs.wait_for_exit("r", grace_s=10) == [leftover]


def test_nothing_left_is_believed_after_the_confirming_scans(monkeypatch):
    calls = []
    monkeypatch.setattr(procs, "tagged_processes", lambda run_id, tag_env=procs.TAG_ENV: calls.append(1) or [])
    monkeypatch.setattr(procs, "time", _Clock())
    assert procs.wait_for_exit("r", grace_s=3600) == []
    assert len(calls) == procs.CONFIRM_SCANS
