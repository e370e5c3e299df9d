"""Our native layer: memory registration, exported handles and the one-sided copy engine
(the transport under the RDMA path), checked byte-for-byte, plus its error statuses.

Memory placement is a dimension: host memory (the cpu build) everywhere, device memory (the
platform's GPU build, porting.native.load_for) collected everywhere and run on GPU hosts. An
exported handle is imported in another process, as IPC handles are meant to be (CUDA refuses
an import in the exporting process); device memory is read back through the copy engine,
never viewed as a tensor."""

from __future__ import annotations

import subprocess
import sys

import pytest

from porting.matrix.params import MEMORY, torch_device

pytestmark = pytest.mark.component("native")

SIZES = {"1B": 1, "7B": 7, "4KiB": 4096, "64KiB+1": (64 << 10) + 1, "1MiB": 1 << 20, "16MiB": 16 << 20}
DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int32", "int64", "uint8", "bool", "complex64"]


def _pattern(n: int, seed: int):
    import torch

    idx = torch.arange(n, dtype=torch.int64)
    return ((idx * 131 + seed * 17 + (idx >> 8)) % 251).to(torch.uint8)


def _open(lib):
    from porting import native

    reg = native.Registry(lib)
    return reg, native.CopyEngine(reg)


@pytest.fixture
def engine(native_libs):
    reg, eng = _open(native_libs("host"))
    yield reg, eng
    eng.close()
    reg.close()


@pytest.fixture
def placed(request, native_libs):
    """(registry, engine, torch device) for the case's ``memory`` parameter."""
    memory = request.node.callspec.params["memory"]
    reg, eng = _open(native_libs(memory))
    yield reg, eng, torch_device(memory)
    eng.close()
    reg.close()


@pytest.mark.parametrize("memory", MEMORY)
@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("op", ["write", "read"])
def test_copy_between_registered_segments(placed, size, op, memory):
    import torch

    reg, eng, device = placed
    n = SIZES[size]
    src, dst = _pattern(n, 1).to(device), torch.zeros(n, dtype=torch.uint8, device=device)
    s, d = reg.register(src), reg.register(dst)
    assert s.info.kind == memory and d.info.kind == memory
    ev = eng.write(d.key, 0, s.key, 0, n) if op == "write" else eng.read(s.key, 0, d.key, 0, n)
    ev.wait()
    assert ev.done() and torch.equal(dst.cpu(), src.cpu())


@pytest.mark.requires(device="gpu", why="copies between host and device memory")
@pytest.mark.parametrize("direction", ["host_to_device", "device_to_host"])
def test_copy_between_host_and_device(native_libs, direction):
    import torch

    reg, eng = _open(native_libs("device"))
    try:
        n = (1 << 20) + 3
        host_src, dev_src = _pattern(n, 8), _pattern(n, 9).to("cuda")
        src = host_src if direction == "host_to_device" else dev_src
        dst = torch.zeros(n, dtype=torch.uint8, device="cuda" if direction == "host_to_device" else "cpu")
        s, d = reg.register(src), reg.register(dst)
        eng.write(d.key, 0, s.key, 0, n).wait()
        assert torch.equal(dst.cpu(), src.cpu())
    finally:
        eng.close()
        reg.close()


@pytest.mark.parametrize("dtype", DTYPES)
def test_register_keeps_dtype_element_size(engine, dtype):
    import torch

    reg, eng = engine
    t = torch.zeros(257, dtype=getattr(torch, dtype))
    seg = reg.register(t)
    assert seg.size == t.numel() * t.element_size() and seg.elem_size == t.element_size()
    assert seg.info.kind == "host"
    src = _pattern(seg.size, 2)
    s = reg.register(src)
    eng.write(seg.key, 0, s.key, 0, seg.size).wait()
    assert torch.equal(t.view(torch.uint8), src)


@pytest.mark.parametrize("dst_off,src_off,n", [(0, 5, 100), (17, 0, 100), (4093, 3, 1003), (1, 1, 1)])
def test_offsets_touch_only_the_range(engine, dst_off, src_off, n):
    import torch

    reg, eng = engine
    src = _pattern(8192, 3)
    dst = torch.full((8192,), 0xEE, dtype=torch.uint8)
    s, d = reg.register(src), reg.register(dst)
    eng.write(d.key, dst_off, s.key, src_off, n).wait()
    assert torch.equal(dst[dst_off:dst_off + n], src[src_off:src_off + n])
    assert bool((dst[:dst_off] == 0xEE).all()) and bool((dst[dst_off + n:] == 0xEE).all())


