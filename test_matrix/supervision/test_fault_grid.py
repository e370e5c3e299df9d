"""Supervision as a grid (issue 27): failure kind (exception, exit code, signal, hang under a
time-out) x where it happens (constructor, endpoint, a nested actor's constructor, while sending
to a port) x who observes it (the owner, a sibling that holds the mesh without owning it, the
client through a mesh its child owns). Only cells test_supervision.py and Monarch's own suite
do not take; each case says its cell. Behaviour pinned for torchmonarch 0.7.0 where noted.

Every case spawns its own small procs (faults are not shared); waits are bounded (60 s) and
absence is observed over the detector's 5 poll periods, as in test_supervision.py."""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value, stop_mesh

pytestmark = pytest.mark.component("supervision")
grid = load_by_value(Path(__file__).with_name("grid_subjects.py"), "port_matrix_supervision_grid")


def _quiet_window_s() -> float:
    m = re.fullmatch(r"\s*([0-9.]+)\s*(ms|s)\s*", os.environ["HYPERACTOR_MESH_SUPERVISION_POLL_FREQUENCY"])
    assert m, "poll frequency: expected '<n>s' or '<n>ms'"
    return 5 * float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)


def _wait_for(fault_log, before: int, *needles: str, one_entry: bool = False) -> list[str]:
    """New fault-log entries once every needle is in one of them, or with ``one_entry`` all in
    the same one (bounded: 60 s). A proc death fails every actor on the proc (Monarch's own
    logger actor too) in no fixed order, so "this actor died of this" needs ``one_entry``."""
    def seen(new: list[str]) -> bool:
        if one_entry:
            return any(all(n in entry for n in needles) for entry in new)
        return all(any(n in entry for entry in new) for n in needles)

    for _ in range(600):
        new = fault_log[before:]
        if seen(new):
            return new
        time.sleep(0.1)
    return fault_log[before:]


def _until(call, accept, what: str):
    """Poll ``call()`` until ``accept(result)`` (bounded: 60 s); the last result otherwise."""
    result = None
    for _ in range(300):
        result = call()
        if accept(result):
            return result
        time.sleep(0.2)
    pytest.fail(f"{what}: still {result!r} after 60 s")


@pytest.fixture
def spawn(fault_log):
    """spawn(ranks) -> a new proc mesh, stopped at the end of the case."""
    from monarch.actor import this_host

    meshes = []

    def make(ranks: int = 1):
        meshes.append(this_host().spawn_procs(per_host={"gpus": ranks}))
        return meshes[-1]

    yield make
    for procs in meshes:
        stop_mesh(procs)


def _supervision_error():
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError

    return SupervisionError


# ---- constructor x client --------------------------------------------------------------------

def test_constructor_exception_on_one_rank_spares_the_other_ranks(spawn, fault_log):
    """init x exception x client, one rank of two: rank 0 answers, rank 1's calls fail with the
    constructor's traceback (a SupervisionError: the actor never ran), the hook gets rank 1."""
    before = len(fault_log)
    mesh = spawn(2).spawn("half_built", grid.Victim, "raise", 1)
    assert mesh.slice(gpus=0).ping.call_one().get() == 0
    with pytest.raises(_supervision_error(), match=r"half_built\{'gpus': 1/2\}") as info:
        mesh.slice(gpus=1).ping.call_one().get()
    assert "constructor of rank 1 refused" in str(info.value)
    new = _wait_for(fault_log, before, "half_built")
    assert any("crashed_ranks=[1]" in e for e in new if "half_built" in e), new


def test_constructor_signal_on_one_rank_reports_the_signal(spawn, fault_log):
    """init x signal x client: a SIGSEGV in the constructor is reported as the signal (not as an
    exit code, not as an exception), for that rank only."""
    before = len(fault_log)
    mesh = spawn(2).spawn("segv_at_init", grid.Victim, "segv", 1)
    assert mesh.slice(gpus=0).ping.call_one().get() == 0
    new = _wait_for(fault_log, before, "segv_at_init")
    with pytest.raises(_supervision_error(), match=re.escape(f"Killed(sig={int(signal.SIGSEGV)})")):
        mesh.slice(gpus=1).ping.call_one().get()
    assert any("segv_at_init" in e and f"Killed(sig={int(signal.SIGSEGV)})" in e for e in new), new


