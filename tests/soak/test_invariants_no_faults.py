"""A soak in which no fault was injected and analysed fails its fault invariants with a reason
(it used to end in a ValueError from max() over no faults)."""

from __future__ import annotations

from porting.soak.invariants import check
from porting.soak.spec import SoakSpec


def test_no_analysed_fault_fails_every_fault_invariant_without_crashing():
    result = {"faults": [], "checksums": {"mismatches": 0, "steps_compared": 0}, "loss_curve": []}
    run = {"injections": [], "network": {}, "listener_snapshots": [], "reaped": {}}
    by_name = {i.name: i for i in check(SoakSpec(), result, run)}
    for name in ("faults_injected", "survivors_commit_during_faults", "restarts_heal_from_peer",
                 "downtime_within_bound", "faults_detected"):
        assert not by_name[name].ok, name
    assert by_name["faults_detected"].detail == "no fault was analysed"
    assert by_name["supervision_handled_all"].ok