def test_many_copies_in_flight_complete(engine):
    import torch

    reg, eng = engine
    src = _pattern(1 << 20, 4)
    dst = torch.zeros(1 << 20, dtype=torch.uint8)
    s, d = reg.register(src), reg.register(dst)
    chunk = 1 << 14
    events = [eng.write(d.key, i, s.key, i, chunk) for i in range(0, 1 << 20, chunk)]
    for ev in events:
        ev.wait()
    assert all(ev.done() for ev in events) and torch.equal(dst, src)


def test_exported_handle_imports_the_same_memory(engine):
    """Host memory may also be imported in the exporting process (shared memory)."""
    import torch

    reg, eng = engine
    seg = reg.alloc_exportable(4096)
    imported = reg.import_handle(reg.export(seg.key))
    src = _pattern(4096, 5)
    s = reg.register(src)
    eng.write(seg.key, 0, s.key, 0, 4096).wait()
    assert torch.equal(imported.as_tensor(), src)


# The importing process: maps the handle with the same library, then either reads the
# segment into host memory (printing it as hex) or fills it with a pattern.
_IMPORTER = """
import sys, torch
from porting import native
lib = native.Library(sys.argv[1])
reg = native.Registry(lib); eng = native.CopyEngine(reg)
seg = reg.import_handle(bytes.fromhex(sys.argv[2]))
host = torch.zeros(seg.size, dtype=torch.uint8)
h = reg.register(host)
if sys.argv[3] == "read":
    eng.read(seg.key, 0, h.key, 0, seg.size).wait()
    print(bytes(host.tolist()).hex())
else:
    host.copy_(((torch.arange(seg.size) * 7 + 3) % 256).to(torch.uint8))
    eng.write(seg.key, 0, h.key, 0, seg.size).wait()
    print("written")
eng.close(); reg.close()
"""


def _importer(lib, handle: bytes, mode: str) -> str:
    out = subprocess.run([sys.executable, "-c", _IMPORTER, str(lib.file), handle.hex(), mode],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"importer failed ({out.returncode}): {out.stderr[-2000:]}"
    return out.stdout.strip()


@pytest.mark.parametrize("memory", MEMORY)
@pytest.mark.parametrize("mode", ["read", "write"])
def test_exported_handle_in_another_process(placed, native_libs, memory, mode):
    import torch

    reg, eng, device = placed
    n = 8192 + 5
    seg = reg.alloc_exportable(n)
    assert seg.info.kind == memory
    host = torch.zeros(n, dtype=torch.uint8)
    h = reg.register(host)
    if mode == "read":  # the other process sees what this one wrote
        src = _pattern(n, 6)
        s = reg.register(src)
        eng.write(seg.key, 0, s.key, 0, n).wait()
        assert bytes.fromhex(_importer(native_libs(memory), reg.export(seg.key), "read")) == bytes(src.tolist())
    else:  # this process sees what the other one wrote
        assert _importer(native_libs(memory), reg.export(seg.key), "write") == "written"
        eng.read(seg.key, 0, h.key, 0, n).wait()
        assert torch.equal(host, ((torch.arange(n) * 7 + 3) % 256).to(torch.uint8))


@pytest.mark.parametrize("case,status", [("past_end", "bounds"), ("unknown_key", "not-found"),
                                         ("overlap", "overlap"), ("deregistered", "not-found")])
def test_copy_errors_carry_a_status(engine, case, status):
    import torch

    from porting import native

    reg, eng = engine
    a = reg.register(_pattern(100, 6))
    b = reg.register(torch.zeros(100, dtype=torch.uint8))
    with pytest.raises(native.NativeError) as info:
        if case == "past_end":
            eng.write(b.key, 90, a.key, 0, 50).wait()
        elif case == "unknown_key":
            eng.write(987654, 0, a.key, 0, 5).wait()
        elif case == "overlap":
            eng.write(a.key, 5, a.key, 0, 50).wait()
        else:
            reg.deregister(b.key)
            eng.write(b.key, 0, a.key, 0, 5).wait()
    assert info.value.status == status and str(info.value).startswith("pn_")
