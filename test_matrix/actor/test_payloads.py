"""Payloads through endpoints: None to nested Python, bytes up to 16 MiB, tensors of every
common dtype and layout, in host and in device memory (device: collected everywhere, run where
there is a GPU); each both point-to-point (call_one) and cast to a mesh (call)."""

from __future__ import annotations

import dataclasses
import enum
import fractions
import math
from decimal import Decimal
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value, stop_mesh
from porting.matrix.params import MEMORY, torch_device

pytestmark = pytest.mark.component("actor")
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_actor_subjects")


@dataclasses.dataclass(frozen=True)
class Record:
    name: str
    values: tuple


class Colour(enum.Enum):
    RED = 1
    BLUE = 2


PYTHON = {
    "none": None,
    "true": True,
    "zero": 0,
    "negative": -7,
    "bigint": 2 ** 100 + 1,
    "float": 3.25,
    "inf": math.inf,
    "str_ascii": "hello",
    "str_unicode": "Grüße, 世界 🚀",
    "str_empty": "",
    "list": [1, "two", 3.0],
    "tuple": (1, (2, (3,))),
    "dict": {"a": 1, "b": [2, 3]},
    "dict_int_keys": {1: "x", 2: "y"},
    "set": {1, 2, 3},
    "frozenset": frozenset({"a", "b"}),
    "nested": {"k": [{"d": (1, 2)}, [None, True]], "t": ({"z": {"y": [1]}},)},
    "deep_list": [[[[[[[[[[1]]]]]]]]]],
    "complex": 1 + 2j,
    "bytearray": bytearray(b"\x00\xff"),
    "decimal": Decimal("1.10"),
    "fraction": fractions.Fraction(1, 3),
    "enum": Colour.BLUE,
    "dataclass": Record("r", (1, 2)),
    "exception_value": ValueError("carried, not raised"),
}
BYTES = {"0B": 0, "1B": 1, "1KiB-1": 1023, "64KiB": 64 << 10, "1MiB": 1 << 20, "4MiB+3": (4 << 20) + 3,
         "16MiB": 16 << 20}
DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool",
          "complex64", "complex128"]
LAYOUTS = ["scalar", "vector", "matrix", "transposed", "empty"]


@pytest.fixture(scope="module")
def pair(fault_log):
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"gpus": 2})
    yield procs.spawn("payload", subjects.Probe)
    stop_mesh(procs)


def _same(a, b) -> bool:
    if isinstance(a, ValueError):
        return type(a) is type(b) and a.args == b.args
    return a == b and type(a) is type(b)


def _send(pair, how, value):
    if how == "call_one":
        return [pair.slice(gpus=1).echo.call_one(value).get()]
    return list(pair.echo.call(value).get().values())


@pytest.mark.parametrize("how", ["call_one", "call"])
@pytest.mark.parametrize("name", list(PYTHON))
def test_python_payload_round_trips(pair, name, how):
    value = PYTHON[name]
    for got in _send(pair, how, value):
        assert _same(got, value), f"{name}: sent {value!r}, got {got!r}"


@pytest.mark.parametrize("how", ["call_one", "call"])
@pytest.mark.parametrize("size", list(BYTES))
def test_bytes_payload_round_trips(pair, size, how):
    n = BYTES[size]
    value = bytes((i * 31 + 7) % 256 for i in range(min(n, 4096))) * (n // 4096) + bytes(n % 4096 if n >= 4096 else 0)
    value = value[:n] if len(value) >= n else value + b"\x5a" * (n - len(value))
    for got in _send(pair, how, value):
        assert type(got) is bytes and len(got) == n and got == value


def _tensor(dtype_name: str, layout: str, device: str):
    import torch

    dtype = getattr(torch, dtype_name)
    g = torch.Generator().manual_seed(len(dtype_name) * 13 + len(layout))
    shape = {"scalar": (), "vector": (1000,), "matrix": (17, 33), "transposed": (33, 17), "empty": (0, 3)}[layout]
    base = torch.randn(shape, generator=g, dtype=torch.float64) * 100
    if dtype == torch.bool:
        t = base > 0
    elif dtype.is_complex:
        t = torch.complex(base, -base).to(dtype)
    else:
        t = base.to(dtype)
    if layout == "transposed":
        t = t.t()  # a non-contiguous view
    return t.to(device)


@pytest.mark.parametrize("memory", MEMORY)
@pytest.mark.parametrize("how", ["call_one", "call"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_payload_round_trips(pair, dtype, layout, how, memory):
    import torch

    t = _tensor(dtype, layout, torch_device(memory))
    if how == "call_one":
        results = [pair.slice(gpus=0).echo_tensor_meta.call_one(t).get()]
    else:
        results = list(pair.echo_tensor_meta.call(t).get().values())
    for shape, dtype_seen, _contig, back, device_seen in results:
        assert shape == tuple(t.shape) and dtype_seen == str(t.dtype)  # what the actor received
        assert device_seen == t.device.type, f"a {t.device.type} tensor arrived on {device_seen}"
        assert back.dtype == t.dtype and back.shape == t.shape
        assert torch.equal(back.cpu(), t.cpu())


def test_generator_endpoint_fails_clearly_and_actor_survives(pair):
    """Streams go through stream() or a Port; a generator result is refused with the reason."""
    from monarch.actor import ActorError

    with pytest.raises(ActorError) as info:
        pair.slice(gpus=0).numbers.call_one(3).get()
    assert isinstance(info.value.exception, TypeError) and "generator" in str(info.value.exception)
    assert pair.slice(gpus=0).echo.call_one("still here").get() == "still here"
