"""Supervision: endpoint exceptions reach the caller as ActorError with the original exception
and remote traceback (sync and async endpoints); exceptions that cannot reach a caller
(BaseException, unpicklable, raised under broadcast, raised in a constructor) fail the actor;
proc death (exit code, signal) raises SupervisionError for that rank only while survivors
answer, and resolves calls already in flight; exit code 0 and a deliberate stop are stops, not
failures; a supervising actor's __supervise__ receives child failures and its return value
decides whether they escalate to the client's unhandled-fault hook (the replaced one);
detection latency is measured against a stated bound."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value, stop_mesh

pytestmark = pytest.mark.component("supervision")
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_supervision_subjects")


def _poll_s() -> float:
    return _seconds(os.environ["HYPERACTOR_MESH_SUPERVISION_POLL_FREQUENCY"])


# The detector reports within 5 poll periods (the bound of the latency case): a fault that has
# not reached the hook by then is not coming, which is how "not a failure" is observed.
def _quiet_window_s() -> float:
    return 5 * _poll_s()


@pytest.fixture(scope="module")
def workers(fault_log):
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"gpus": 3})
    yield procs.spawn("workers", subjects.Worker)
    stop_mesh(procs)


@pytest.fixture
def fresh(fault_log):
    """A 3-proc mesh of its own, for cases that kill procs or actors."""
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"gpus": 3})
    mesh = procs.spawn("victims", subjects.Worker)
    assert list(mesh.ping.call().get().values()) == [0, 1, 2]
    yield mesh
    stop_mesh(procs)


def _wait_for_fault(fault_log, before: int, needle: str) -> list[str]:
    """New entries of the fault log once one contains ``needle`` (bounded: 60 s)."""
    for _ in range(600):
        new = fault_log[before:]
        if any(needle in entry for entry in new):
            return new
        time.sleep(0.1)
    return fault_log[before:]


# ---- exceptions that reach the caller -------------------------------------------------------

def test_builtin_exceptions_become_actor_error(workers):
    """Every built-in Exception takes one path (pickled back to the caller): looped."""
    from monarch.actor import ActorError

    problems = []
    for kind, text in subjects.BUILTIN_KINDS.items():
        try:
            workers.slice(gpus=1).fail.call_one(kind).get()
            problems.append(f"{kind}: no error")
        except ActorError as exc:
            original, formatted = exc.exception, str(exc)
            if type(original).__name__ != kind or text not in str(original):
                problems.append(f"{kind}: got {type(original).__name__}: {original}")
            if "Traceback" not in formatted or "raise_named" not in formatted:
                problems.append(f"{kind}: remote traceback missing")
    assert not problems, problems
    assert list(workers.ping.call().get().values()) == [0, 1, 2], "the actors survive their exceptions"


def test_custom_exception_class_arrives_with_its_attributes(workers):
    """A class defined in the pack (shipped by value) is rebuilt on the caller with its state."""
    from monarch.actor import ActorError

    with pytest.raises(ActorError) as info:
        workers.slice(gpus=2).fail.call_one("CustomError").get()
    original = info.value.exception
    assert type(original).__name__ == "CustomError" and original.code == 7
    assert "custom failure 7" in str(info.value)


def test_chained_exception_keeps_its_cause(workers):
    from monarch.actor import ActorError

    with pytest.raises(ActorError) as info:
        workers.slice(gpus=0).fail.call_one("chained").get()
    original = info.value.exception
    assert type(original).__name__ == "RuntimeError" and str(original) == "outer"
    assert "inner" in str(info.value) and "direct cause" in str(info.value), str(info.value)


def test_async_endpoint_exception_becomes_actor_error(fault_log):
    from monarch.actor import ActorError, this_host

    procs = this_host().spawn_procs(per_host={"gpus": 2})
    try:
        mesh = procs.spawn("async_workers", subjects.AsyncWorker)
        with pytest.raises(ActorError) as info:
            mesh.slice(gpus=1).fail.call_one("ValueError").get()
        assert type(info.value.exception).__name__ == "ValueError" and "bad value 42" in str(info.value)
        assert "await the_method" in str(info.value), "not the async dispatch path"
        assert sorted(mesh.ping.call().get().values()) == [0, 1], "the async actor survives"
    finally:
        stop_mesh(procs)


def test_call_on_mesh_with_one_failing_rank(workers):
    from monarch.actor import ActorError

    with pytest.raises(ActorError) as info:
        workers.fail.call("CustomError", 2).get()
    assert type(info.value.exception).__name__ == "CustomError"
    assert workers.slice(gpus=0).fail.call_one("CustomError", 2).get() == 0, "rank 0 does not fail"
    assert list(workers.ping.call().get().values()) == [0, 1, 2]


def test_stream_delivers_the_failing_rank_and_the_others(workers):
    from monarch.actor import ActorError

    values, errors = [], []
    for fut in workers.fail.stream("ValueError", 1):
        try:
            values.append(fut.get())
        except ActorError as exc:
            errors.append(str(exc.exception))
    assert sorted(values) == [0, 2] and errors == ["bad value 42"], (values, errors)


# ---- exceptions that fail the actor -------------------------------------------------------------

def _actor_failed(mesh, rank: int) -> str:
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError

    with pytest.raises(SupervisionError) as info:
        mesh.slice(gpus=rank).ping.call_one().get()
    return str(info.value)


def test_base_exceptions_in_an_endpoint_fail_the_actor(fresh, fault_log):
    """SystemExit and KeyboardInterrupt are not Exceptions: the actor aborts (the panic path)
    and the caller gets a SupervisionError naming them, instead of an ActorError. Same path for
    both: one mesh, one rank each (actor failures; the procs stay up)."""
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError

    before = len(fault_log)
    for rank, kind in ((0, "SystemExit"), (2, "KeyboardInterrupt")):
        with pytest.raises(SupervisionError, match=rf"actor explicitly aborted(.|\n)*{kind}"):
            fresh.slice(gpus=rank).fail.call_one(kind).get()
        assert kind in _actor_failed(fresh, rank)
    assert fresh.slice(gpus=1).ping.call_one().get() == 0, "rank 1 was not involved"
    assert _wait_for_fault(fault_log, before, "victims"), "the aborted actors reach the client's hook"


def test_unpicklable_exception_fails_the_actor(fresh, fault_log):
    """An exception that cannot be pickled cannot reach its caller: the actor aborts while
    reporting it, and the caller sees both the original and the pickling error."""
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError

    before = len(fault_log)
    with pytest.raises(SupervisionError) as info:
        fresh.slice(gpus=1).fail.call_one("unpicklable").get()
    text = str(info.value)
    assert "UnpicklableError: holds a lock" in text and "lock" in text.split("During handling")[-1], text
    assert "UnpicklableError" in _actor_failed(fresh, 1)
    assert fresh.slice(gpus=0).ping.call_one().get() == 0
    _wait_for_fault(fault_log, before, "victims")


def test_exception_under_broadcast_fails_the_actor_and_reaches_the_client_hook(fresh, fault_log):
    """broadcast has no caller to hand the exception to: the actor fails and its mesh's owner
    (the client) is told through the unhandled-fault hook."""
    before = len(fault_log)
    fresh.slice(gpus=2).fail.broadcast("ValueError")
    new = _wait_for_fault(fault_log, before, "crashed_ranks=[2]")
    assert any("crashed_ranks=[2]" in e and "bad value 42" in e for e in new), new
    assert "bad value 42" in _actor_failed(fresh, 2)
    assert fresh.slice(gpus=0).ping.call_one().get() == 0


def test_constructor_failure_surfaces_on_first_call(fault_log):
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError
    from monarch.actor import this_host

    before = len(fault_log)
    procs = this_host().spawn_procs(per_host={"gpus": 1})
    try:
        mesh = procs.spawn("bad_init", subjects.BadInit, 7)
        with pytest.raises(SupervisionError, match=r"ValueError: constructor refused 7"):
            mesh.ping.call_one().get()
        new = _wait_for_fault(fault_log, before, "bad_init")
        assert any("constructor refused 7" in e for e in new), new
    finally:
        stop_mesh(procs)


def test_proc_death_inside_the_constructor_fails_only_that_rank(fault_log):
    """A proc that exits while its actor is being constructed (no exception for Monarch to
    catch, spawn never completes there): that rank's calls raise SupervisionError with the
    exit code, the other ranks were spawned and answer, and the hook hears of that rank."""
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError
    from monarch.actor import this_host

    before = len(fault_log)
    procs = this_host().spawn_procs(per_host={"gpus": 3})
    try:
        mesh = procs.spawn("dies_in_init", subjects.DiesInInit, 1, 3)
        with pytest.raises(SupervisionError, match=r"non-zero code 3"):
            mesh.slice(gpus=1).ping.call_one().get(timeout=120)
        assert [mesh.slice(gpus=r).ping.call_one().get(timeout=120) for r in (0, 2)] == [0, 2]
        new = _wait_for_fault(fault_log, before, "dies_in_init")
        assert any("dies_in_init" in e and "crashed_ranks=[1]" in e for e in new), new
    finally:
        stop_mesh(procs)


def test_actor_failure_spares_other_actors_on_the_same_procs(fault_log):
    from monarch.actor import this_host

    before = len(fault_log)
    procs = this_host().spawn_procs(per_host={"gpus": 2})
    try:
        a, b = procs.spawn("first", subjects.Worker), procs.spawn("second", subjects.Worker)
        a.slice(gpus=1).fail.broadcast("ValueError")
        _wait_for_fault(fault_log, before, "first")
        assert "bad value 42" in _actor_failed(a, 1)
        assert sorted(b.ping.call().get().values()) == [0, 1], "the other actor mesh on those procs is alive"
    finally:
        stop_mesh(procs)


def test_proc_death_fails_every_actor_on_that_proc(fault_log):
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"gpus": 2})
    try:
        a, b = procs.spawn("first", subjects.Worker), procs.spawn("second", subjects.Worker)
        pid = b.slice(gpus=0).pid.call_one().get()
        os.kill(pid, signal.SIGKILL)
        assert _wait_dead(pid)
        for mesh in (a, b):
            assert "Killed(sig=9)" in _actor_failed(mesh, 0)
            assert mesh.slice(gpus=1).ping.call_one().get() == 0
    finally:
        stop_mesh(procs)


# ---- proc death -----------------------------------------------------------------------------

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


def test_nonzero_exit_fails_only_that_rank(fresh):
    """The call that exited gets the exit code, later calls too; the whole mesh's call fails
    while survivors answer. Exit codes and ranks take one path (folded: one of each). One death
    per mesh: a second rank dying in the same mesh is reported as a time-out reaching the mesh
    controller in torchmonarch 0.7.0 (observed here, after 120 s; not what this case checks)."""
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError

    with pytest.raises(SupervisionError, match=r"exited with non-zero code 77"):
        fresh.slice(gpus=2).exit_now.call_one(77).get()
    assert "non-zero code 77" in _actor_failed(fresh, 2)
    for rank in (0, 1):
        assert fresh.slice(gpus=rank).ping.call_one().get() == 0, f"survivor rank {rank} did not answer"
    with pytest.raises(SupervisionError, match=r"non-zero code 77"):
        fresh.ping.call().get()


def test_exit_zero_is_a_stop_not_a_failure(fresh, fault_log):
    """os._exit(0): calls get a SupervisionError saying the proc stopped cleanly, and nothing
    reaches the client's unhandled-fault hook."""
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError

    before = len(fault_log)
    with pytest.raises(SupervisionError, match=r"stopped: process exited cleanly"):
        fresh.slice(gpus=1).exit_now.call_one(0).get()
    time.sleep(_quiet_window_s())
    assert "exited cleanly" in _actor_failed(fresh, 1)
    assert fresh.slice(gpus=2).ping.call_one().get() == 0
    assert not [e for e in fault_log[before:] if "exited cleanly" in e or "code 0" in e], fault_log[before:]


