"""Actors talking to actors: a mesh passed as an argument or held from construction, what an
endpoint knows about itself (context, rank, size, name), state across calls, explicit response
ports (immediate, deferred, exception), Accumulator, once and ranked channels, a failure
reaching the calling actor, and a child actor spawned from inside an endpoint."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value, stop_mesh

pytestmark = pytest.mark.component("actor")
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_actor_subjects")


@pytest.fixture(scope="module")
def meshes(fault_log):
    """A 2 x 2 Probe mesh, and a Caller on its own proc that holds that mesh from construction."""
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"x": 2, "y": 2})
    caller_procs = this_host().spawn_procs(per_host={"c": 1})
    probes = procs.spawn("a2a", subjects.Probe)
    caller = caller_procs.spawn("caller", subjects.Caller, probes).slice(c=0)
    yield probes, caller
    stop_mesh(caller_procs)
    stop_mesh(procs)


def test_an_actor_calls_a_mesh_it_was_given_as_an_argument(meshes):
    probes, caller = meshes
    assert caller.ranks_of.call_one(probes).get() == [0, 1, 2, 3]
    assert caller.ranks_of.call_one(probes.slice(y=1)).get() == [0, 1]  # a slice travels as a slice


def test_an_actor_uses_the_mesh_it_holds_from_construction(meshes):
    probes, caller = meshes
    assert caller.sum_ranks_of_target.call_one().get() == 6
    before = list(probes.count_now.call().get().values())
    assert caller.bump_target.call_one().get() == [b + 1 for b in before]


def test_endpoint_knows_its_rank_size_and_name(meshes):
    probes, _ = meshes
    seen = list(probes.where.call().get().values())
    assert [w["rank"] for w in seen] == [0, 1, 2, 3]
    assert [w["point"] for w in seen] == [{"x": x, "y": y} for x in range(2) for y in range(2)]
    assert all(w["size"] == {"x": 2, "y": 2} for w in seen)
    assert all(w["name"].startswith("a2a<") and w["name"] == w["actor_id"] for w in seen)
    assert len({w["actor_id"] for w in seen}) == 4 and len({w["pid"] for w in seen}) == 4


def test_state_is_kept_per_actor_across_calls(meshes):
    probes, _ = meshes
    before = {(p["x"], p["y"]): v for p, v in probes.count_now.call().get().items()}
    one = probes.slice(x=1, y=0)
    assert [one.bump.call_one().get() for _ in range(3)] == [before[(1, 0)] + i for i in (1, 2, 3)]
    after = {(p["x"], p["y"]): v for p, v in probes.count_now.call().get().items()}
    assert {k: after[k] - before[k] for k in before} == {(0, 0): 0, (0, 1): 0, (1, 0): 3, (1, 1): 0}


def test_explicit_response_port_answers_call_one_and_call(meshes):
    probes, _ = meshes
    assert probes.slice(x=0, y=1).answer_by_port.call_one(4).get() == 40
    assert list(probes.answer_by_port.call(4).get().values()) == [40, 41, 42, 43]


def test_explicit_response_port_exception_reaches_the_caller(meshes):
    probes, _ = meshes
    with pytest.raises(KeyError, match="refused by port"):
        probes.slice(x=0, y=0).fail_by_port.call_one("refused by port").get()
    assert probes.slice(x=0, y=0).echo.call_one("after").get() == "after"


def test_deferred_reply_through_a_kept_port(meshes):
    probes, _ = meshes
    one = probes.slice(x=1, y=1)
    parked = one.park.call_one("k")
    with pytest.raises(TimeoutError):
        parked.get(timeout=0.2)  # no reply until another endpoint answers through the port
    assert one.answer_parked.call_one("k", {"late": True}).get() == 0
    assert parked.get() == {"late": True}


def test_accumulator_folds_the_replies(meshes):
    from monarch.actor import Accumulator

    probes, _ = meshes
    assert Accumulator(probes.rank, 0, lambda acc, r: acc + r).accumulate().get() == 6
    points = Accumulator(probes.point, [], lambda acc, p: acc + [(p["x"], p["y"])]).accumulate().get()
    assert sorted(points) == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_once_channel_delivers_one_value(meshes):
    from monarch.actor import Channel

    probes, _ = meshes
    port, receiver = Channel.open(once=True)
    probes.slice(x=0, y=0).produce.call_one(port, 1).get()
    assert receiver.recv().get() == (0, 0)


def test_ranked_channel_tags_each_value_with_the_senders_rank(meshes):
    from monarch.actor import Channel, send

    probes, _ = meshes
    port, receiver = Channel.open_ranked()
    send(probes.answer_by_port, (5,), {}, port=port)
    got = sorted(receiver.recv().get() for _ in range(4))
    assert got == [(0, 50), (1, 51), (2, 52), (3, 53)]


def test_an_endpoint_failure_reaches_the_calling_actor_as_actor_error(meshes):
    probes, caller = meshes
    got = caller.failure_of.call_one(probes.slice(x=0, y=1), "raised for the caller").get()
    assert got == "ValueError: raised for the caller"


def test_an_actor_spawns_a_child_on_its_own_proc(meshes):
    _, caller = meshes
    own_pid, child_pids = caller.spawn_child_pids.call_one().get()
    assert child_pids == [own_pid]
    child = caller.child_mesh.call_one().get()  # the child mesh travels to the client and answers it
    assert list(child.pid.call().get().values()) == [own_pid]


def test_an_actor_spawns_on_a_proc_mesh_it_is_given(meshes):
    """Both a proc mesh already in use and one still being created (sent before it resolved)."""
    from monarch.actor import this_host

    _, caller = meshes
    ready = this_host().spawn_procs(per_host={"p": 2})
    ready.initialized.get()
    pending = this_host().spawn_procs(per_host={"p": 2})  # passed on at once, not awaited
    try:
        for name, procs in (("ready", ready), ("pending", pending)):
            pids = caller.spawn_on.call_one(procs).get()
            assert len(set(pids)) == 2 and caller.pid.call_one().get() not in pids, name
    finally:
        stop_mesh(pending)
        stop_mesh(ready)


def test_a_port_opened_by_an_actor_is_usable_by_the_client(meshes):
    probes, _ = meshes
    one = probes.slice(x=1, y=1)
    port = one.open_inbox.call_one().get()
    for i in range(3):
        port.send({"n": i})
    assert one.read_inbox.call_one(3).get() == [{"n": 0}, {"n": 1}, {"n": 2}]


def test_an_exception_sent_through_a_channel_is_raised_by_recv(meshes):
    from monarch.actor import Channel

    port, receiver = Channel.open()
    port.send("first")
    port.exception(LookupError("through the channel"))
    assert receiver.recv().get() == "first"
    with pytest.raises(LookupError, match="through the channel"):
        receiver.recv().get()


def test_a_once_port_takes_one_value(meshes):
    from monarch.actor import Channel

    probes, _ = meshes
    port, receiver = Channel.open(once=True)
    assert probes.slice(x=0, y=0).send_twice.call_one(port).get() == "RuntimeError: OncePortRef already used"
    assert receiver.recv().get() == 1
    with pytest.raises(ValueError, match="OncePort is already used"):
        receiver.recv().get()


def test_an_actor_spawns_and_stops_its_own_proc_mesh(meshes):
    probes, _ = meshes
    one = probes.slice(x=0, y=0)
    inner = one.pids_of_own_proc_mesh.call_one().get()
    assert len(set(inner)) == 2 and one.pid.call_one().get() not in inner