def test_a_hanging_constructor_times_out_a_call_that_later_answers(spawn, fault_log):
    """init x hang x client: a call bounded below the constructor's duration raises TimeoutError
    (not a failure: nothing reaches the hook), and the same future answers once it finishes."""
    before = len(fault_log)
    mesh = spawn(1).spawn("slow_init", grid.Victim, "hang", -1, 3.0)
    pending = mesh.ping.call_one()
    with pytest.raises(TimeoutError):
        pending.get(timeout=0.5)
    assert pending.get(timeout=60) == 0
    assert not [e for e in fault_log[before:] if "slow_init" in e], fault_log[before:]


# ---- nested constructor x owner ----------------------------------------------------------------

# Two death reports: an exit code and a signal (another branch of the proc's exit status).
@pytest.mark.parametrize("mode,report", [("exit", "exited with non-zero code 7"), ("segv", "Killed(sig=11)")])
def test_nested_constructor_death_reaches_the_owner_not_the_client(spawn, fault_log, mode, report):
    """init x exit/signal x owner: the owner's __supervise__ receives the child's death (handled:
    True), its own call to the child fails with the report, the sibling rank answers, and
    nothing about the child reaches the client's hook."""
    before = len(fault_log)
    owner = spawn(1).spawn(f"owner_{mode}", grid.Owner, 2, mode, 1)
    # The dead proc also hosted Monarch's own logger actor: its record may come first (CI saw
    # "logger-...{'gpus': 1/2} ... exited with non-zero code 7" alone), so wait for the child's.
    seen = _until(lambda: owner.seen.call_one().get(),
                  lambda s: any("child{'gpus': 1/2}" in r and report in r for r in s), "owner's records")
    assert any("child{'gpus': 1/2}" in r and report in r for r in seen), seen
    answer = owner.call_children.call_one().get()
    assert answer.startswith("error SupervisionError") and "child{'gpus': 1/2}" in answer, answer
    kids = owner.children_mesh.call_one().get()
    assert kids.slice(gpus=0).ping.call_one().get() == 0
    time.sleep(_quiet_window_s())
    assert not [e for e in fault_log[before:] if "child" in e or f"owner_{mode}" in e], fault_log[before:]


def test_a_nested_constructor_hang_times_out_the_owners_call(spawn, fault_log):
    """init x hang x owner: the owner's bounded call to a child still in its constructor raises
    TimeoutError inside the owner; no record, no hook entry; the child answers once built."""
    before = len(fault_log)
    owner = spawn(1).spawn("owner_of_slow", grid.Owner, 1, "hang", -1, 3.0)
    assert owner.call_children.call_one(0.5).get() == "error TimeoutError: "
    assert owner.call_children.call_one(60).get() == "ok [0]"
    assert owner.seen.call_one().get() == []
    assert not [e for e in fault_log[before:] if "owner_of_slow" in e], fault_log[before:]


def test_a_nested_hang_times_out_inside_the_owner(spawn, fault_log):
    """hang x endpoint x owner: the owner's bounded call raises TimeoutError inside the owner, no
    __supervise__ record and no hook entry; the child answers the next call."""
    before = len(fault_log)
    owner = spawn(1).spawn("owner_waits", grid.Owner, 1)
    assert owner.child_sleep.call_one(3, 0.5).get() == "error TimeoutError"
    assert owner.child_sleep.call_one(0, 60).get() == "ok slept 0"
    assert owner.seen.call_one().get() == []
    assert not [e for e in fault_log[before:] if "owner_waits" in e], fault_log[before:]


# ---- endpoint x sibling ---------------------------------------------------------------------------

# Two deaths of the victim's proc: its own exit code, and SIGKILL from outside (another report).
DEATHS = {"exit": "exited with non-zero code 3", "sigkill": f"Killed(sig={int(signal.SIGKILL)})"}


def _kill(mesh, rank: int, how: str) -> None:
    if how == "exit":
        mesh.slice(gpus=rank).exit_now.broadcast(3)
    else:
        os.kill(mesh.slice(gpus=rank).pid.call_one().get(), signal.SIGKILL)


@pytest.mark.parametrize("how", list(DEATHS))
def test_a_sibling_sees_a_proc_death_and_stays_healthy(spawn, fault_log, how):
    """exit/signal x endpoint x sibling: an actor holding (not owning) a mesh whose rank 1 died
    gets SupervisionError with the death's report from its mesh call, and keeps answering
    afterwards (a dead proc bounces nothing back to it)."""
    before = len(fault_log)
    victims = spawn(2).spawn(f"sib_victim_{how}", grid.Victim)
    observer = spawn(1).spawn(f"sib_observer_{how}", grid.Observer)
    assert observer.call.call_one(victims).get() == "ok [0, 1]"
    _kill(victims, 1, how)
    _wait_for(fault_log, before, f"sib_victim_{how}")
    answer = observer.call.call_one(victims).get()
    assert answer.startswith("error SupervisionError") and f"sib_victim_{how}{{'gpus': 1/2}}" in answer, answer
    assert DEATHS[how] in answer, answer
    time.sleep(_quiet_window_s())
    assert observer.call.call_one(victims.slice(gpus=0)).get() == "ok [0]"
    assert not [e for e in fault_log[before:] if f"sib_observer_{how}" in e], fault_log[before:]