def test_stopping_a_mesh_is_not_a_failure(fault_log):
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError
    from monarch.actor import this_host

    before = len(fault_log)
    procs = this_host().spawn_procs(per_host={"gpus": 2})
    mesh = procs.spawn("deliberately_stopped", subjects.Worker)
    assert sorted(mesh.ping.call().get().values()) == [0, 1]
    procs.stop().get()
    with pytest.raises(SupervisionError, match=r"stopped: stopped by client"):
        mesh.slice(gpus=0).ping.call_one().get()
    with pytest.raises(RuntimeError, match=r"`ProcMesh` has already been stopped"):
        procs.spawn("too_late", subjects.Worker)
    time.sleep(_quiet_window_s())
    assert not [e for e in fault_log[before:] if "deliberately_stopped" in e or "stopped by client" in e], \
        fault_log[before:]


# Each signal takes its own path to the death report: SIGKILL cannot be caught, SIGTERM could be
# handled by the proc (Monarch does not: it dies of it), SIGSEGV is a crash (Python's default
# action, no handler). Ranks are not special to a proc mesh: one rank each.
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGTERM", "SIGSEGV"])
def test_signal_from_outside_fails_only_that_rank(fresh, sig):
    signum = int(getattr(signal, sig))
    pid = fresh.slice(gpus=1).pid.call_one().get()
    os.kill(pid, signum)
    # The signal is delivered asynchronously: a ping sent before the proc has died may still be
    # answered, so wait for the death itself (a hang guard, not a speed check).
    assert _wait_dead(pid), f"rank 1 (pid {pid}) still alive after {sig}"
    text = _actor_failed(fresh, 1)
    assert f"Killed(sig={signum})" in text, text
    for rank in (0, 2):
        assert fresh.slice(gpus=rank).ping.call_one().get() == 0, f"survivor rank {rank} did not answer"


