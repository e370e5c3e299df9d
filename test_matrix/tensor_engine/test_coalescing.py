"""Monarch's tensor-engine coalescing and compile (torchmonarch 0.7.0, monarch/common/
_coalescing.py), on CPU procs: a ``coalescing()`` block records the messages of its ops and
sends them as one recording when it closes (a nested block folds into the outer one; a fetch
inside is refused; an exception leaves the recording unsent; a tensor deleted inside leaves
what was computed from it valid); ``compile`` records a function once and replays the
recording, with each branch of its cache: the first call records, the first reuse records
again to verify the trace (verify=True) and later reuses replay without running the body;
other tensor metadata, another non-tensor argument or another aliasing of the inputs records a
new trace; a captured tensor is replayed by reference; a call inside a coalescing block runs
the body inline; a function with no tensors caches its value; a trace that sends other
messages on the verifying record is refused; inputs that require grad are refused.
"""

from __future__ import annotations

import pytest

from porting.matrix import te_remote as subjects

pytestmark = pytest.mark.component("tensor_engine")
FETCH_TIMEOUT_S = 120  # a stuck fetch fails its case instead of stalling the run


def fetched(value, gpus: int = 1):
    from monarch import fetch_shard

    return fetch_shard(value, hosts=0, gpus=gpus).result(timeout=FETCH_TIMEOUT_S).tolist()


def test_a_coalesced_block_runs_its_ops_when_it_closes(dm):
    import torch
    from monarch import coalescing

    with coalescing():
        a = torch.ones(3)
        b = a + 1
        c = b * 2
    assert fetched(c) == [4.0, 4.0, 4.0] and fetched(b, gpus=0) == [2.0, 2.0, 2.0]


def test_a_nested_block_folds_into_the_outer_one(dm):
    import torch
    from monarch import coalescing

    with coalescing():
        a = torch.ones(3)
        with coalescing():
            b = a + 1
        c = b * 3  # uses the inner block's result before anything was sent
    assert fetched(c) == [6.0, 6.0, 6.0]


def test_fetching_inside_a_block_is_refused(dm):
    import torch
    from monarch import coalescing, fetch_shard

    with pytest.raises(NotImplementedError, match="fetching results during a coalescing block"):
        with coalescing():
            a = torch.ones(3)
            fetch_shard(a)
    assert fetched(torch.ones(2) * 5) == [5.0, 5.0]


def test_an_exception_in_a_block_sends_nothing_and_the_mesh_stays_usable(dm):
    import torch
    from monarch import coalescing

    with pytest.raises(KeyError, match="raised inside the block"):
        with coalescing():
            a = torch.ones(3) + 1
            raise KeyError("raised inside the block")
    assert fetched(torch.ones(2) * 3) == [3.0, 3.0]
    del a


def test_a_remote_error_in_a_block_fails_only_its_dependents(dm):
    import torch
    from monarch import coalescing
    from monarch.mesh_controller import RemoteException

    with coalescing():
        a = torch.ones(3)
        bad = subjects.raise_value_error(a) + 1
        good = a + 2
    assert fetched(good) == [3.0, 3.0, 3.0]
    with pytest.raises(RemoteException):
        fetched(bad)


def test_a_shape_error_in_a_block_is_raised_while_recording(dm):
    import torch
    from monarch import coalescing

    with pytest.raises(RuntimeError, match="inconsistent tensor size"):
        with coalescing():
            torch.ones(3) @ torch.ones(4)
    assert fetched(torch.ones(2) + 1) == [2.0, 2.0]


def _counting(verify: bool = True):
    from monarch.common._coalescing import compile

    bodies: list[tuple] = []

    def body(x, k=1.0):
        bodies.append(tuple(x.shape))
        return x * 2 + k

    return compile(body, verify=verify), bodies


def test_compile_records_verifies_once_then_replays_without_the_body(dm):
    import torch

    f, bodies = _counting()
    results = [f(torch.full((3,), float(v))) for v in (1, 5, 7)]
    assert [fetched(r) for r in results] == [[3.0] * 3, [11.0] * 3, [15.0] * 3]  # replays read new inputs
    assert len(bodies) == 2  # recorded, recorded again to verify, then replayed


def test_compile_without_verify_replays_from_the_second_call(dm):
    import torch

    f, bodies = _counting(verify=False)
    results = [f(torch.full((3,), float(v))) for v in (1, 5)]
    assert [fetched(r) for r in results] == [[3.0] * 3, [11.0] * 3] and len(bodies) == 1


