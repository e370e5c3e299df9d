"""How the client learns the result of a remote function it sends to the tensor engine
(torchmonarch 0.7.0, monarch/common/remote.py and _src/actor/endpoint.py _do_propagate), for
the modes a ``propagate`` callable does not take (those are test_tensor_engine.py's): no
propagate ("cached": the first call with given input metadata asks a worker for the result's
metadata, later calls reuse it, other metadata asks again, and a function that fails there
fails the call itself, synchronously), ``"inspect"`` (no result tensor on the client) and
``"mocked"`` (refused on the client).
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.component("tensor_engine")
FETCH_TIMEOUT_S = 120  # a stuck fetch fails its case instead of stalling the run


def fetched(value):
    from monarch import fetch_shard

    return fetch_shard(value, hosts=0, gpus=1).result(timeout=FETCH_TIMEOUT_S).tolist()


def test_cached_propagation_learns_the_result_per_input_metadata(dm):
    import torch
    from monarch import remote

    relu = remote("torch.nn.functional.relu")
    first = relu(torch.full((3,), -1.0))
    again = relu(torch.full((3,), 2.0))
    wider = relu(torch.full((4,), 2.0, dtype=torch.float64))
    assert [tuple(t.shape) for t in (first, again, wider)] == [(3,), (3,), (4,)]
    assert wider.dtype == torch.float64
    assert (fetched(first), fetched(again), fetched(wider)) == ([0.0] * 3, [2.0] * 3, [2.0] * 4)


def test_cached_propagation_of_a_failing_function_fails_the_call(dm):
    import torch
    from monarch import remote
    from monarch.mesh_controller import RemoteException

    missing = remote("torch.nn.functional.no_such_function")
    with pytest.raises(RemoteException, match="remote function has failed"):
        missing(torch.ones(3))  # raised by the call: propagation waits for the worker
    assert fetched(torch.ones(2) + 1) == [2.0, 2.0]


def test_inspect_propagation_gives_the_client_no_result(dm):
    import torch
    from monarch import remote

    relu = remote("torch.nn.functional.relu", propagate="inspect")
    assert relu(torch.full((3,), -1.0)) is None
    assert fetched(torch.ones(2) * 2) == [2.0, 2.0]


def test_mocked_propagation_is_refused_on_the_client(dm):
    import torch
    from monarch import remote

    relu = remote("torch.nn.functional.relu", propagate="mocked")
    with pytest.raises(NotImplementedError, match="mocked propagation"):
        relu(torch.ones(3))


# ---- what fake-tensor propagation cannot know (issue 27) ------------------------------------------
# torch ops run on the client's fake tensors first; an op whose output shape depends on the data,
# or that turns a value into a Python scalar, cannot be propagated and is refused on the client
# (two different torch exceptions), before anything is sent: the mesh stays usable.

def test_an_op_with_a_data_dependent_shape_is_refused_on_the_client(dm):
    import torch
    from torch._subclasses.fake_tensor import DynamicOutputShapeException

    x = torch.ones(3) * (dm.rank("gpus") + 1)
    wrong = []
    for name, op in {"nonzero": lambda: torch.nonzero(x > 1), "boolean mask": lambda: x[x > 1],
                     "unique": lambda: torch.unique(x)}.items():
        try:
            op()
            wrong.append(f"{name}: accepted")
        except DynamicOutputShapeException as exc:
            if not re.search(r"aten\.(nonzero|_unique2)", str(exc)):
                wrong.append(f"{name}: {exc}")
    assert not wrong, wrong
    assert fetched(x * 2) == [4.0, 4.0, 4.0]


def test_a_python_scalar_from_a_mesh_tensor_is_refused_on_the_client(dm):
    """.item() and bool() need the value: DataDependentOutputException (_local_scalar_dense)."""
    import torch
    from torch._subclasses.fake_tensor import DataDependentOutputException

    x = torch.ones(3) * (dm.rank("gpus") + 1)
    for op in (lambda: x.sum().item(), lambda: bool(x.sum() > 0), lambda: float(x[0])):
        with pytest.raises(DataDependentOutputException, match=r"aten\._local_scalar_dense"):
            op()
    assert fetched(x.sum()) == 6.0


def test_item_assignment_writes_through_a_view_on_every_worker(dm):
    """x[0] = 7 is a copy into a view of the worker's tensor (aliasing on the worker, not a new
    value): the base tensor changes on every rank, the other elements keep their rank's value."""
    import torch
    from monarch import fetch_shard

    x = torch.ones(3) * (dm.rank("gpus") + 1)
    x[0] = 7.0
    x[1:] += 10
    got = [fetch_shard(x, hosts=0, gpus=g).result(timeout=FETCH_TIMEOUT_S).tolist() for g in (0, 1)]
    assert got == [[7.0, 11.0, 11.0], [7.0, 12.0, 12.0]]


def test_a_remote_function_returning_a_python_value_is_fetched_from_one_worker(dm):
    """call_on_shard_and_fetch of a function whose result is not a tensor (propagate returns a
    placeholder int): the worker's own value comes back, per worker (their process ids)."""
    import os

    from monarch import call_on_shard_and_fetch, remote

    getpid = remote("os.getpid", propagate=lambda: 0)
    pids = [call_on_shard_and_fetch(getpid, shard={"hosts": 0, "gpus": g}).result(timeout=FETCH_TIMEOUT_S)
            for g in (0, 1)]
    assert all(isinstance(p, int) and p > 1 for p in pids) and len(set(pids)) == 2 and os.getpid() not in pids