def test_call_in_flight_resolves_when_its_proc_dies(fresh):
    """A call already running on a proc that is killed resolves with SupervisionError (a
    time-out of the 120 s wait here is a failure of this case)."""
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError

    pid = fresh.slice(gpus=1).pid.call_one().get()
    pending = fresh.slice(gpus=1).sleep.call_one(600)
    time.sleep(_poll_s())  # the call is running: the actor is inside sleep()
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(SupervisionError, match=r"Killed\(sig=9\)"):
        pending.get(timeout=120)


# Each port kind takes the death report its own way: a mesh-wide ``call`` gathers every rank
# into one ValueMesh (an accumulating port: one dead rank fails the whole result); a ``stream``
# hands out one future per rank, and torchmonarch 0.7.0 fails the stream as a whole too: no
# surviving rank's reply is delivered, every item it yields is the SupervisionError (observed:
# one item in the matrix, three from a plain client script), while the survivors answer new
# calls on their slices. The case pins that (a change shows up as a failure).
@pytest.mark.parametrize("port", ["call", "stream"])
def test_mesh_request_in_flight_when_one_proc_dies(fresh, port):
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError

    pid = fresh.slice(gpus=1).pid.call_one().get()
    nap = 4 * _poll_s()  # every rank is inside sleep() when rank 1 is killed
    if port == "call":
        pending = fresh.sleep.call(nap)
        time.sleep(_poll_s())
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(SupervisionError, match=r"Killed\(sig=9\)"):
            pending.get(timeout=120)
    else:
        # The stream's generator sends on first use and yields each rank's reply as it comes:
        # the kill lands from a timer while the loop waits.
        killer = threading.Timer(_poll_s(), os.kill, (pid, signal.SIGKILL))
        values, errors = [], []
        killer.start()
        try:
            for fut in fresh.sleep.stream(nap):
                try:
                    values.append(fut.get(timeout=120))
                except SupervisionError as exc:
                    errors.append(str(exc))
        finally:
            killer.join()
        assert not values and errors and all("Killed(sig=9)" in e for e in errors), (values, errors)
    for rank in (0, 2):
        assert fresh.slice(gpus=rank).ping.call_one().get() == 0, f"survivor rank {rank} did not answer"