def test_a_sibling_sees_a_constructor_exit(spawn, fault_log):
    """init x exit x sibling: the sibling's call to a mesh whose rank 1 exited in its constructor
    fails with the exit code; the sibling stays healthy and reaches rank 0."""
    before = len(fault_log)
    victims = spawn(2).spawn("died_at_init", grid.Victim, "exit", 1)
    observer = spawn(1).spawn("init_observer", grid.Observer)
    _wait_for(fault_log, before, "died_at_init")
    answer = observer.call.call_one(victims).get()
    assert answer.startswith("error SupervisionError") and "exited with non-zero code 7" in answer, answer
    assert observer.call.call_one(victims.slice(gpus=0)).get() == "ok [0]"
    assert not [e for e in fault_log[before:] if "init_observer" in e], fault_log[before:]


def test_a_mesh_on_stopped_procs_cannot_be_handed_to_a_sibling(spawn, fault_log):
    """stop x sibling: once the client stopped the victim's procs, passing the victim's mesh to
    another actor is refused while pickling the message, on the client (nothing is sent; the
    sibling still answers), and the stop reaches no hook."""
    before = len(fault_log)
    victim_procs = spawn(1)
    victim = victim_procs.spawn("stopped_victim", grid.Victim)
    observer = spawn(1).spawn("stop_observer", grid.Observer)
    assert observer.call.call_one(victim).get() == "ok [0]"
    victim_procs.stop().get(timeout=60)
    with pytest.raises(RuntimeError, match=r"^`ProcMesh` has already been stopped$"):
        observer.call.call_one(victim)
    assert observer.call.call_one(spawn(1).spawn("fresh_victim", grid.Victim)).get() == "ok [0]"
    time.sleep(_quiet_window_s())
    assert not [e for e in fault_log[before:] if "stopped_victim" in e or "stop_observer" in e], fault_log[before:]


def test_a_sibling_calling_a_failed_actor_fails_itself(spawn, fault_log):
    """exception x endpoint x sibling: the victim actor failed (an exception under broadcast; its
    proc lives). The sibling's call gets SupervisionError, then its message is bounced as
    undeliverable and the sibling fails too (pinned for torchmonarch 0.7.0)."""
    before = len(fault_log)
    victim = spawn(1).spawn("failed_victim", grid.Victim)
    observer = spawn(1).spawn("bounced_observer", grid.Observer)
    victim.fail.broadcast()
    _wait_for(fault_log, before, "failed_victim")
    answer = observer.call.call_one(victim).get()
    assert answer.startswith("error SupervisionError") and "rank 0 failed" in answer, answer
    new = _wait_for(fault_log, before, "bounced_observer")
    assert any("bounced_observer" in e and "undeliverable message for failed_victim.ping()" in e
               or "bounced_observer" in e and "undeliverable message" in e for e in new), new
    with pytest.raises(_supervision_error(), match=r"bounced_observer"):
        observer.call.call_one(victim).get()


def test_a_sibling_times_out_on_a_hang_and_stays_healthy(spawn, fault_log):
    """hang x endpoint x sibling: the sibling's bounded call raises TimeoutError inside it; no
    failure anywhere; both actors answer afterwards."""
    before = len(fault_log)
    victim = spawn(1).spawn("hung_victim", grid.Victim)
    observer = spawn(1).spawn("patient_observer", grid.Observer)
    answer = observer.call.call_one(victim, "sleep", 0.5).get()
    assert answer == "error TimeoutError: ", answer
    assert observer.call.call_one(victim).get(timeout=60) == "ok [0]"
    assert not [e for e in fault_log[before:] if "hung_victim" in e or "patient_observer" in e], fault_log[before:]


# ---- nested endpoint x client ---------------------------------------------------------------------

