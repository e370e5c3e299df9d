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

# The copy engine has no size threshold: every copy is one memmove on the cpu build's stream
# thread (one gpuMemcpyAsync on GPU builds), so sizes only change the data through one path and
# are folded into the copy cases (looped, the failing size named). Zero bytes is its own case:
# the worker skips the memmove and the overlap check is skipped.
SIZES = {"1B": 1, "7B": 7, "4KiB": 4096, "64KiB+1": (64 << 10) + 1, "1MiB": 1 << 20, "16MiB": 16 << 20}
# Registration stores the element size (the alignment unit of offsets and lengths); the dtype
# itself is only bytes to the engine: folded into one case looping over them.
DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int32", "int64", "uint8", "bool", "complex64",
          "complex128"]


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


# write and read are two entry points of the binding with their own argument order (a swap in
# one of them would copy the wrong way); memory: another memory kind and, on GPUs, another build.
@pytest.mark.parametrize("memory", MEMORY)
@pytest.mark.parametrize("op", ["write", "read"])
def test_copy_between_registered_segments(placed, op, memory):
    import torch

    reg, eng, device = placed
    failures = []
    for name, n in SIZES.items():
        src, dst = _pattern(n, 1).to(device), torch.zeros(n, dtype=torch.uint8, device=device)
        s, d = reg.register(src), reg.register(dst)
        assert s.info.kind == memory and d.info.kind == memory
        ev = eng.write(d.key, 0, s.key, 0, n) if op == "write" else eng.read(s.key, 0, d.key, 0, n)
        ev.wait()
        if not (ev.done() and torch.equal(dst.cpu(), src.cpu())):
            failures.append(name)
        reg.deregister(s.key)
        reg.deregister(d.key)
    assert not failures, f"{op} copies wrong at sizes {failures}"


def test_zero_byte_copy_is_a_completed_no_op(engine):
    """Zero bytes: accepted even at offset == size and between identical ranges (the overlap
    check only applies to non-empty copies); the event completes and no byte changes."""
    import torch

    reg, eng = engine
    a = reg.register(_pattern(64, 2))
    b = reg.register(torch.full((64,), 0xEE, dtype=torch.uint8))
    events = [eng.write(b.key, 0, a.key, 0, 0), eng.write(b.key, 64, a.key, 64, 0), eng.write(a.key, 5, a.key, 5, 0)]
    for ev in events:
        ev.wait()
    assert all(ev.done() for ev in events)
    assert bool((b.owner == 0xEE).all()) and torch.equal(a.owner, _pattern(64, 2))


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


def test_register_keeps_dtype_element_size(engine):
    import torch

    reg, eng = engine
    failures = []
    for dtype in DTYPES:
        t = torch.zeros(257, dtype=getattr(torch, dtype))
        seg = reg.register(t)
        src = _pattern(seg.size, 2)
        s = reg.register(src)
        eng.write(seg.key, 0, s.key, 0, seg.size).wait()
        if (seg.size, seg.elem_size, seg.info.kind) != (t.numel() * t.element_size(), t.element_size(), "host"):
            failures.append(f"{dtype}: segment {seg.size} B / elem {seg.elem_size} / {seg.info.kind}")
        elif not torch.equal(t.view(torch.uint8), src):
            failures.append(f"{dtype}: bytes differ after the copy")
    assert not failures, failures


# The engine resolves (key, offset) to an address: offsets are arithmetic on one path. Looped:
# unaligned, page-crossing (4093 + 1003 crosses 4096) and single-byte ranges at both ends.
OFFSETS = [(0, 5, 100), (17, 0, 100), (4093, 3, 1003), (1, 1, 1), (8191, 0, 1)]


