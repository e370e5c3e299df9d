"""Payloads through endpoints, one case per serialization path: Python values (builtins,
classes by reference, classes and functions by value, exceptions as values), bytes inside and
outside the pickler's frames, tensors per rebuild path (contiguous over 12 dtypes, scalar,
empty, strided views, offset views, sparse COO/CSR, autograd state, quantized), in host and
in device memory (device: collected everywhere, run where there is a GPU); each by
``call_one`` and by ``call``. Values that only change data through one path are folded into
one case that names the failing value."""

from __future__ import annotations

import datetime
import fractions
import http
import math
import pathlib
import uuid
from decimal import Decimal
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value, stop_mesh
from porting.matrix.params import MEMORY, torch_device

pytestmark = pytest.mark.component("actor")
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_actor_subjects")

# The reply path: call_one replies through a once-port with one value; call casts to the
# 2-actor mesh and gathers one reply per rank into a ValueMesh.
HOW = ["call_one", "call"]

# One entry per pickling path (cloudpickle over Monarch's message pickler):
# builtins: the pickler's own opcodes; by_reference: a class importable on the proc, rebuilt
# by import + __reduce__; by_value_dataclass / by_value_enum: a class of the client's shipped
# by value (cloudpickle's dynamic-class and enum reconstruction; the client gets its own
# class back); exception: an exception instance as a value (BaseException.__reduce__).
PYTHON = {
    "builtins": {
        "none": None, "true": True, "zero": 0, "negative": -7, "bigint": 2 ** 100 + 1, "float": 3.25,
        "inf": math.inf, "str_ascii": "hello", "str_unicode": "Grüße, 世界 🚀", "str_empty": "",
        "list": [1, "two", 3.0], "tuple": (1, (2, (3,))), "dict": {"a": 1, "b": [2, 3]},
        "dict_int_keys": {1: "x", 2: "y"}, "set": {1, 2, 3}, "frozenset": frozenset({"a", "b"}),
        "nested": {"k": [{"d": (1, 2)}, [None, True]], "t": ({"z": {"y": [1]}},)},
        "deep_list": [[[[[[[[[[1]]]]]]]]]], "complex": 1 + 2j, "bytearray": bytearray(b"\x00\xff"),
    },
    "by_reference": {
        "decimal": Decimal("1.10"), "fraction": fractions.Fraction(1, 3), "stdlib_enum": http.HTTPStatus.IM_A_TEAPOT,
        "datetime": datetime.datetime(2026, 12, 1, 9, 45, tzinfo=datetime.timezone.utc),
        "uuid": uuid.UUID(int=0x1234), "path": pathlib.PurePosixPath("/a/b"),
    },
    "by_value_dataclass": {"dataclass": subjects.Record("r", (1, 2))},
    "by_value_enum": {"enum": subjects.Colour.BLUE},
    "exception": {"value_error": ValueError("carried, not raised"), "key_error": KeyError("k"),
                  "os_error": OSError(2, "No such file", "/nowhere")},
}


@pytest.fixture(scope="module")
def pair(fault_log):
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"gpus": 2})
    yield procs.spawn("payload", subjects.Probe)
    stop_mesh(procs)


def _same(a, b) -> bool:
    if isinstance(a, BaseException):
        return type(a) is type(b) and a.args == b.args and str(a) == str(b)
    return a == b and type(a) is type(b)


def _send(pair, how, endpoint: str, *args):
    if how == "call_one":
        return [getattr(pair.slice(gpus=1), endpoint).call_one(*args).get()]
    return list(getattr(pair, endpoint).call(*args).get().values())


def _round_trip_failures(pair, how, values: dict) -> list[str]:
    failures = []
    for name, value in values.items():
        for got in _send(pair, how, "echo", value):
            if not _same(got, value):
                failures.append(f"{name}: sent {value!r}, got {got!r}")
    return failures


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("path", list(PYTHON))
def test_python_payload_round_trips(pair, path, how):
    failures = _round_trip_failures(pair, how, PYTHON[path])
    assert not failures, failures


@pytest.mark.parametrize("how", HOW)
def test_by_value_enum_member_keeps_its_identity(pair, how):
    for got in _send(pair, how, "echo", subjects.Colour.RED):
        assert got is subjects.Colour.RED, f"got {got!r} of {type(got)!r}"


@pytest.mark.parametrize("how", HOW)
def test_functions_shipped_by_value_run_on_the_actor(pair, how):
    """cloudpickle's function path: a module function, a closure and a lambda, called remotely."""
    offset = 40

    def closure(v: int) -> int:
        return v + offset

    failures = []
    for name, fn, want in (("module_function", subjects.add_one, 2), ("closure", closure, 41),
                           ("lambda", lambda v: v * 3, 3)):
        got = _send(pair, how, "apply", fn, 1)
        if got != [want] * len(got):
            failures.append(f"{name}: {got} != {want}")
    assert not failures, failures


