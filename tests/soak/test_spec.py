"""The fault schedule and the bounds derived from it (pure)."""

from __future__ import annotations

import pytest

from porting.errors import UsageError
from porting.soak.spec import (
    FAULT_KINDS,
    Fault,
    SoakSpec,
    detect_bound_s,
    downtime_bound_s,
    join_timeout_s,
    make_schedule,
    recovery_bound_s,
    rejoin_bound_s,
)


def test_test_suite_schedule_has_two_faults_with_full_recovery_windows():
    spec = SoakSpec(replicas=3, duration_s=60, fault_every_s=20).validate()
    faults = make_schedule(spec)
    assert [f.at_s for f in faults] == [20, 40]
    assert [f.kind for f in faults] == ["kill", "raise"]
    assert all(f.at_s + downtime_bound_s(spec) <= spec.duration_s for f in faults)


def test_default_schedule_rotates_kinds_and_targets():
    spec = SoakSpec().validate()
    faults = make_schedule(spec)
    assert [f.at_s for f in faults] == [20, 40, 60, 80, 100]
    assert [f.kind for f in faults] == ["kill", "raise", "collective", "kill", "raise"]
    assert [f.replica for f in faults] == [1, 2, 3, 0, 1]
    assert {f.replica for f in faults} == set(range(spec.replicas))


def test_schedule_respects_chosen_kinds_and_round_trips():
    spec = SoakSpec(replicas=2, duration_s=50, fault_every_s=10, faults=["collective"]).validate()
    faults = make_schedule(spec)
    assert len(faults) == 4 and {f.kind for f in faults} == {"collective"}
    assert [Fault.from_json(f.to_json()) for f in faults] == faults
    assert SoakSpec.from_json(spec.to_json()) == spec


def test_bounds_follow_the_schedule_not_constants():
    fast = SoakSpec(fault_every_s=10, quorum_every=5, step_period_s=0.1, timeout_s=5)
    slow = SoakSpec(fault_every_s=60, quorum_every=50, step_period_s=0.2, timeout_s=30)
    assert downtime_bound_s(fast) == 10 and downtime_bound_s(slow) == 60
    assert join_timeout_s(slow) > slow.quorum_every * slow.step_period_s  # survivors reach their next quorum
    assert detect_bound_s(slow) > detect_bound_s(fast)


def test_recovery_bound_is_detection_plus_rejoin_and_the_cli_defaults_leave_a_restart_margin():
    # the `port soak` defaults (--timeout 5, --fault-every 20, 0.1 s steps, a quorum every 5 steps)
    spec = SoakSpec(timeout_s=5, fault_every_s=20).validate()
    assert detect_bound_s(spec) == pytest.approx(6.5)  # 5 s collective timeout + 1.5 s heartbeat
    assert rejoin_bound_s(spec) == pytest.approx(8.6)  # heartbeat 1.5 + join 2 + transfer 5 + one step
    assert recovery_bound_s(spec) == pytest.approx(15.1)
    assert downtime_bound_s(spec) - recovery_bound_s(spec) == pytest.approx(4.9)  # the restart's margin
    assert recovery_bound_s(SoakSpec(timeout_s=10)) > recovery_bound_s(spec)


def test_quorum_never_lets_a_lone_restarted_replica_decide():
    assert SoakSpec(replicas=3).min_replicas == 2
    assert SoakSpec(replicas=2).min_replicas == 1


@pytest.mark.parametrize("kwargs, fragment", [
    ({"replicas": 1}, "--replicas"),
    ({"fault_every_s": 2}, "--fault-every"),
    ({"duration_s": 30, "fault_every_s": 20}, "--duration"),
    ({"quorum_every": 0}, "--quorum-every"),
    ({"step_period_s": 0}, "--step-period"),
    ({"step_period_s": 5.5}, "--step-period"),
    ({"timeout_s": 0.5}, "--timeout"),
    ({"faults": ["kill", "segfault"]}, "'segfault'"),
    ({"faults": []}, "--faults"),
])
def test_bad_specs_are_usage_errors_naming_the_argument(kwargs, fragment):
    with pytest.raises(UsageError) as info:
        SoakSpec(**kwargs).validate()
    assert fragment in str(info.value)


def test_fault_kinds_are_the_documented_ones():
    assert FAULT_KINDS == ("kill", "raise", "collective", "partition", "slow", "lighthouse_partition", "host_loss")
    assert SoakSpec().faults == ["kill", "raise", "collective"]


@pytest.mark.parametrize("changes, arg", [
    ({"faults": ["partition"]}, "--faults"),  # a network fault without simulated hosts
    ({"hosts": 1, "replicas": 2, "replicas_per_host": 2, "faults": ["partition"]}, "--hosts"),
    ({"hosts": 2, "replicas": 5, "replicas_per_host": 2}, "--replicas"),
    ({"hosts": 2, "replicas": 2, "replicas_per_host": 1, "link_fault_s": 11.0}, "--link-fault"),
    ({"hosts": 2, "replicas": 2, "replicas_per_host": 1, "link_fault_s": 0.5}, "--link-fault"),
])
def test_host_options_that_cannot_work_are_refused(changes, arg):
    with pytest.raises(UsageError, match=arg):
        SoakSpec(**{"duration_s": 40, "fault_every_s": 20, **changes}).validate()