def _wait_status(pid: int, status: str) -> bool:
    import psutil

    for _ in range(600):
        if psutil.Process(pid).status() == status:
            return True
        time.sleep(0.05)
    return False


def test_a_stopped_proc_is_a_hang_not_a_failure(fresh, fault_log):
    """SIGSTOP (a hung proc, not a dead one): a call to it times out and keeps its future,
    nothing reaches the hook within the quiet window, the other ranks answer, and after
    SIGCONT the same future delivers. torchmonarch 0.7.0's supervision watches for exits, not
    for progress; the case pins that (a hang detector would show up as a failure here)."""
    import psutil

    pid = fresh.slice(gpus=1).pid.call_one().get()
    before = len(fault_log)
    os.kill(pid, signal.SIGSTOP)
    try:
        assert _wait_status(pid, psutil.STATUS_STOPPED), f"pid {pid} did not stop"
        pending = fresh.slice(gpus=1).ping.call_one()
        with pytest.raises(TimeoutError):
            pending.get(timeout=2 * _poll_s())
        assert fresh.slice(gpus=2).ping.call_one().get(timeout=60) == 0, "rank 2 did not answer"
        time.sleep(_quiet_window_s())
        assert fault_log[before:] == [], fault_log[before:]
    finally:
        os.kill(pid, signal.SIGCONT)
    assert pending.get(timeout=60) == 0, "the call made while the proc was stopped was lost"


