"""Calls in flight: sequential and concurrent async endpoints, many futures outstanding to one
actor and to a mesh, futures resolved out of order, Future.get(timeout=...), asyncio."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value, stop_mesh

pytestmark = pytest.mark.component("actor")
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_actor_subjects")

# An upper bound for waits that must end early; reaching it makes the case fail, never hang.
PATIENCE_S = 20.0
# How long a blocked actor stays blocked while another call must get through (slack for a loaded box).
HOLD_S = 4.0


@pytest.fixture(scope="module")
def actors(fault_log):
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"gpus": 2})
    yield procs.spawn("gate", subjects.Gate), procs.spawn("probe", subjects.Probe)
    stop_mesh(procs)


@pytest.fixture
def gate(actors):
    gates, _ = actors
    gates.slice(gpus=0).take_journal.call_one().get()
    return gates


def test_plain_async_endpoints_run_one_at_a_time(gate):
    """A plain async endpoint runs to completion before the next message: a release sent while
    ``wait`` awaits is handled after ``wait`` gave up."""
    g = gate.slice(gpus=0)
    waiting = g.wait.call_one("a", 1.0)
    released = g.release.call_one("a")
    assert (waiting.get(), released.get()) == (False, "a")
    assert g.take_journal.call_one().get() == [("start", "a"), ("end", "a", False), ("release", "a")]


def test_concurrent_endpoint_lets_a_later_call_run_while_it_awaits(gate):
    g = gate.slice(gpus=0)
    waiting = g.cwait.call_one("b", PATIENCE_S)
    released = g.crelease.call_one("b")
    assert (waiting.get(), released.get()) == (True, "b")
    assert g.take_journal.call_one().get() == [("cstart", "b"), ("crelease", "b"), ("cend", "b", True)]


def test_concurrent_endpoints_start_in_send_order_and_finish_in_release_order(gate):
    g = gate.slice(gpus=0)
    keys = [f"k{i}" for i in range(8)]
    waits = [g.cwait.call_one(k, PATIENCE_S) for k in keys]
    for k in reversed(keys):
        g.crelease.call_one(k).get()
    assert [w.get() for w in waits] == [True] * len(keys)
    journal = g.take_journal.call_one().get()
    assert [e[1] for e in journal if e[0] == "cstart"] == keys
    assert [e[1] for e in journal if e[0] == "cend"] == list(reversed(keys))


def test_get_with_timeout_raises_timeout_error_and_keeps_the_future(gate):
    g = gate.slice(gpus=0)
    pending = g.cwait.call_one("held", PATIENCE_S)  # runs until released below
    with pytest.raises(TimeoutError):
        pending.get(timeout=0.2)
    g.crelease.call_one("held").get()
    assert pending.get() is True  # the same future still delivers the endpoint's result


def test_futures_resolve_out_of_order(gate):
    slow = gate.slice(gpus=0).cwait.call_one("slow", PATIENCE_S)  # runs until released below
    fast = gate.slice(gpus=1).sleep_then.call_one(0.0, 7)
    assert fast.get(timeout=PATIENCE_S) == 7
    with pytest.raises(TimeoutError):
        slow.get(timeout=0.05)  # the earlier call is still running on the other actor
    gate.slice(gpus=0).crelease.call_one("slow").get()
    assert slow.get() is True


def test_stream_yields_replies_in_completion_order(gate):
    # rank 0 answers after rank 1; a stream hands out whichever reply came first
    got = [f.get() for f in gate.rank_after.stream([1.5, 0.0])]
    assert got == [1, 0]


def test_many_calls_in_flight_to_one_actor(actors):
    _, probes = actors
    one = probes.slice(gpus=1)
    start = one.count_now.call_one().get()
    futures = [one.bump.call_one() for _ in range(500)]
    got = [f.get() for f in reversed(futures)][::-1]  # read back to front: each future keeps its reply
    assert got == list(range(start + 1, start + 501))


def test_many_calls_in_flight_to_a_mesh(actors):
    _, probes = actors
    start = list(probes.count_now.call().get().values())
    futures = [probes.bump.call() for _ in range(100)]
    rows = [list(f.get().values()) for f in futures]
    assert rows == [[s + i for s in start] for i in range(1, 101)]


def test_async_endpoint_awaits_another_actors_reply(actors):
    gates, probes = actors
    assert gates.slice(gpus=0).ask.call_one(probes.slice(gpus=1), {"v": 3}).get() == {"v": 3}


def test_futures_are_awaitable_in_asyncio(actors):
    _, probes = actors

    async def main():
        values = await asyncio.gather(*(probes.slice(gpus=i % 2).echo.call_one(i) for i in range(20)))
        via_asyncio = await probes.slice(gpus=0).echo.call_one("x").as_asyncio()
        return values, via_asyncio

    assert asyncio.run(main()) == (list(range(20)), "x")


def test_as_asyncio_outside_a_loop_raises(actors):
    _, probes = actors
    fut = probes.slice(gpus=0).echo.call_one(1)
    with pytest.raises(RuntimeError, match="requires a running asyncio event loop"):
        fut.as_asyncio()
    assert fut.get() == 1


def test_error_reply_does_not_disturb_calls_in_flight(actors):
    from monarch.actor import ActorError

    _, probes = actors
    one = probes.slice(gpus=0)
    before = [one.echo.call_one(i) for i in range(10)]
    failing = one.fail.call_one("in the middle")
    after = [one.echo.call_one(i) for i in range(10, 20)]
    with pytest.raises(ActorError) as info:
        failing.get()
    assert isinstance(info.value.exception, ValueError) and str(info.value.exception) == "in the middle"
    assert [f.get() for f in before + after] == list(range(20))


def test_background_task_keeps_running_after_the_reply(gate):
    g = gate.slice(gpus=1)
    assert g.start_background.call_one("bg", 0.3).get() is False  # replied before the task ran
    assert g.wait.call_one("bg", PATIENCE_S).get() is True  # set by the task, not by a message
    assert g.is_set.call_one("bg").get() is True


def test_concurrent_endpoint_error_reaches_the_caller_and_the_actor_survives(gate):
    from monarch.actor import ActorError

    g = gate.slice(gpus=1)
    with pytest.raises(ActorError) as info:
        g.craise.call_one("raised in a task").get()
    assert isinstance(info.value.exception, ValueError) and str(info.value.exception) == "raised in a task"
    with pytest.raises(KeyError, match="sent through the port"):
        g.craise_by_port.call_one("sent through the port").get()
    assert g.sleep_then.call_one(0.0, 5).get() == 5


def test_invalid_timeout_is_refused(actors):
    _, probes = actors
    fut = probes.slice(gpus=0).echo.call_one(2)
    for bad in (-1, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="expected a non-negative, finite number of seconds"):
            fut.get(timeout=bad)
    assert fut.get() == 2


def test_a_future_gives_the_same_result_every_time(actors):
    from monarch.actor import ActorError

    _, probes = actors
    ok = probes.slice(gpus=0).pid.call_one()
    assert ok.get() == ok.get()
    failed = probes.slice(gpus=0).fail.call_one("twice")
    for _ in range(2):
        with pytest.raises(ActorError, match="twice"):
            failed.get()


def test_returns_future_runs_an_async_function_as_a_future(actors):
    from monarch.actor import returns_future

    _, probes = actors

    @returns_future
    async def both_pids():
        return [await probes.slice(gpus=i).pid.call_one() for i in range(2)]

    assert both_pids().get() == list(probes.pid.call().get().values())


def test_one_failing_rank_fails_call_and_one_stream_item(actors):
    from monarch.actor import ActorError

    _, probes = actors
    with pytest.raises(ActorError, match="rank 1 refuses"):
        probes.fail_on_rank.call(1).get()
    outcomes = []
    for fut in probes.fail_on_rank.stream(1):
        try:
            outcomes.append(fut.get())
        except ActorError as exc:
            outcomes.append(str(exc.exception))
    assert sorted(outcomes, key=str) == [0, "rank 1 refuses"]


def test_choose_spreads_over_the_mesh(actors):
    _, probes = actors
    # 64 independent uniform picks over 2 actors all landing on one: probability 2**-63
    assert {probes.pid.choose().get() for _ in range(64)} == set(probes.pid.call().get().values())


def test_a_blocked_sync_actor_does_not_block_another_actor_on_its_proc(actors):
    gates, probes = actors
    held = probes.slice(gpus=0).hold.call_one(HOLD_S)
    assert gates.slice(gpus=0).sleep_then.call_one(0.0, 9).get(timeout=PATIENCE_S) == 9
    with pytest.raises(TimeoutError):
        held.get(timeout=0.05)  # still holding its own thread
    assert held.get() == probes.slice(gpus=0).pid.call_one().get()


def test_sync_actors_on_different_procs_run_in_parallel(actors):
    _, probes = actors
    held = probes.slice(gpus=0).hold.call_one(HOLD_S)
    assert probes.slice(gpus=1).echo.call_one("free").get(timeout=PATIENCE_S) == "free"
    with pytest.raises(TimeoutError):
        held.get(timeout=0.05)
    held.get()


def test_blocking_get_inside_an_async_endpoint_works_and_warns(actors):
    gates, probes = actors
    got, warned = gates.slice(gpus=1).ask_blocking.call_one(probes.slice(gpus=0), "blocking").get()
    assert got == "blocking"
    assert any(w.startswith("Future.get() was called from within an active event loop") for w in warned), warned


def test_client_threads_call_concurrently(actors):
    import threading

    _, probes = actors
    results: list[list] = [[] for _ in range(6)]

    def worker(out: list) -> None:
        for i in range(30):
            out.append(probes.slice(gpus=i % 2).echo.call_one(i).get())

    threads = [threading.Thread(target=worker, args=(out,)) for out in results]
    for t in threads:
        t.start()
    for t in threads:
        t.join(PATIENCE_S * 3)
    assert not any(t.is_alive() for t in threads), "a client thread is still waiting"
    assert results == [list(range(30))] * 6
