"""Accumulator folds and the Future's result accessors (torchmonarch 0.7.0, actor_mesh.py
Accumulator, future.py): ``accumulate`` starts the stream at once (bad arguments raise there)
and folds lazily in a ``returns_future`` coroutine, so a rank's error, the user's combine
raising and a mesh's supervision failure each surface from a different await of the fold;
``await`` runs the fold on the awaiting loop instead of get()'s private one. The client's
get() fold of healthy replies is test_actor_to_actor.py's."""

from __future__ import annotations

import operator
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value

pytestmark = pytest.mark.component("actor")
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_actor_subjects")


@pytest.fixture(scope="module")
def probes(procs):
    return procs.spawn("folds", subjects.Probe)


def test_a_rank_that_raises_fails_the_fold_with_its_actor_error(probes):
    from monarch.actor import Accumulator, ActorError

    with pytest.raises(ActorError) as info:
        Accumulator(probes.fail_on_rank, 0, operator.add).accumulate(1).get(timeout=60)
    assert isinstance(info.value.exception, ValueError) and str(info.value.exception) == "rank 1 refuses"
    assert Accumulator(probes.fail_on_rank, 0, operator.add).accumulate(5).get(timeout=60) == 1  # 0 + 1


def test_a_combine_that_raises_fails_the_fold_with_its_own_exception(probes):
    """The combine runs on the client inside the fold: its exception comes back as itself."""
    from monarch.actor import Accumulator

    def refuse(acc, value):
        raise KeyError(f"combine refused {value}")

    with pytest.raises(KeyError, match="combine refused"):
        Accumulator(probes.rank, 0, refuse).accumulate().get(timeout=60)


def test_wrong_arguments_raise_at_accumulate_before_any_fold(probes):
    from monarch.actor import Accumulator

    with pytest.raises(TypeError, match="missing a required argument: 'value'"):
        Accumulator(probes.echo, 0, operator.add).accumulate()


def test_a_stopped_mesh_fails_the_fold_when_it_is_observed(procs):
    """accumulate() itself returns (the stream is sent; nothing is awaited yet); the
    supervision error of the stopped mesh is raised by get()."""
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError
    from monarch.actor import Accumulator

    mesh = procs.spawn("folds_stopped", subjects.Probe)
    assert mesh.rank.call().get(timeout=60).item(gpus=1) == 1
    mesh.stop("stopped by the folds module").get()
    pending = Accumulator(mesh.rank, 0, operator.add).accumulate()
    with pytest.raises(SupervisionError, match="folds_stopped.rank\\(\\) failed"):
        pending.get(timeout=60)


def test_an_awaited_fold_runs_on_the_awaiting_loop(probes):
    import asyncio

    from monarch.actor import Accumulator

    async def fold() -> tuple[int, bool]:
        loop = asyncio.get_running_loop()
        seen: list[bool] = []

        def combine(acc, value):
            seen.append(asyncio.get_running_loop() is loop)  # combine runs inside the fold
            return acc + value

        total = await Accumulator(probes.rank, 0, combine).accumulate()
        return total, all(seen) and len(seen) == 2

    assert asyncio.run(fold()) == (1, True)


def test_exception_returns_what_result_raises(probes):
    """Future.exception() hands back the error without raising (None for a value) and
    result() raises it, for a reply's future and for a returns_future coroutine's."""
    from monarch.actor import ActorError, returns_future

    @returns_future
    async def refuse():
        raise LookupError("raised in the coroutine")

    failed_reply = probes.slice(gpus=0).fail.call_one("raised on the actor")
    error = failed_reply.exception(timeout=60)
    assert isinstance(error, ActorError) and str(error.exception) == "raised on the actor"
    with pytest.raises(ActorError):
        failed_reply.result(timeout=60)
    failed_coroutine = refuse()
    assert repr(failed_coroutine.exception(timeout=60)) == "LookupError('raised in the coroutine')"
    with pytest.raises(LookupError, match="raised in the coroutine"):
        failed_coroutine.result(timeout=60)
    ok = probes.slice(gpus=1).echo.call_one("fine")
    assert ok.exception(timeout=60) is None and ok.result(timeout=60) == "fine"