# ---- supervising actors -------------------------------------------------------------------------

def _supervisor(procs, verdict: str):
    sup = procs.spawn("supervisor", subjects.Supervisor, 2, verdict)
    sup.child_pids.call_one().get()
    return sup


def _seen_until(sup, needle: str) -> list:
    seen: list = []
    for _ in range(600):  # polled: supervision reports within the poll interval
        seen = sup.seen.call_one().get()
        if any(needle in f["report"] for f in seen):
            break
        time.sleep(0.05)
    return seen


@pytest.mark.parametrize("how", ["exit", "sigkill"])
def test_supervise_receives_mesh_failure(fault_log, how):
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"sup": 1})
    try:
        sup = _supervisor(procs, "handle")
        sup.kill_child.call_one(1, how).get()
        reason = "code 5" if how == "exit" else "sig=9"
        seen = _seen_until(sup, reason)
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


def test_an_actors_call_in_flight_resolves_when_the_callees_proc_dies(fault_log):
    """The pending reply lives in an actor's proc, not the client's: when the callee's proc is
    killed mid-call, the calling actor's future resolves with SupervisionError (no hang), the
    caller keeps answering, and its __supervise__ records the child's death."""
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"sup": 1})
    try:
        sup = _supervisor(procs, "handle")
        text = sup.call_child_while_it_dies.call_one(1, 2 * _poll_s()).get(timeout=180)
        assert text.startswith("error SupervisionError") and "Killed(sig=9)" in text, text
        assert sup.ping_child.call_one(0).get() == "ok 0", "the surviving child must answer"
        seen = _seen_until(sup, "Killed(sig=9)")
        assert any("Killed(sig=9)" in f["report"] for f in seen), seen
    finally:
        stop_mesh(procs)


