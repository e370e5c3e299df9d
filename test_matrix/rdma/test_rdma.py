"""RDMABuffer read_into / write_from over the active backend (ibverbs, or TCP fallback here),
1 B to 64 MiB, dtypes, offset views, local and remote owners, and the error paths. Host and
device memory (buffers over GPU tensors: collected everywhere, run where there is a GPU)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value, stop_mesh
from porting.matrix.params import MEMORY, torch_device

pytestmark = [pytest.mark.component("rdma"), pytest.mark.requires(rdma="any"),
              pytest.mark.filterwarnings("ignore:No ibverbs RDMA hardware detected")]
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_rdma_subjects")

SIZES = {"1B": 1, "7B": 7, "4KiB": 4096, "64KiB+1": (64 << 10) + 1, "1MiB": 1 << 20, "16MiB": 16 << 20,
         "64MiB": 64 << 20}
DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
          "complex64"]


@pytest.fixture(scope="module")
def owners(fault_log):
    from monarch.actor import this_host
    from monarch.rdma import get_rdma_backend

    if get_rdma_backend() == "none":
        pytest.skip("Monarch reports no RDMA backend (no ibverbs, TCP fallback disabled)")
    procs = this_host().spawn_procs(per_host={"gpus": 2})
    yield procs.spawn("owner", subjects.Owner)
    stop_mesh(procs)


def test_backend_is_recorded_and_matches_detection(owners, facts, record_property):
    from monarch.rdma import get_rdma_backend, is_ibverbs_available

    backend = get_rdma_backend()
    record_property("rdma_backend", backend)
    assert backend == ("ibverbs" if is_ibverbs_available() else "tcp")
    assert facts.rdma_backend == backend, f"port detect says {facts.rdma_backend}, Monarch uses {backend}"


@pytest.mark.parametrize("memory", MEMORY)
@pytest.mark.parametrize("size", list(SIZES))
def test_read_into_from_remote_owner(owners, size, memory):
    import torch

    n, device = SIZES[size], torch_device(memory)
    buf = owners.slice(gpus=0).make.call_one(f"r{size}{memory}", n, 1, device=device).get()
    assert buf.size() == n
    dst = torch.zeros(n, dtype=torch.uint8, device=device)
    buf.read_into(dst).get()
    assert torch.equal(dst.cpu(), subjects.pattern(n, 1))
    owners.slice(gpus=0).drop.call_one(f"r{size}{memory}").get()


@pytest.mark.parametrize("memory", MEMORY)
@pytest.mark.parametrize("size", list(SIZES))
def test_write_from_into_remote_owner(owners, size, memory):
    n, device = SIZES[size], torch_device(memory)
    buf = owners.slice(gpus=1).make.call_one(f"w{size}{memory}", n, 2, device=device).get()
    buf.write_from(subjects.pattern(n, 3).to(device)).get()
    assert owners.slice(gpus=1).equal_to.call_one(f"w{size}{memory}", n, 3).get()
    owners.slice(gpus=1).drop.call_one(f"w{size}{memory}").get()


@pytest.mark.parametrize("memory", MEMORY)
@pytest.mark.parametrize("size", list(SIZES))
def test_remote_reads_buffer_owned_by_client(owners, size, memory):
    from monarch.rdma import RDMABuffer

    n, device = SIZES[size], torch_device(memory)
    mem = subjects.pattern(n, 4).to(device)
    buf = RDMABuffer(mem)
    assert owners.slice(gpus=1).read_remote.call_one(buf, n, 4, device=device).get()


@pytest.mark.parametrize("size", list(SIZES))
def test_remote_writes_buffer_owned_by_client(owners, size):
    import torch
    from monarch.rdma import RDMABuffer

    n = SIZES[size]
    mem = torch.zeros(n, dtype=torch.uint8)
    buf = RDMABuffer(mem)
    owners.slice(gpus=0).write_remote.call_one(buf, n, 5).get()
    assert torch.equal(mem, subjects.pattern(n, 5))


@pytest.mark.parametrize("size", ["1B", "4KiB", "1MiB", "16MiB"])
def test_remote_to_remote_read(owners, size):
    n = SIZES[size]
    buf = owners.slice(gpus=0).make.call_one(f"rr{size}", n, 6).get()
    assert owners.slice(gpus=1).read_remote.call_one(buf, n, 6).get()
    owners.slice(gpus=0).drop.call_one(f"rr{size}").get()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("direction", ["read", "write"])
def test_dtype_buffers(owners, dtype, direction):
    import torch

    elems = 1031
    dt = getattr(torch, dtype)
    nbytes = elems * torch.empty((), dtype=dt).element_size()
    buf = owners.slice(gpus=0).make.call_one(f"d{dtype}", elems, 7, dtype).get()
    assert buf.size() == nbytes
    if direction == "read":
        dst = torch.zeros(elems, dtype=dt)
        buf.read_into(dst).get()
        assert torch.equal(dst.view(torch.uint8), subjects.pattern(nbytes, 7))
    else:
        src = subjects.pattern(nbytes, 8).view(dt)
        buf.write_from(src).get()
        assert owners.slice(gpus=0).equal_to.call_one(f"d{dtype}", nbytes, 8).get()
    owners.slice(gpus=0).drop.call_one(f"d{dtype}").get()


@pytest.mark.parametrize("offset", [1, 3, 4096, 65539])
@pytest.mark.parametrize("direction", ["read", "write"])
def test_offset_views(owners, offset, direction):
    import torch

    n = 10007
    buf = owners.slice(gpus=1).make.call_one(f"o{offset}", n, 9, "uint8", offset).get()
    if direction == "read":
        dst = torch.zeros(n, dtype=torch.uint8)
        buf.read_into(dst).get()
        assert torch.equal(dst, subjects.pattern(n + offset, 9)[offset:])
    else:
        buf.write_from(subjects.pattern(n, 10)).get()
        assert owners.slice(gpus=1).equal_to.call_one(f"o{offset}", n, 10, offset).get()
        before = subjects.pattern(n + offset, 9)[:offset].tolist()  # bytes below the view are untouched
        assert owners.slice(gpus=1).bytes_at.call_one(f"o{offset}", 0, offset).get() == before
    owners.slice(gpus=1).drop.call_one(f"o{offset}").get()


def test_client_side_offset_view_destination(owners):
    import torch

    n = 4099
    buf = owners.slice(gpus=0).make.call_one("cv", n, 11).get()
    backing = torch.full((n + 16,), 0xEE, dtype=torch.uint8)
    buf.read_into(backing[8:8 + n]).get()
    assert torch.equal(backing[8:8 + n], subjects.pattern(n, 11))
    assert int((backing[:8] == 0xEE).sum()) == 8 and int((backing[8 + n:] == 0xEE).sum()) == 8


def test_memoryview_source_and_destination(owners):
    n = 3001
    buf = owners.slice(gpus=0).make.call_one("mv", n, 12).get()
    out = bytearray(n)
    buf.read_into(memoryview(out)).get()
    assert bytes(out) == bytes(subjects.pattern(n, 12).tolist())
    buf.write_from(memoryview(bytes(subjects.pattern(n, 13).tolist()))).get()
    assert owners.slice(gpus=0).equal_to.call_one("mv", n, 13).get()


def test_read_into_larger_destination_fills_prefix_only(owners):
    import torch

    n = 1000
    buf = owners.slice(gpus=0).make.call_one("big", n, 14).get()
    dst = torch.full((n + 100,), 7, dtype=torch.uint8)
    buf.read_into(dst).get()
    assert torch.equal(dst[:n], subjects.pattern(n, 14)) and bool((dst[n:] == 7).all())


def test_write_from_smaller_source_changes_prefix_only(owners):
    n = 1000
    buf = owners.slice(gpus=0).make.call_one("small", n, 15).get()
    buf.write_from(subjects.pattern(300, 16)).get()
    assert owners.slice(gpus=0).equal_to.call_one("small", 300, 16).get()
    tail = owners.slice(gpus=0).digest.call_one("small", 300).get()
    rest = subjects.pattern(n, 15)[300:]
    assert tail == [int(rest.sum()), int(rest[:7].sum()), int(rest[-7:].sum()), rest.numel()]


def test_repeated_reads_see_owner_updates(owners):
    import torch

    n = 2048
    buf = owners.slice(gpus=0).make.call_one("upd", n, 17).get()
    first = torch.zeros(n, dtype=torch.uint8)
    buf.read_into(first).get()
    buf.write_from(subjects.pattern(n, 18)).get()
    second = torch.zeros(n, dtype=torch.uint8)
    buf.read_into(second).get()
    assert torch.equal(first, subjects.pattern(n, 17)) and torch.equal(second, subjects.pattern(n, 18))


# ---- errors -----------------------------------------------------------------------------

def test_read_into_too_small_destination_raises(owners):
    import torch

    buf = owners.slice(gpus=0).make.call_one("e1", 1024, 19).get()
    with pytest.raises(ValueError, match="size"):
        buf.read_into(torch.zeros(10, dtype=torch.uint8)).get()


def test_write_from_too_large_source_raises(owners):
    buf = owners.slice(gpus=0).make.call_one("e2", 64, 20).get()
    with pytest.raises(ValueError, match="size"):
        buf.write_from(subjects.pattern(65, 1)).get()


@pytest.mark.parametrize("bad,message", [("empty", "size 0"), ("two_d", "only supports 1d contiguous"),
                                         ("non_contiguous", "only supports 1d contiguous")])
def test_invalid_memory_is_rejected(owners, bad, message):
    import torch
    from monarch.rdma import RDMABuffer

    t = {"empty": torch.zeros(0, dtype=torch.uint8), "two_d": torch.zeros(4, 4, dtype=torch.uint8),
         "non_contiguous": torch.zeros(8, dtype=torch.uint8)[::2]}[bad]
    with pytest.raises(ValueError, match=message):  # the reason, not just any ValueError
        RDMABuffer(t)


@pytest.mark.parametrize("direction", ["read", "write"])
def test_dropped_buffer_raises(owners, direction):
    import torch

    buf = owners.slice(gpus=0).make.call_one(f"drop{direction}", 128, 21).get()
    buf.drop().get()
    with pytest.raises(Exception, match=r"(?i)buffer \d+ not found|dropped|released"):
        if direction == "read":
            buf.read_into(torch.zeros(128, dtype=torch.uint8), timeout=10).get()
        else:
            buf.write_from(subjects.pattern(128, 1), timeout=10).get()


@pytest.mark.parametrize("direction", ["read", "write"])
def test_dead_owner_raises(fault_log, facts, request, direction):
    if facts.rdma_backend in ("tcp", "none"):
        request.applymarker(pytest.mark.xfail(strict=True, reason=(
            f"RDMA backend {facts.rdma_backend}: Monarch's TCP transport reports a dead owner only as a "
            "time-out, which this case does not accept"), raises=AssertionError))
    import torch
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"gpus": 1})
    try:
        owner = procs.spawn("doomed", subjects.Owner)
        buf = owner.make.call_one("x", 256, 22).get()
        os.kill(owner.pid.call_one().get(), signal.SIGKILL)
        with pytest.raises(Exception) as info:
            if direction == "read":
                buf.read_into(torch.zeros(256, dtype=torch.uint8), timeout=5).get()
            else:
                buf.write_from(subjects.pattern(256, 1), timeout=5).get()
        text = str(info.value)
        # A time-out is not a dead-owner error: the op must fail because the owner is gone.
        # Monarch's TCP backend only times out (monarch 0.7.0: "tcp read chunk timed out"), so
        # this case is a strict xfail there (see the marker); if it starts detecting the loss,
        # the XPASS fails the run and the marker goes.
        assert "timed out" not in text.lower(), f"a time-out, not a dead-owner error: {text}"
        assert "rdma" in text.lower(), text
    finally:
        stop_mesh(procs)