def test_offsets_touch_only_the_range(engine):
    import torch

    reg, eng = engine
    src = _pattern(8192, 3)
    failures = []
    for dst_off, src_off, n in OFFSETS:
        dst = torch.full((8192,), 0xEE, dtype=torch.uint8)
        s, d = reg.register(src), reg.register(dst)
        eng.write(d.key, dst_off, s.key, src_off, n).wait()
        inside = torch.equal(dst[dst_off:dst_off + n], src[src_off:src_off + n])
        outside = bool((dst[:dst_off] == 0xEE).all()) and bool((dst[dst_off + n:] == 0xEE).all())
        if not (inside and outside):
            failures.append(f"dst+{dst_off} src+{src_off} n={n}: inside ok={inside}, outside ok={outside}")
        reg.deregister(s.key)
        reg.deregister(d.key)
    assert not failures, failures


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


def _copy_error_cases():
    """Each a different check of pn_engine_copy / the binding / the event table:
    case -> (action(reg, eng, a, b, w), status, message pattern)."""
    from porting.native import Event

    return {
        "destination_past_end": (lambda reg, eng, a, b, w: eng.write(b.key, 90, a.key, 0, 50), "bounds",
                                 r"destination range \[90, 140\) is outside segment \d+ of 100 bytes"),
        "source_past_end": (lambda reg, eng, a, b, w: eng.read(a.key, 60, b.key, 0, 50), "bounds",
                            r"source range \[60, 110\) is outside segment"),
        "offset_past_end_zero_bytes": (lambda reg, eng, a, b, w: eng.write(b.key, 101, a.key, 0, 0), "bounds",
                                       r"destination range \[101, 101\)"),
        # offset + nbytes overflows 64 bits: the bound is checked without wrapping
        "length_wraps_u64": (lambda reg, eng, a, b, w: eng.write(b.key, 10, a.key, 0, (1 << 64) - 1), "bounds",
                             r"destination range"),
        "negative_offset": (lambda reg, eng, a, b, w: eng.write(b.key, -1, a.key, 0, 5), "bounds",
                            r"dst offset -1 is negative"),
        "unaligned_to_element": (lambda reg, eng, a, b, w: eng.write(w.key, 2, a.key, 0, 4), "alignment",
                                 r"offset 2 / length 4 not aligned to segment \d+'s element size 4"),
        "unknown_key": (lambda reg, eng, a, b, w: eng.write(987654, 0, a.key, 0, 5), "not-found",
                        r"destination segment key 987654 is not registered"),
        "deregistered_key": (lambda reg, eng, a, b, w: (reg.deregister(b.key), eng.write(b.key, 0, a.key, 0, 5)),
                             "not-found", r"destination segment key \d+ is not registered"),
        "overlapping_ranges": (lambda reg, eng, a, b, w: eng.write(a.key, 5, a.key, 0, 50), "overlap",
                               r"source and destination ranges overlap \(50 bytes"),
        "event_never_issued": (lambda reg, eng, a, b, w: Event(eng, 999).wait(), "not-found",
                               r"event 999 was never issued"),
        "event_zero": (lambda reg, eng, a, b, w: Event(eng, 0).done(), "not-found", r"event 0 was never issued"),
    }


@pytest.mark.parametrize("case", list(_copy_error_cases()))
def test_copy_errors_carry_a_status(engine, case):
    import torch

    from porting import native

    reg, eng = engine
    action, status, message = _copy_error_cases()[case]
    a = reg.register(_pattern(100, 6))
    b = reg.register(torch.zeros(100, dtype=torch.uint8))
    w = reg.register(torch.zeros(16, dtype=torch.int32))
    with pytest.raises(native.NativeError, match=message) as info:
        result = action(reg, eng, a, b, w)
        for ev in result if isinstance(result, tuple) else (result,):
            if ev is not None:
                ev.wait()
    assert info.value.status == status, f"{case}: status {info.value.status}, expected {status}"
    assert torch.equal(b.owner, torch.zeros(100, dtype=torch.uint8)) or case == "deregistered_key", \
        "a refused copy must not write"


