"""The end-of-run reaping kills only the processes the soak launched: a pid is named with its start
time, because a replica's pid, once it has exited, may belong to any process on the host."""

from __future__ import annotations

import json
import subprocess

from porting.soak.driver import _reap
from porting.soak.procs import pid_alive, same_process_alive, start_ticks


def _launch_log(out, records):
    (out / "supervisor.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def test_a_pid_now_held_by_another_process_is_not_killed(tmp_path):
    """The launch record names a pid that a later, unrelated process holds (start time differs):
    it is neither killed nor listed; the soak's own straggler (pid and start time) is killed."""
    bystander = subprocess.Popen(["sleep", "300"])
    straggler = subprocess.Popen(["sleep", "300"])
    try:
        own_start = start_ticks(straggler.pid)
        assert own_start is not None
        _launch_log(tmp_path, [
            {"event": "launch", "replica": 0, "gen": 0, "pid": bystander.pid, "start": start_ticks(bystander.pid) - 1},
            {"event": "spare", "pid": straggler.pid, "start": own_start},
            {"event": "launch", "replica": 1, "gen": 0, "pid": bystander.pid},  # no start recorded
        ])
        reaped = _reap(tmp_path)
        assert reaped["stragglers_killed"] == [straggler.pid]
        assert reaped["launched"] == [bystander.pid, straggler.pid, bystander.pid]
        assert straggler.wait(timeout=60) == -9
        assert bystander.poll() is None and pid_alive(bystander.pid)
    finally:
        for p in (bystander, straggler):
            p.kill()
            p.wait()


def test_same_process_needs_the_recorded_start_time():
    proc = subprocess.Popen(["sleep", "300"])
    try:
        start = start_ticks(proc.pid)
        assert same_process_alive(proc.pid, start)
        assert not same_process_alive(proc.pid, None)
        assert not same_process_alive(proc.pid, start + 1)
    finally:
        proc.kill()
        proc.wait()
    assert not same_process_alive(proc.pid, start)
    assert start_ticks(proc.pid) is None


def test_a_fault_injection_kills_only_the_replica_it_launched(tmp_path):
    """A kill fault (and a host loss's kills) names its victim by pid; the replica launched under
    that pid is killed, a later process holding the same pid is not."""
    from porting.soak.driver import _kill_launched

    bystander = subprocess.Popen(["sleep", "300"])
    replica = subprocess.Popen(["sleep", "300"])
    try:
        _launch_log(tmp_path, [
            {"event": "launch", "replica": 0, "gen": 0, "pid": bystander.pid, "start": start_ticks(bystander.pid) - 1},
            {"event": "launch", "replica": 1, "gen": 0, "pid": replica.pid, "start": start_ticks(replica.pid)},
        ])
        _kill_launched(tmp_path, bystander.pid)
        _kill_launched(tmp_path, replica.pid)
        _kill_launched(tmp_path, 0x7FFFFFF)  # never launched: nothing to do
        assert replica.wait(timeout=60) == -9
        assert bystander.poll() is None and pid_alive(bystander.pid)
    finally:
        for p in (bystander, replica):
            p.kill()
            p.wait()