# Python's C pickler writes a bytes object of 64 KiB or more straight to Monarch's Buffer as
# its own fragment (kept without a copy); smaller ones are copied into a pickle frame.
BYTES = {"in_frame": [0, 1, 1023, (64 << 10) - 1],
         "own_fragment": [64 << 10, 1 << 20, (4 << 20) + 3, 16 << 20]}


def _pattern(n: int) -> bytes:
    block = bytes((i * 31 + 7) % 256 for i in range(4096))
    return (block * (n // 4096 + 1))[:n]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("path", list(BYTES))
def test_bytes_payload_round_trips(pair, path, how):
    failures = []
    for n in BYTES[path]:
        value = _pattern(n)
        for got in _send(pair, how, "echo", value):
            if not (type(got) is bytes and got == value):
                failures.append(f"{n} B: got {type(got).__name__} of {len(got)} B")
    assert not failures, failures


DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool",
          "complex64", "complex128"]


def _filled(shape, dtype_name: str, seed: int):
    import torch

    dtype = getattr(torch, dtype_name)
    base = torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64) * 100
    if dtype == torch.bool:
        return base > 0
    if dtype.is_complex:
        return torch.complex(base, -base).to(dtype)
    return base.to(dtype)


def _contiguous(device):
    return {f"{d}{list(shape)}": _filled(shape, d, i).to(device)
            for i, d in enumerate(DTYPES) for shape in ((1000,), (17, 33))}


def _scalar(device):
    return {d: _filled((), d, i).to(device) for i, d in enumerate(DTYPES)}


def _empty(device):
    return {f"{d}{list(shape)}": _filled(shape, d, 0).to(device)
            for d in ("float32", "int64") for shape in ((0, 3), (3, 0))}


def _strided(device):
    import torch

    base = _filled((10, 10), "float32", 5).to(device)
    return {"transposed": base.t(), "step": base.view(-1)[::7], "expanded": base[:, :1].expand(10, 4),
            "channels_last": _filled((2, 3, 4, 4), "float32", 6).to(device).to(memory_format=torch.channels_last),
            "conj_view": _filled((5,), "complex64", 7).to(device).conj()}


def _offset(device):
    base = _filled((100,), "float64", 8).to(device)
    return {"slice": base[10:20], "row": base.view(10, 10)[3]}


def _sparse_coo(device):
    return {"coo": _filled((6, 5), "float32", 9).relu().to(device).to_sparse()}


def _sparse_csr(device):
    return {"csr": _filled((6, 5), "float32", 10).relu().to(device).to_sparse_csr()}


def _autograd(device):
    import torch

    leaf = _filled((4,), "float32", 11).to(device).requires_grad_()
    parameter = torch.nn.Parameter(_filled((3,), "float32", 12).to(device))
    return {"leaf": leaf, "non_leaf": leaf * 2, "parameter": parameter}


# One entry per way torch's pickling rebuilds a tensor (Monarch ships the storage through
# torch.save): contiguous storage (dtypes folded: only the byte width changes); 0-dim; a
# storage of 0 bytes; a view whose strides differ from the dense ones; a view into a larger
# storage (offset kept, whole storage shipped); sparse COO and CSR (their own rebuild
# functions); autograd state (requires_grad, non-leaf, Parameter subclass).
LAYOUTS = {"contiguous": _contiguous, "scalar": _scalar, "empty": _empty, "strided_view": _strided,
           "offset_view": _offset, "sparse_coo": _sparse_coo, "sparse_csr": _sparse_csr, "autograd": _autograd}


def _tensor_mismatch(sent, facts) -> str | None:
    """What differs between a tensor sent and what the actor reported (and sent back)."""
    import torch

    back = facts["tensor"]
    if facts["shape"] != tuple(sent.shape) or back.dtype != sent.dtype or facts["layout"] != repr(sent.layout):
        return f"shape/dtype/layout {facts['shape']} {back.dtype} {facts['layout']}"
    if facts["device"] != sent.device.type:
        return f"a {sent.device.type} tensor arrived on {facts['device']}"
    if sent.layout == torch.strided and (facts["stride"], facts["offset"]) != (sent.stride(), sent.storage_offset()):
        return f"stride/offset {facts['stride']}/{facts['offset']} != {sent.stride()}/{sent.storage_offset()}"
    if sent.layout == torch.strided and facts["storage_bytes"] != sent.untyped_storage().nbytes():
        return f"storage of {facts['storage_bytes']} B, sent {sent.untyped_storage().nbytes()} B"
    if not torch.equal(back.detach().cpu().to_dense(), sent.detach().cpu().to_dense()):
        return "values differ"
    return None