def test_supervise_handling_a_child_actor_error_keeps_it_from_the_client(fault_log):
    """The child actor fails (an exception under broadcast, its proc alive); __supervise__
    returns True: the supervisor keeps running and the client's hook hears nothing."""
    from monarch.actor import this_host

    before = len(fault_log)
    procs = this_host().spawn_procs(per_host={"sup": 1})
    try:
        sup = _supervisor(procs, "handle")
        sup.kill_child.call_one(1, "raise").get()
        seen = _seen_until(sup, "bad value 42")
        assert any("child{'gpus': 1/2}" in f["report"] and "bad value 42" in f["report"] for f in seen), seen
        time.sleep(_quiet_window_s())
        assert sup.ping_child.call_one(0).get() == "ok 0"
        assert not [e for e in fault_log[before:] if "supervisor" in e], fault_log[before:]
    finally:
        stop_mesh(procs)


def test_supervise_returning_false_escalates_to_the_client(fault_log):
    """__supervise__ returns False: the supervisor fails because of its child, and that failure
    reaches the client's unhandled-fault hook."""
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError
    from monarch.actor import this_host

    before = len(fault_log)
    procs = this_host().spawn_procs(per_host={"sup": 1})
    try:
        sup = _supervisor(procs, "escalate")
        sup.kill_child.call_one(1, "raise").get()
        new = _wait_for_fault(fault_log, before, "did not handle a supervision event from its child")
        assert any("supervisor" in e and "did not handle a supervision event from its child" in e for e in new), new
        with pytest.raises(SupervisionError, match=r"child\{'gpus': 1/2\}"):
            sup.seen.call_one().get()
    finally:
        stop_mesh(procs)


def test_supervise_raising_fails_the_supervisor_and_reaches_the_client(fault_log):
    """An exception in __supervise__ itself fails the supervisor; the report carries both that
    exception and the child event it was handling, up to the client's hook."""
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError
    from monarch.actor import this_host

    before = len(fault_log)
    procs = this_host().spawn_procs(per_host={"sup": 1})
    try:
        sup = _supervisor(procs, "raise")
        sup.kill_child.call_one(1, "raise").get()
        new = _wait_for_fault(fault_log, before, "__supervise__ itself failed")
        assert any("__supervise__ itself failed" in e and "while handling a supervision event from its child" in e
                   for e in new), new
        with pytest.raises(SupervisionError, match=r"RuntimeError: __supervise__ itself failed"):
            sup.seen.call_one().get()
    finally:
        stop_mesh(procs)


def test_child_clean_exit_is_not_a_failure_for_its_supervisor(fault_log):
    """A child proc that exits with code 0 stopped: __supervise__ is not called and nothing
    reaches the client (within 5 poll periods); the other child answers."""
    from monarch.actor import this_host

    before = len(fault_log)
    procs = this_host().spawn_procs(per_host={"sup": 1})
    try:
        sup = _supervisor(procs, "handle")
        sup.kill_child.call_one(1, "exit0").get()
        time.sleep(_quiet_window_s())
        assert sup.seen.call_one().get() == [], "a clean exit was reported as a failure"
        assert sup.ping_child.call_one(0).get() == "ok 0"
        assert sup.ping_child.call_one(1).get().startswith("error SupervisionError"), "the exited child answered"
        assert not [e for e in fault_log[before:] if "supervisor" in e], fault_log[before:]
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
        new = _wait_for_fault(fault_log, before, "unhandled")
    finally:
        stop_mesh(procs)
    assert any("non-zero code 9" in e for e in new), f"the client-owned mesh failure did not reach the " \
                                                     f"(replaced) hook: {new}"


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
    bound = 5 * _poll_s()
    record_property("detection_latency_bound_s", f"{bound:.3f}")
    assert latency <= bound, f"supervision took {latency:.2f} s to see a SIGKILL (bound {bound:.2f} s)"


def _seconds(duration: str) -> float:
    """'1s' / '500ms' (humantime, as Monarch reads the variable) -> seconds."""
    import re

    m = re.fullmatch(r"\s*([0-9.]+)\s*(ms|s)\s*", duration)
    assert m, f"poll frequency {duration!r}: expected '<n>s' or '<n>ms'"
    return float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