@pytest.mark.parametrize("how", list(DEATHS))
def test_the_client_calling_a_dead_grandchild_gets_the_error_but_no_fault(spawn, fault_log, how):
    """exit/signal x nested x client: the client holds a mesh its child actor owns; a rank of it dies.
    The owner handles it (__supervise__ True), the client's call to that rank raises
    SupervisionError, the other rank answers the client, and the client's hook gets nothing."""
    before = len(fault_log)
    owner = spawn(1).spawn(f"grand_owner_{how}", grid.Owner, 2)
    kids = owner.children_mesh.call_one().get()
    assert sorted(kids.ping.call().get().values()) == [0, 1]
    _kill(kids, 1, how)
    _until(lambda: owner.seen.call_one().get(), lambda s: any(DEATHS[how] in r for r in s), "owner records")
    with pytest.raises(_supervision_error(), match=rf"grand_owner_{how}\{{'gpus': 0/1\}}>\.<.*child\{{'gpus': 1/2\}}"):
        kids.slice(gpus=1).ping.call_one().get()
    assert kids.slice(gpus=0).ping.call_one().get() == 0
    time.sleep(_quiet_window_s())
    assert not [e for e in fault_log[before:] if "child" in e or "grand_owner" in e], fault_log[before:]


# ---- during send x client ---------------------------------------------------------------------

def _drain(receiver, window: float) -> list:
    """Values the receiver gets until it is silent for ``window`` seconds."""
    got = []
    while True:
        try:
            got.append(receiver.recv().get(timeout=window))
        except TimeoutError:
            return got


# Three ways the sender goes: an exception (the actor fails, its proc lives and flushes), an exit
# and a SIGKILL of itself (the proc dies with an exit code or a signal: what it had not flushed is
# lost).
@pytest.mark.parametrize("then", ["raise", "exit", "kill"])
def test_values_sent_to_a_port_before_the_sender_fails(spawn, fault_log, then):
    """during send: the receiver gets what was sent, in order, and is never told of the failure
    (its port just goes silent); the failure reaches the hook. With "raise" every value arrives;
    with os._exit a prefix in order (the exit does not wait for the mailbox to flush)."""
    from monarch.actor import Channel

    before = len(fault_log)
    sender = spawn(1).spawn(f"sender_{then}", grid.Victim)
    port, receiver = Channel.open()
    sender.send_then.broadcast(port, 5, then)
    needle = {"raise": "actor explicitly aborted", "exit": "exited with non-zero code 9",
              "kill": f"Killed(sig={int(signal.SIGKILL)})"}[then]
    new = _wait_for(fault_log, before, f"sender_{then}", needle, one_entry=True)
    assert any(f"sender_{then}" in e and needle in e for e in new), new
    got = _drain(receiver, _quiet_window_s())
    if then == "raise":
        assert got == [0, 1, 2, 3, 4]
    else:
        assert got == list(range(len(got))), f"values out of order or duplicated: {got}"


# ---- endpoint x client, mesh-wide ----------------------------------------------------------------

def test_one_hanging_rank_times_out_the_mesh_call_which_completes_later(spawn, fault_log):
    """hang x endpoint x client on a mesh: a call() waits for every rank, so one rank's hang
    times it out although the others replied; the same future then completes with all ranks."""
    mesh = spawn(2).spawn("uneven", grid.Victim)
    slow = mesh.slice(gpus=1).sleep.call_one(3)
    pending = mesh.ping.call()  # queued behind rank 1's sleep there, answered at once on rank 0
    with pytest.raises(TimeoutError):
        pending.get(timeout=0.5)
    assert slow.get(timeout=60) == "slept 1"
    assert sorted(pending.get(timeout=60).values()) == [0, 1]


# ---- stop and restart semantics ---------------------------------------------------------------------

def test_stopping_procs_with_a_dead_proc_completes_and_a_new_mesh_serves(fault_log):
    """After rank 1's proc died, stopping the proc mesh still completes (the dead proc is not
    waited for), the survivor's actor then reports a stop, and restarting means new procs: a
    fresh proc mesh serves the same actor class."""
    from monarch.actor import this_host

    before = len(fault_log)
    procs = this_host().spawn_procs(per_host={"gpus": 2})
    mesh = procs.spawn("to_restart", grid.Victim)
    mesh.slice(gpus=1).exit_now.broadcast(6)
    _wait_for(fault_log, before, "to_restart")
    procs.stop().get(timeout=60)
    with pytest.raises(_supervision_error(), match=r"stopped"):
        mesh.slice(gpus=0).ping.call_one().get()
    again = this_host().spawn_procs(per_host={"gpus": 2})
    try:
        assert sorted(again.spawn("restarted", grid.Victim).ping.call().get().values()) == [0, 1]
    finally:
        stop_mesh(again)