@pytest.mark.parametrize("memory", MEMORY)
@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_tensor_payload_round_trips(pair, layout, how, memory):
    failures = []
    for name, t in LAYOUTS[layout](torch_device(memory)).items():
        for facts in _send(pair, how, "tensor_facts", t):
            problem = _tensor_mismatch(t, facts)
            if problem:
                failures.append(f"{name}: {problem}")
    assert not failures, failures


@pytest.mark.parametrize("how", HOW)
def test_autograd_state_on_arrival(pair, how):
    """requires_grad travels; the graph does not (a non-leaf arrives as a leaf); a Parameter
    stays a Parameter."""
    tensors = _autograd("cpu")
    for name, want_type in (("leaf", "Tensor"), ("non_leaf", "Tensor"), ("parameter", "Parameter")):
        for facts in _send(pair, how, "tensor_facts", tensors[name]):
            got = (facts["type"], facts["requires_grad"], facts["is_leaf"])
            assert got == (want_type, True, True), f"{name}: {facts}"


@pytest.mark.parametrize("how", HOW)
def test_quantized_tensor_round_trips(pair, how):
    """Quantized tensors have their own rebuild path (scale and zero point travel); host only."""
    import torch

    q = torch.quantize_per_tensor(torch.linspace(-1, 1, 9), scale=0.05, zero_point=3, dtype=torch.qint8)
    for got in _send(pair, how, "echo", q):
        assert got.is_quantized and (got.q_scale(), got.q_zero_point()) == (0.05, 3)
        assert torch.equal(got.int_repr(), q.int_repr())


def test_views_of_one_storage_arrive_as_separate_copies(pair):
    """Monarch pickles each view's storage separately: two views of one storage in one message
    do not alias on the actor, and changing one does not change the other. The same tensor
    object twice is one object (the pickle memo)."""
    import torch

    base = torch.arange(8.0)
    one = pair.slice(gpus=0)
    assert one.shares_storage.call_one(base, base[2:]).get() is False
    a, b = one.echo.call_one((base, base[2:])).get()
    a.add_(1)
    assert torch.equal(b, torch.arange(2.0, 8.0)), "the second view followed a change of the first"
    same_a, same_b = one.echo.call_one((base, base)).get()
    assert same_a is same_b


def test_a_valuemesh_argument_arrives_with_its_points(pair):
    """ValueMesh pickles as (shape, values): an actor given one iterates the same points."""
    vm = pair.rank.call().get()
    kind, items = pair.slice(gpus=1).valuemesh_facts.call_one(vm).get()
    assert (kind, items) == ("ValueMesh", [({"gpus": 0}, 0), ({"gpus": 1}, 1)])


def test_a_point_reply_keeps_rank_and_coordinates(pair):
    from monarch._rust_bindings.monarch_hyperactor.shape import Point

    points = list(pair.current_point.call().get().values())
    assert all(isinstance(p, Point) for p in points)
    assert [(p.rank, {k: p[k] for k in p}) for p in points] == [(0, {"gpus": 0}), (1, {"gpus": 1})]


# Three places a payload can fail, each refused where it happens and leaving the actor usable:
def test_a_too_deep_value_is_refused_on_the_client(pair):
    import pickle

    deep: list = []
    tip = deep
    for _ in range(100_000):
        tip.append([])
        tip = tip[0]
    with pytest.raises(pickle.PicklingError, match="excessively deep recursion"):
        pair.slice(gpus=0).echo.call_one(deep)
    assert pair.slice(gpus=0).echo.call_one("fine").get() == "fine"


def test_an_argument_that_fails_to_load_on_the_actor_is_an_actor_error(pair):
    from monarch.actor import ActorError

    with pytest.raises(ActorError) as info:
        pair.slice(gpus=0).echo.call_one(subjects.LoadsBadly("argument refuses to load")).get()
    assert "ValueError: argument refuses to load" in str(info.value)
    assert pair.slice(gpus=0).echo.call_one("fine").get() == "fine"


def test_a_reply_that_fails_to_load_raises_its_error_on_the_client(pair):
    with pytest.raises(ValueError, match="reply refuses to load"):
        pair.slice(gpus=1).reply_that_loads_badly.call_one("reply refuses to load").get()
    assert pair.slice(gpus=1).echo.call_one("fine").get() == "fine"


def test_generator_endpoint_fails_clearly_and_actor_survives(pair):
    """Streams go through stream() or a Port; a generator result is refused with the reason."""
    from monarch.actor import ActorError

    with pytest.raises(ActorError) as info:
        pair.slice(gpus=0).numbers.call_one(3).get()
    assert isinstance(info.value.exception, TypeError) and "generator" in str(info.value.exception)
    assert pair.slice(gpus=0).echo.call_one("still here").get() == "still here"
