"""Tensor-engine streams and borrows (torchmonarch 0.7.0, monarch/common/stream.py and
borrows.py), on CPU procs: a tensor belongs to the stream it was made on and is refused on
another (WRONG_STREAM); ``Stream.borrow`` moves it to another stream read-only (both streams
may read, neither may write: MUTATING_BORROW) or mutably (only the borrower uses it, and what
it wrote, or the error it raised, reaches the origin when the borrow is dropped); a mutable
borrow is refused while a read-only one lives; dropping gives write access back.
"""

from __future__ import annotations

from typing import Any

import pytest

from porting.matrix import te_remote as subjects

pytestmark = pytest.mark.component("tensor_engine")
FETCH_TIMEOUT_S = 120  # a stuck fetch fails its case instead of stalling the run


@pytest.fixture
def other(engine):
    from monarch import Stream

    with engine.activate():
        yield Stream("other")


def fetched(value):
    from monarch import fetch_shard

    return fetch_shard(value, hosts=0, gpus=1).result(timeout=FETCH_TIMEOUT_S).tolist()


def test_a_tensor_stays_on_its_stream_and_is_refused_on_another(other):
    import torch
    from monarch import get_active_stream

    with other.activate():
        a: Any = torch.ones(3) * 4  # a monarch Tensor (torch's stubs do not know .stream)
        assert fetched(a) == [4.0, 4.0, 4.0]
    assert (str(a.stream), str(get_active_stream())) == ("stream 'other'", "stream 'main'")
    with pytest.raises(TypeError, match="(?s)WRONG_STREAM.*not the current active stream"):
        fetched(a)


def test_a_read_only_borrow_lets_both_streams_read_and_neither_write(other):
    import torch

    x = torch.ones(3)
    xb, borrow = other.borrow(x)
    with other.activate():
        assert fetched(xb * 2) == [2.0, 2.0, 2.0]
        with pytest.raises(TypeError, match="MUTATING_BORROW"):
            xb.add_(1)
    assert fetched(x + 0) == [1.0, 1.0, 1.0]  # the origin still reads
    with pytest.raises(TypeError, match="(?s)MUTATING_BORROW.*Traceback of borrow"):
        x.add_(1)
    borrow.drop()


def test_a_mutable_borrow_is_refused_while_a_read_only_one_lives(other):
    import torch

    x = torch.ones(3)
    _, reading = other.borrow(x)
    with pytest.raises(RuntimeError, match="already being borrowed non-mutably"):
        other.borrow(x, mutable=True)
    reading.drop()
    xb, writing = other.borrow(x, mutable=True)  # accepted once the read-only borrow is gone
    writing.drop()


def test_dropping_a_borrow_gives_write_access_back(other):
    import torch

    x = torch.ones(3)
    _, borrow = other.borrow(x)
    borrow.drop()
    borrow.drop()  # a second drop does nothing
    x.add_(1)
    w = torch.zeros(3)
    with other.borrow(w)[1]:  # a borrow is a context manager that drops at exit
        pass
    w.add_(2)
    assert (fetched(x), fetched(w)) == ([2.0, 2.0, 2.0], [2.0, 2.0, 2.0])


def test_a_mutable_borrow_writes_reach_the_origin_after_drop(other):
    import torch

    z = torch.zeros(3)
    zb, borrow = other.borrow(z, mutable=True)
    with other.activate():
        zb.add_(7)
    with pytest.raises(TypeError):  # the origin has no access while the borrower writes
        z + 0
    borrow.drop()
    assert fetched(z) == [7.0, 7.0, 7.0]


def test_an_error_on_a_mutable_borrow_reaches_the_origin_value(other):
    """Returning a mutable borrow carries the borrower's failure back to the origin's value
    (borrows.py: a borrow is not an alias, so the error is propagated explicitly)."""
    import torch
    from monarch.mesh_controller import RemoteException

    e = torch.zeros(3)
    eb, borrow = other.borrow(e, mutable=True)
    with other.activate():
        eb.copy_(subjects.raise_value_error(eb))
    del eb
    borrow.drop()
    with pytest.raises(RemoteException):
        fetched(e)
    assert fetched(torch.ones(2) + 1) == [2.0, 2.0]  # other values are unaffected
