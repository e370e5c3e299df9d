"""Proc meshes of several shapes: call, call_one, broadcast, choose, stream, channels,
ValueMesh, slicing, per-sender ordering."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value, stop_mesh

pytestmark = pytest.mark.component("actor")
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_actor_subjects")

# Shapes that change the behaviour exercised: "1" a singleton mesh (call_one accepted, a cast
# with no fan-out); "4" a cast over several ranks of one dimension; "2x3" a cast over two
# dimensions of uneven extents (a slice along x and along y gives sub-meshes of different
# sizes, points have two coordinates). A 2x2 mesh took the 2x3 paths with equal extents.
SHAPES = {"1": {"gpus": 1}, "4": {"gpus": 4}, "2x3": {"x": 2, "y": 3}}


@pytest.fixture(scope="module", params=list(SHAPES))
def mesh(request, fault_log):
    from monarch.actor import this_host

    shape = SHAPES[request.param]
    procs = this_host().spawn_procs(per_host=shape)
    probes = procs.spawn("probe", subjects.Probe)
    yield shape, probes
    stop_mesh(procs)


def _size(shape) -> int:
    n = 1
    for v in shape.values():
        n *= v
    return n


def _points(shape):
    """Every coordinate of the mesh, row-major (the rank order)."""
    out = [{}]
    for dim, extent in shape.items():
        out = [dict(p, **{dim: i}) for p in out for i in range(extent)]
    return out


def test_call_returns_one_value_per_rank(mesh):
    shape, probes = mesh
    values = list(probes.rank.call().get().values())
    assert values == list(range(_size(shape)))


def test_valuemesh_points_match_coordinates(mesh):
    shape, probes = mesh
    vm = probes.point.call().get()
    items = list(vm.items())
    assert len(items) == _size(shape)
    for point, coords in items:
        assert {k: point[k] for k in shape} == coords
    assert list(vm.values()) == [v for _, v in items]


def test_call_one_on_every_point(mesh):
    shape, probes = mesh
    seen = []
    for coords in _points(shape):
        point = probes.slice(**coords)
        assert point.point.call_one().get() == {}  # indexing a dimension removes it
        seen.append(point.pid.call_one().get())
    assert seen == list(probes.pid.call().get().values())  # the points are the ranks, in order


def test_call_one_rejects_a_multi_actor_mesh(mesh):
    shape, probes = mesh
    if _size(shape) == 1:
        assert probes.rank.call_one().get() == 0
        return
    with pytest.raises(ValueError, match=f"call_one requires exactly 1 actor, but mesh has {_size(shape)}"):
        probes.rank.call_one().get()


def test_broadcast_reaches_every_actor_once(mesh):
    shape, probes = mesh
    before = list(probes.count_now.call().get().values())
    probes.bump.broadcast()
    after = list(probes.count_now.call().get().values())  # same sender: ordered after the broadcast
    assert [a - b for a, b in zip(after, before)] == [1] * _size(shape)


def test_choose_reaches_exactly_one_actor(mesh):
    shape, probes = mesh
    before = list(probes.count_now.call().get().values())
    probes.bump.choose().get()
    after = list(probes.count_now.call().get().values())
    assert sum(a - b for a, b in zip(after, before)) == 1


def test_stream_yields_every_rank_once(mesh):
    shape, probes = mesh
    got = sorted(f.get() if hasattr(f, "get") else f for f in probes.rank.stream())
    assert got == list(range(_size(shape)))


def test_channel_streams_values_in_send_order(mesh):
    from monarch.actor import Channel

    shape, probes = mesh
    port, receiver = Channel.open()
    n = 5
    probes.produce.call(port, n).get()
    got = [receiver.recv().get() for _ in range(n * _size(shape))]
    per_sender: dict[int, list[int]] = {}
    for rank, i in got:
        per_sender.setdefault(rank, []).append(i)
    assert per_sender == {rank: list(range(n)) for rank in range(_size(shape))}  # every rank, in send order


def test_slice_along_each_dimension(mesh):
    shape, probes = mesh
    for dim, extent in shape.items():
        for i in range(extent):
            sub = probes.slice(**{dim: i})
            assert len(list(sub.rank.call().get().values())) == _size(shape) // extent
        if extent > 1:
            ranged = probes.slice(**{dim: slice(0, extent - 1)})
            assert len(list(ranged.rank.call().get().values())) == _size(shape) // extent * (extent - 1)


def test_per_sender_order_is_kept(mesh):
    shape, probes = mesh
    probes.take_log.call().get()
    for i in range(200):
        probes.record.broadcast("client", i)
    logs = list(probes.take_log.call().get().values())
    # one log per rank: `all()` over no logs (or over fewer ranks) would accept a lost broadcast
    assert len(logs) == _size(shape), f"{len(logs)} logs from {_size(shape)} ranks"
    assert all([seq for _, seq in log] == list(range(200)) for log in logs)


def test_two_senders_each_keep_their_order(mesh):
    from monarch.actor import this_host

    shape, probes = mesh
    probes.take_log.call().get()
    relay_procs = this_host().spawn_procs(per_host={"r": 1})
    try:
        relay = relay_procs.spawn("relay", subjects.Relay, probes)
        fut = relay.send_seq.call_one("relay", 100)
        for i in range(100):
            probes.record.broadcast("client", i)
        fut.get()
        logs = list(probes.take_log.call().get().values())
    finally:
        stop_mesh(relay_procs)
    assert len(logs) == _size(shape), f"{len(logs)} logs from {_size(shape)} ranks"
    for log in logs:
        assert {who for who, _ in log} == {"client", "relay"} and len(log) == 200, log[:10]
        for sender in ("client", "relay"):
            seq = [s for who, s in log if who == sender]
            assert seq == list(range(100)), f"{sender} order broken: {seq[:10]}..."


def test_each_rank_is_its_own_process(mesh):
    shape, probes = mesh
    pids = list(probes.pid.call().get().values())
    assert len(set(pids)) == _size(shape)
    assert os.getpid() not in pids
