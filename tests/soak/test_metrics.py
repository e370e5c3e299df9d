"""Analysis and invariants over a known history (built in conftest.history)."""

from __future__ import annotations

import json

import pytest

from porting.errors import InputError
from porting.soak.invariants import check, loss_ratio
from porting.soak.metrics import analyse, load_raw, read_jsonl
from porting.soak.spec import SoakSpec


def _invariants(raw):
    result = analyse(raw)
    return result, {i.name: i for i in check(SoakSpec.from_json(raw["spec"]), result, raw["run"])}


def test_fault_timeline_measures_detection_heal_and_downtime(make_history):
    raw = make_history(fault_at=40, back_at=70, period=0.1)
    result = analyse(raw)
    (fault,) = result["faults"]
    assert fault["replica"] == 1 and fault["kind"] == "kill"
    assert fault["detect_s"] == pytest.approx(0.3)
    assert fault["restarted_s"] == pytest.approx(1.0)
    assert fault["rejoin_s"] == pytest.approx(7.0 - 3.95 + 0.001, abs=1e-3)
    # down from its last commit (step 39) to its first commit after healing (step 70)
    assert fault["downtime_s"] == pytest.approx(3.1, abs=1e-3)
    assert fault["steps_missed"] == 30
    assert fault["heal_source"]["replica"] == 0 and fault["heal_source"]["checksum_match"]
    # survivors are watched for the hold bound (1 s timeout + 1.5 s heartbeat + 2 s join), here
    # longer than the victim's absence
    assert fault["window_s"] == pytest.approx(4.5)
    assert fault["survivor_commits"] == {"0": 45, "2": 45}
    assert fault["survivor_max_gap_s"] == {"0": pytest.approx(0.1), "2": pytest.approx(0.1)}
    assert result["participants_range"] == [2, 3]
    assert result["replicas"][1]["generations"] == 2
    assert result["replicas"][1]["downtime_max_s"] == pytest.approx(3.1, abs=1e-3)
    assert result["replicas"][0]["downtime_max_s"] == 0.0
    assert result["checksums"]["mismatches"] == 0 and result["checksums"]["steps_compared"] == 100


def test_all_invariants_hold_on_a_clean_history(make_history):
    _, inv = _invariants(make_history())
    assert {n: i.ok for n, i in inv.items() if not i.ok} == {}
    assert "only lo" in inv["loopback_only"].detail


@pytest.mark.parametrize("change, broken", [
    (dict(source=1), "restarts_heal_from_peer"),
    (dict(heal_checksum_ok=False), "weights_agree_after_healing"),
    (dict(decay=1.0), "loss_halves"),
    (dict(back_at=95, fault_at=20), "downtime_within_bound"),  # 7.5 s down, bound 5 s
    (dict(survivors_stall=True, fault_at=20, back_at=95), "survivors_commit_during_faults"),  # 7.5 s > 4.5 s
])
def test_each_invariant_fails_when_its_property_is_violated(make_history, change, broken):
    _, inv = _invariants(make_history(**change))
    assert not inv[broken].ok, inv[broken].detail
    assert inv["faults_injected"].ok


def test_diverging_weights_are_caught(make_history):
    raw = make_history()
    for e in raw["events"]:
        if e["replica"] == 2 and e["step"] == 80:
            e["checksum"] = "other"
    result, inv = _invariants(raw)
    assert result["checksums"]["mismatched_steps"] == [80]
    assert not inv["weights_agree_after_healing"].ok


def test_a_replica_that_never_comes_back_fails(make_history):
    raw = make_history()
    raw["events"] = [e for e in raw["events"] if not (e["replica"] == 1 and e.get("gen") == 1)]
    result, inv = _invariants(raw)
    assert result["faults"][0]["recovered"] is False
    assert not inv["restarts_heal_from_peer"].ok and not inv["downtime_within_bound"].ok


def test_exposed_listener_without_namespace_fails_loopback_only(make_history):
    raw = make_history()
    raw["run"]["network"] = {"netns": "net:[9]", "links": ["lo", "eth0"], "addresses": ["127.0.0.1/8", "10.0.0.2/24"]}
    _, inv = _invariants(raw)
    assert not inv["loopback_only"].ok and "*:4000" in inv["loopback_only"].detail
    raw["run"]["listener_snapshots"] = [{"t": raw["run"]["origin"], "listeners": ["127.0.0.1:4001", "[::1]:4002"]}]
    _, inv = _invariants(raw)
    assert inv["loopback_only"].ok


def test_skipped_fault_stragglers_and_driver_errors_fail(make_history):
    raw = make_history()
    raw["run"]["injections"].append({"id": 1, "at_s": 9.0, "kind": "raise", "replica": 2, "t": raw["run"]["origin"] + 9,
                                     "skipped": "no replica committing for 2.5 s"})
    raw["run"]["reaped"]["stragglers_killed"] = [101]
    raw["run"]["errors"] = ["RuntimeError: boom"]
    _, inv = _invariants(raw)
    assert not inv["faults_injected"].ok and "skipped" in inv["faults_injected"].detail
    assert not inv["processes_reaped"].ok
    assert not inv["supervision_handled_all"].ok


def test_loss_ratio_uses_first_and_last_tenth():
    curve = [[s, float(100 - s), 0.0] for s in range(100)]
    first, last = loss_ratio(curve)
    assert first == pytest.approx(95.5) and last == pytest.approx(5.5)
    assert loss_ratio(curve[:5]) is None


def test_load_raw_reads_files_and_skips_a_torn_last_line(tmp_path, make_history, write_logs):
    raw = make_history()
    write_logs(tmp_path, raw)
    with open(tmp_path / "steps" / "r1.jsonl", "a") as fh:
        fh.write('{"event": "step", "t": 12')  # SIGKILL mid-write
    loaded = load_raw(tmp_path, 3)
    assert len(loaded["events"]) == len(raw["events"])
    assert analyse(loaded)["faults"] == analyse(raw)["faults"]
    assert read_jsonl(tmp_path / "missing.jsonl") == []


def test_missing_run_record_is_an_input_error(tmp_path):
    (tmp_path / "spec.json").write_text(json.dumps(SoakSpec().to_json()))
    with pytest.raises(InputError, match="run.json"):
        load_raw(tmp_path, 4)


def test_max_gap_measures_the_pause_that_overlaps_the_window():
    from porting.soak.metrics import _max_gap

    times = [0.0, 0.1, 0.2, 2.7, 2.8, 2.9, 3.1, 9.0]
    assert _max_gap(times, 0.25, 3.0) == pytest.approx(2.45)  # paused from the fault (0.25) to 2.7
    assert _max_gap(times, 0.05, 3.0) == pytest.approx(2.5)  # the pause 0.2 -> 2.7 lies inside
    assert _max_gap(times, 3.0, 4.0) == pytest.approx(5.9)  # a pause that begins in the window counts
    assert _max_gap(times, 9.5, 10.0) is None  # nothing committed after the fault at all
