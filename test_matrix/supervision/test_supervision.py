"""Supervision: endpoint exceptions reach the caller as ActorError with the original exception
and remote traceback; proc death raises SupervisionError for that rank only while survivors
answer; a supervising actor's __supervise__ receives the MeshFailure; the client's
unhandled-fault hook is the replaced one; detection latency is measured."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value, stop_mesh

pytestmark = pytest.mark.component("supervision")
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_supervision_subjects")

KINDS = ["ValueError", "KeyError", "ZeroDivisionError", "AssertionError", "RuntimeError", "TypeError",
         "CustomError", "chained"]


@pytest.fixture(scope="module")
def workers(fault_log):
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"gpus": 3})
    yield procs.spawn("workers", subjects.Worker)
    stop_mesh(procs)


@pytest.fixture
def fresh(fault_log):
    """A 3-proc mesh of its own, for cases that kill procs."""
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"gpus": 3})
    yield procs.spawn("victims", subjects.Worker)
    stop_mesh(procs)


def _expected_type(kind: str) -> str:
    return {"chained": "RuntimeError"}.get(kind, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_call_one_exception_becomes_actor_error(workers, kind):
    from monarch.actor import ActorError

    with pytest.raises(ActorError) as info:
        workers.slice(gpus=1).fail.call_one(kind).get()
    original = info.value.exception
    assert type(original).__name__ == _expected_type(kind)
    text = str(info.value)
    assert "Traceback" in text and "raise_named" in text, "remote traceback missing"
    if kind == "CustomError":
        assert original.code == 7
    if kind == "chained":
        assert "inner" in text
    assert list(workers.ping.call().get().values()) == [0, 1, 2], "other actors must keep answering"


@pytest.mark.parametrize("kind", ["ValueError", "CustomError"])
def test_call_on_mesh_with_one_failing_rank(workers, kind):
    from monarch.actor import ActorError

    with pytest.raises(ActorError) as info:
        workers.fail.call(kind, 2).get()
    assert type(info.value.exception).__name__ == kind
    assert workers.slice(gpus=0).fail.call_one(kind, 2).get() == 0, "rank 0 does not fail"
    assert list(workers.ping.call().get().values()) == [0, 1, 2]


def _wait_dead(pid: int) -> bool:
    import psutil

    for _ in range(600):
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def _assert_rank_dead_others_alive(mesh, dead: int) -> str:
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError

    with pytest.raises(SupervisionError) as info:
        mesh.slice(gpus=dead).ping.call_one().get()
    for rank in range(3):
        if rank != dead:
            assert mesh.slice(gpus=rank).ping.call_one().get() == 0, f"survivor rank {rank} did not answer"
    return str(info.value)


@pytest.mark.parametrize("code", [1, 3, 77])
@pytest.mark.parametrize("rank", [0, 2])
def test_os_exit_fails_only_that_rank(fresh, rank, code):
    fresh.slice(gpus=rank).exit_now.broadcast(code)
    text = _assert_rank_dead_others_alive(fresh, rank)
    assert f"code {code}" in text, text


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGTERM", "SIGSEGV"])
@pytest.mark.parametrize("rank", [0, 2])
def test_signal_from_outside_fails_only_that_rank(fresh, rank, sig):
    pid = fresh.slice(gpus=rank).pid.call_one().get()
    os.kill(pid, getattr(signal, sig))
    # The signal is delivered asynchronously: a ping sent before the proc has died may still be
    # answered, so wait for the death itself (a hang guard, not a speed check).
    assert _wait_dead(pid), f"rank {rank} (pid {pid}) still alive after {sig}"
    text = _assert_rank_dead_others_alive(fresh, rank)
    assert "failed" in text.lower() or "stopped" in text.lower(), text


def test_self_signal_is_reported_like_outside_kill(fresh):
    fresh.slice(gpus=1).signal_self.broadcast(int(signal.SIGKILL))
    text = _assert_rank_dead_others_alive(fresh, 1)
    assert "sig=9" in text or "Killed" in text, text


@pytest.mark.parametrize("how", ["exit", "sigkill"])
def test_supervise_receives_mesh_failure(fault_log, how):
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"sup": 1})
    try:
        sup = procs.spawn("supervisor", subjects.Supervisor, 2)
        sup.child_pids.call_one().get()
        sup.kill_child.call_one(1, how).get()
        reason = "code 5" if how == "exit" else "sig=9"
        seen: list = []
        for _ in range(600):  # polled: supervision reports within the poll interval
            seen = sup.seen.call_one().get()
            if any(reason in f["report"] for f in seen):
                break
            time.sleep(0.05)
        assert seen, "__supervise__ was not called"
        assert {f["type"] for f in seen} == {"MeshFailure"}
        # Rank 1 of each mesh on the dead proc (the child mesh and Monarch's own per-proc actors).
        hits = [f for f in seen if reason in f["report"]]
        assert hits and all("1/2" in f["report"] for f in hits), seen
        assert not any("0/2" in f["report"] for f in seen), "rank 0 did not fail"
        assert sup.ping_child.call_one(0).get() == "ok 0", "the surviving child must answer"
        assert sup.ping_child.call_one(1).get().startswith("error SupervisionError")
    finally:
        stop_mesh(procs)


def test_client_unhandled_fault_hook_is_the_replacement(fault_log):
    import monarch.actor
    from monarch.actor import this_host

    assert monarch.actor.unhandled_fault_hook.__name__ == "record"
    before = len(fault_log)
    procs = this_host().spawn_procs(per_host={"gpus": 1})
    try:
        w = procs.spawn("unhandled", subjects.Worker)
        w.exit_now.broadcast(9)
        for _ in range(600):
            if len(fault_log) > before:
                break
            time.sleep(0.05)
    finally:
        stop_mesh(procs)
    assert len(fault_log) > before, "the client-owned mesh failure did not reach the (replaced) hook"


def test_detection_latency_with_lowered_poll_frequency(fresh, record_property):
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError

    assert fresh.slice(gpus=0).poll_setting.call_one().get() == os.environ["HYPERACTOR_MESH_SUPERVISION_POLL_FREQUENCY"]
    pid = fresh.slice(gpus=1).pid.call_one().get()
    start = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(SupervisionError):
        fresh.slice(gpus=1).ping.call_one().get()
    latency = time.monotonic() - start
    record_property("supervision_poll_frequency", os.environ["HYPERACTOR_MESH_SUPERVISION_POLL_FREQUENCY"])
    record_property("detection_latency_s", f"{latency:.3f}")
    # The stated bound: 5 poll periods (5 s at the 1 s set in conftest), half Monarch's default
    # period (~10 s), so a detector that ignored the lowered frequency, or one that never noticed
    # the kill until the call's own time-out, fails. Measured here: ~1.0 s on a loaded 2-core VM.
    bound = 5 * _seconds(os.environ["HYPERACTOR_MESH_SUPERVISION_POLL_FREQUENCY"])
    record_property("detection_latency_bound_s", f"{bound:.3f}")
    assert latency <= bound, f"supervision took {latency:.2f} s to see a SIGKILL (bound {bound:.2f} s)"


def _seconds(duration: str) -> float:
    """'1s' / '500ms' (humantime, as Monarch reads the variable) -> seconds."""
    import re

    m = re.fullmatch(r"\s*([0-9.]+)\s*(ms|s)\s*", duration)
    assert m, f"poll frequency {duration!r}: expected '<n>s' or '<n>ms'"
    return float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