def test_closed_engine_and_registry_refuse_work(native_libs):
    """Closing the registry closes its engines (an engine must not outlive the keys it resolves):
    both then refuse calls with a message instead of touching freed state."""
    import torch

    from porting import native

    reg, eng = _open(native_libs("host"))
    a = reg.register(_pattern(16, 7))
    b = reg.register(torch.zeros(16, dtype=torch.uint8))
    reg.close()
    with pytest.raises(native.NativeError, match="copy engine is closed"):
        eng.write(b.key, 0, a.key, 0, 16)
    with pytest.raises(native.NativeError, match="registry is closed"):
        reg.register(torch.zeros(4, dtype=torch.uint8))
    eng.close()  # closing twice is a no-op
    reg.close()


def test_waiting_a_later_event_completes_earlier_ones(engine):
    """Copies run in order on one stream: once event i completed, every earlier event reports
    done from the engine's table without asking the stream; synchronize retires them all."""
    import torch

    reg, eng = engine
    n = 1 << 20
    src = _pattern(4 * n, 8)
    dst = torch.zeros(4 * n, dtype=torch.uint8)
    s, d = reg.register(src), reg.register(dst)
    events = [eng.write(d.key, i * n, s.key, i * n, n) for i in range(4)]
    assert len({ev.id for ev in events}) == 4 and [ev.id for ev in events] == sorted(ev.id for ev in events)
    events[2].wait()
    assert [ev.done() for ev in events[:3]] == [True, True, True]
    assert torch.equal(dst[:3 * n], src[:3 * n]), "an event completed before its bytes landed"
    late = eng.write(d.key, 0, s.key, 0, n)
    eng.synchronize()
    assert events[3].done() and late.done() and torch.equal(dst, src)
    events[0].wait()  # waiting on a retired event returns at once


def test_deregister_waits_for_copies_in_flight(engine):
    """Deregistering a segment first finishes the copies in flight that use it (the memory may
    be freed right after), so a copy queued just before lands completely."""
    import torch

    reg, eng = engine
    n = 16 << 20
    src, dst = _pattern(n, 9), torch.zeros(n, dtype=torch.uint8)
    s, d = reg.register(src), reg.register(dst)
    ev = eng.write(d.key, 0, s.key, 0, n)
    reg.deregister(s.key)
    assert ev.done(), "deregister returned while a copy from the segment was in flight"
    assert torch.equal(dst, src) and len(reg) == 1


def test_library_identity_and_pointer_classification(native_libs):
    """The cpu build names itself, has no devices and classifies every pointer as host memory;
    a NULL pointer is refused."""
    import torch

    from porting import native

    lib = native_libs("host")
    assert (lib.backend, lib.path, lib.cdll.pn_abi_version(), lib.device_count()) == ("cpu", "cpu", 1, 0)
    info = native.classify(torch.zeros(8), lib=lib)
    assert (info.kind, info.device, info.pci_bus_id) == ("host", -1, "")
    with pytest.raises(native.NativeError, match="pointer is NULL") as err:
        native.classify(0, lib=lib)
    assert err.value.status == "invalid"


def test_loader_refuses_unknown_placements_and_paths():
    """load_for / library_path name what they accept; device memory never gets the cpu build."""
    from porting import native

    refusals = {
        "placement": (lambda: native.load_for("shared"), r"memory placement 'shared': expected one of host, device"),
        "path": (lambda: native.library_path("opencl"), r"unknown build path 'opencl'"),
        "cpu_for_device": (lambda: native.load_for("device", "cpu"), r"device memory needs a GPU build"),
    }
    import re

    wrong = []
    for name, (call, message) in refusals.items():
        try:
            call()
            wrong.append(f"{name}: accepted")
        except native.NativeError as exc:
            if not re.search(message, str(exc)):
                wrong.append(f"{name}: {exc}")
    assert not wrong, wrong