def test_compile_records_a_new_trace_for_other_metadata_or_arguments(dm):
    import torch

    f, bodies = _counting(verify=False)
    out = [f(torch.ones(3)), f(torch.ones(4)), f(torch.ones(3), k=10.0), f(torch.ones(3, dtype=torch.float64)),
           f(torch.ones(4)), f(torch.ones(3), k=10.0)]
    assert bodies == [(3,), (4,), (3,), (3,)], bodies  # the last two replay their traces
    assert [fetched(o) for o in out] == [[3.0] * 3, [3.0] * 4, [12.0] * 3, [3.0] * 3, [3.0] * 4, [12.0] * 3]


def test_compile_inside_a_block_runs_the_body_inline(dm):
    import torch
    from monarch import coalescing

    f, bodies = _counting(verify=False)
    with coalescing():
        r1 = f(torch.ones(3))
        r2 = f(torch.ones(3))
    assert len(bodies) == 2 and fetched(r1) == fetched(r2) == [3.0] * 3


def test_compile_of_a_function_without_tensors_caches_its_value(dm):
    from monarch.common._coalescing import compile

    calls: list[int] = []

    def plain(n):
        calls.append(n)
        return {"n": n}

    f = compile(plain, verify=False)
    first, again, other = f(2), f(2), f(3)
    assert first == again == {"n": 2} and first is again and other == {"n": 3}
    assert calls == [2, 3]


def test_compile_verification_refuses_a_trace_that_changed(dm):
    """The verifying record sends other messages than the first (the body branches on a
    counter the cache cannot see): the unsafe reuse is caught instead of replayed."""
    import torch
    from monarch.common._coalescing import compile

    seen = []

    def drifting(x):
        seen.append(1)
        return x + 1 if len(seen) == 1 else x * 3

    f = compile(drifting)
    assert fetched(f(torch.ones(3))) == [2.0] * 3
    with pytest.raises(RuntimeError, match="failed to verify recording. Recording diverges at operation 1"):
        f(torch.ones(3))
    assert fetched(torch.ones(2) + 4) == [5.0, 5.0]


def test_compile_refuses_inputs_that_require_grad(dm):
    import torch

    f, bodies = _counting(verify=False)
    with pytest.raises(TypeError, match="(?s)compile\\(ERROR_0\\).*REQUIRES_GRAD"):
        f(torch.ones(3, requires_grad=True))
    assert bodies == []


def test_compile_records_a_new_trace_when_the_inputs_alias_differently(dm):
    """The cache key holds the aliasing pattern of the inputs: the same tensor passed twice is
    another trace than two distinct tensors of the same metadata."""
    import torch
    from monarch.common._coalescing import compile

    bodies: list[int] = []

    def add(a, b):
        bodies.append(1)
        return a + b

    f = compile(add, verify=False)
    x, y = torch.ones(3), torch.full((3,), 2.0)
    out = [f(x, y), f(x, x), f(y, x), f(y, y)]
    assert len(bodies) == 2, bodies  # distinct pair, then aliased pair; each replayed once
    assert [fetched(o) for o in out] == [[3.0] * 3, [2.0] * 3, [3.0] * 3, [4.0] * 3]


def test_compile_replays_a_captured_tensor_by_reference(dm):
    """A tensor the body captures (not an argument) is part of the recording: mutating it in
    place is seen by the next replay, rebinding the Python name is not (the documented unsafe
    case, pinned for 0.7.0)."""
    import torch
    from monarch.common._coalescing import compile

    captured = {"t": torch.full((3,), 10.0)}
    f = compile(lambda x: x + captured["t"], verify=False)
    assert fetched(f(torch.ones(3))) == [11.0] * 3
    captured["t"].add_(5)
    assert fetched(f(torch.ones(3))) == [16.0] * 3
    captured["t"] = torch.full((3,), 100.0)
    assert fetched(f(torch.ones(3))) == [16.0] * 3  # still the recorded tensor


def test_a_tensor_dropped_inside_a_block_leaves_its_dependents_valid(dm):
    """A tensor deleted before the block closes (its delete message is part of the recording,
    sent with the ops that used it): what was computed from it stays valid."""
    import torch
    from monarch import coalescing

    with coalescing():
        a = torch.ones(3)
        b = a + 1
        del a
        c = b * 5
    assert fetched(c) == [10.0, 10.0, 10.0] and fetched(b) == [2.0, 2.0, 2.0]
