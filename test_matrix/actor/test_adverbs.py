"""Each messaging adverb against each failing outcome that no other case sends it through.

The adverbs differ in the reply port they open and in the receiver that turns what arrives
into the caller's value (torchmonarch 0.7.0): ``call`` opens an accumulating port that folds
one reply per rank into a ValueMesh, ``call_one`` and ``choose`` a once-port (``choose`` casts
to one actor the runtime picks, ``call_one`` checks the mesh has one actor), ``stream`` a port
whose receiver hands out one future per rank, ``broadcast`` no port at all (the reply is
dropped), and ``send`` the port the caller gives it (a channel's, all or one chosen actor).
A failing outcome is handled in each of these receivers separately: the actor's
ActorError (an endpoint that raised, a reply that could not be pickled), a reply that fails to
unpickle on the client, and the supervision error of a mesh whose constructor raised or that
was stopped. The pairs already taken elsewhere are not repeated here (the ``call_one`` column
and the ``call`` rows of the supervision outcomes are in test_lifecycle.py, test_payloads.py
and the supervision pack; ``call`` and ``stream`` of a raising endpoint in test_concurrency.py).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value, stop_mesh

pytestmark = pytest.mark.component("actor")
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_actor_subjects")


@pytest.fixture(scope="module")
def probes(procs):
    return procs.spawn("adverbs", subjects.Probe)


@pytest.fixture(scope="module")
def refused(fault_log):
    """A mesh whose constructor raised on every rank (the spawn itself completes). Its own
    procs: after a constructor error the procs take no new spawns (test_lifecycle.py)."""
    from monarch.actor import this_host

    mesh = this_host().spawn_procs(per_host={"gpus": 2})
    before = len(fault_log)
    boom = mesh.spawn("adverbs_boom", subjects.Boom, "constructor refused for the adverbs")
    boom.initialized.get()
    # The adverbs are judged against a failure the client already knows: a message sent while the
    # supervision event is still on its way is a race of its own (seen once under load in CI: the
    # first adverb waited out its 60 s), not the receiver path these cases take.
    for _ in range(600):  # bounded: 60 s
        if any("adverbs_boom" in entry and "constructor refused" in entry for entry in fault_log[before:]):
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"no supervision event for adverbs_boom's constructor error in 60 s: {fault_log[before:]}")
    yield boom
    stop_mesh(mesh)


@pytest.fixture(scope="module")
def stopped(procs):
    """A mesh that answered once and was then stopped by the client."""
    mesh = procs.spawn("adverbs_stopped", subjects.Probe)
    assert list(mesh.rank.call().get().values()) == [0, 1]
    mesh.stop("stopped by the adverbs module").get()
    return mesh


def _every_item(futures) -> list:
    """Resolve each future of a stream, keeping what each one raised."""
    out = []
    for fut in futures:
        try:
            out.append(("value", fut.get(timeout=60)))
        except Exception as exc:
            out.append((type(exc).__name__, str(exc)))
    return out


def _still_answers(probes) -> None:
    assert list(probes.rank.call().get(timeout=60).values()) == [0, 1]


def test_choose_delivers_the_endpoints_exception(probes):
    """A raising endpoint reached by ``choose``: the once-port of the chosen actor carries the
    ActorError (call_one's once-port is checked in the supervision pack, a mesh-wide port in
    test_concurrency.py)."""
    from monarch.actor import ActorError

    with pytest.raises(ActorError) as info:
        probes.fail.choose("raised under choose").get(timeout=60)
    assert isinstance(info.value.exception, ValueError), info.value
    assert str(info.value.exception) == "raised under choose"
    _still_answers(probes)


# An unpicklable reply fails on the actor while it sends into the adverb's port; what the
# caller gets is decided by that adverb's receiver (call_one: test_lifecycle.py).
UNPICKLABLE_REPLY = {
    # accumulating port: the ValueMesh fails as a whole
    "call": lambda m: m.unpicklable_reply.call().get(timeout=60),
    "choose": lambda m: m.unpicklable_reply.choose().get(timeout=60),  # once-port of one chosen actor
    "stream": lambda m: _every_item(m.unpicklable_reply.stream()),     # per-rank futures
}


@pytest.mark.parametrize("adverb", list(UNPICKLABLE_REPLY))
def test_an_unpicklable_reply_fails_the_call_not_the_actor(probes, adverb):
    from monarch.actor import ActorError

    if adverb == "stream":
        items = UNPICKLABLE_REPLY[adverb](probes)
        assert len(items) == 2, items  # one future per rank, each failed on its own
        assert all(kind == "ActorError" and "cannot pickle '_thread.lock' object" in text
                   for kind, text in items), items
    else:
        with pytest.raises(ActorError, match=r"cannot pickle '_thread\.lock' object"):
            UNPICKLABLE_REPLY[adverb](probes)
    _still_answers(probes)


def test_a_broadcast_drops_an_unpicklable_reply_without_failing_the_actor(probes, fault_log):
    """broadcast opens no port, so the return value is never pickled: no ActorError, no
    supervision event, the actor keeps its state (a raising endpoint under broadcast does fail
    the actor: test_lifecycle.py)."""
    import time

    before = len(fault_log)
    counts = list(probes.count_now.call().get(timeout=60).values())
    probes.unpicklable_reply.broadcast()
    probes.bump.broadcast()  # same sender, so it runs after the unpicklable reply was dropped
    assert list(probes.count_now.call().get(timeout=60).values()) == [c + 1 for c in counts]
    time.sleep(2.0)  # two supervision polls (1 s in the matrix): a failure would be reported by now
    assert not [f for f in fault_log[before:] if "adverbs" in f], fault_log[before:]


# A reply that pickles on the actor and fails to unpickle on the client: the error is raised
# by the receiver that loads it (call_one: test_payloads.py). call: the accumulating port hands
# back the ValueMesh unread and a value loads when it is read, so get() succeeds and reading
# raises; choose: the once-port loads the one reply in get(); stream: each future loads its own.
@pytest.mark.parametrize("adverb", ["call", "choose", "stream"])
def test_a_reply_that_fails_to_load_raises_in_the_adverbs_receiver(probes, adverb):
    endpoint = probes.reply_that_loads_badly
    if adverb == "call":
        vm = endpoint.call("reply refuses to load").get(timeout=60)
        assert type(vm).__name__ == "ValueMesh"
        with pytest.raises(ValueError, match="^reply refuses to load$"):
            list(vm.values())
    elif adverb == "choose":
        with pytest.raises(ValueError, match="^reply refuses to load$"):
            endpoint.choose("reply refuses to load").get(timeout=60)
    else:
        items = _every_item(endpoint.stream("reply refuses to load"))
        assert items == [("ValueError", "reply refuses to load")] * 2, items
    _still_answers(probes)


# A supervised mesh that cannot answer fails each adverb's port with a SupervisionError
# naming the endpoint and the cause (call: test_lifecycle.py for both causes).
SUPERVISED = {
    "call_one": lambda m: m.slice(gpus=1).rank.call_one().get(timeout=60),  # once-port on a one-actor slice
    "choose": lambda m: m.rank.choose().get(timeout=60),                    # once-port, cast to a chosen actor
    "stream": lambda m: _every_item(m.rank.stream()),                       # per-rank stream receiver
}


def _supervision_failure(mesh, name: str, adverb: str, cause: str) -> None:
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError

    if adverb == "stream":
        items = SUPERVISED[adverb](mesh)
        assert items and all(kind == "SupervisionError" and cause in text for kind, text in items), items
        assert all(f"{name}.rank() failed" in text for _, text in items), items
    else:
        with pytest.raises(SupervisionError) as info:
            SUPERVISED[adverb](mesh)
        assert f"{name}.rank() failed" in str(info.value) and cause in str(info.value), info.value


@pytest.mark.parametrize("adverb", list(SUPERVISED))
def test_a_mesh_whose_constructor_raised_fails_the_adverb(refused, adverb):
    _supervision_failure(refused, "adverbs_boom", adverb, "RuntimeError: constructor refused for the adverbs")


@pytest.mark.parametrize("adverb", list(SUPERVISED))
def test_a_stopped_mesh_fails_the_adverb(stopped, adverb):
    _supervision_failure(stopped, "adverbs_stopped", adverb, "ActorMeshController received explicit stop request")


# send(endpoint, args, kwargs, port, selection): the endpoint's reply goes to a port the caller
# opened with Channel.open() instead of the adverb's own (send to an explicit-response-port
# endpoint: test_actor_to_actor.py). The receiver sees one message per selected actor.
def _drain(receiver, n: int) -> list:
    out = []
    for _ in range(n):
        try:
            out.append(("value", receiver.recv().get(timeout=60)))
        except Exception as exc:
            out.append((type(exc).__name__, str(exc).splitlines()[0]))
    return out


def _nothing_more(receiver) -> bool:
    try:
        receiver.recv().get(timeout=1.0)  # one more would be a duplicate reply
    except TimeoutError:
        return True
    return False


def test_send_with_a_channel_port_gets_one_reply_per_actor(probes):
    from monarch.actor import Channel, send

    port, receiver = Channel.open()
    send(probes.rank, (), {}, port=port)
    assert sorted(v for _, v in _drain(receiver, 2)) == [0, 1]
    assert _nothing_more(receiver)


def test_send_choosing_one_actor_gets_one_reply(probes):
    from monarch.actor import Channel, send

    port, receiver = Channel.open()
    send(probes.rank, (), {}, port=port, selection="choose")
    [(kind, value)] = _drain(receiver, 1)
    assert kind == "value" and value in (0, 1)
    assert _nothing_more(receiver)


def test_send_of_a_raising_endpoint_delivers_the_error_among_the_replies(probes):
    from monarch.actor import Channel, send

    port, receiver = Channel.open()
    send(probes.fail_on_rank, (1,), {}, port=port)
    got = sorted(_drain(receiver, 2))
    assert got[0] == ("ActorError", "Actor call adverbs.fail_on_rank failed.") and got[1] == ("value", 0), got
    _still_answers(probes)


def test_send_to_a_once_channel_keeps_the_first_reply_only(probes):
    """Every actor replies into a once-port: the receiver takes the first, a second recv is
    refused, the other reply is dropped without failing anyone."""
    from monarch.actor import Channel, send

    port, receiver = Channel.open(once=True)
    send(probes.rank, (), {}, port=port)
    assert receiver.recv().get(timeout=60) in (0, 1)
    with pytest.raises(ValueError, match="OncePort is already used"):
        receiver.recv().get(timeout=5)
    _still_answers(probes)
