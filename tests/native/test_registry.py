"""Memory registration, export/import and the copy engine on the cpu build."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
import torch

from porting import native

pytestmark = pytest.mark.component("native")


def test_register_lookup_and_deregister(lib):
    with native.Registry(lib) as reg:
        t = torch.arange(16, dtype=torch.float32)
        seg = reg.register(t)
        assert (seg.ptr, seg.size, seg.elem_size) == (t.data_ptr(), 64, 4)
        assert seg.info == native.PointerInfo("host", -1, "")
        assert reg.segment(seg.key).ptr == t.data_ptr()
        assert len(reg) == 1
        reg.deregister(seg.key)
        assert len(reg) == 0
        with pytest.raises(native.NativeError, match="not registered") as err:
            reg.segment(seg.key)
        assert err.value.status == "not-found"


def test_classify_host_pointer(lib):
    assert native.classify(torch.ones(4), lib=lib).kind == "host"


@pytest.mark.parametrize("first,second", [((0, 64), (32, 64)), ((32, 64), (0, 33)), ((0, 64), (0, 64)),
                                          ((16, 16), (0, 128))])
def test_overlapping_segments_are_refused(lib, first, second):
    buf = torch.zeros(256, dtype=torch.uint8)
    with native.Registry(lib) as reg:
        reg.register_ptr(buf.data_ptr() + first[0], first[1])
        with pytest.raises(native.NativeError, match="overlaps registered segment") as err:
            reg.register_ptr(buf.data_ptr() + second[0], second[1])
        assert err.value.status == "overlap"
        assert len(reg) == 1


def test_adjacent_segments_are_fine(lib):
    buf = torch.zeros(128, dtype=torch.uint8)
    with native.Registry(lib) as reg:
        a = reg.register_ptr(buf.data_ptr(), 64)
        b = reg.register_ptr(buf.data_ptr() + 64, 64)
        assert a.key != b.key and len(reg) == 2


def test_bad_registrations(lib):
    buf = torch.zeros(64, dtype=torch.uint8)
    with native.Registry(lib) as reg:
        with pytest.raises(native.NativeError, match="zero-size"):
            reg.register(torch.empty(0))
        with pytest.raises(native.NativeError, match="not aligned") as err:
            reg.register_ptr(buf.data_ptr() + 1, 8, elem_size=4)
        assert err.value.status == "alignment"
        with pytest.raises(native.NativeError, match="not a multiple"):
            reg.register_ptr(buf.data_ptr(), 6, elem_size=4)
        with pytest.raises(native.NativeError, match="NULL"):
            reg.register_ptr(0, 8)
        with pytest.raises(native.NativeError, match="contiguous"):
            reg.register(torch.zeros(4, 4).t())
        with pytest.raises(native.NativeError, match="not registered"):
            reg.deregister(12345)
        assert len(reg) == 0


def test_copy_engine_write_and_read(lib):
    with native.Registry(lib) as reg, native.CopyEngine(reg) as eng:
        src = torch.arange(32, dtype=torch.int64)
        dst = torch.zeros(32, dtype=torch.int64)
        s, d = reg.register(src), reg.register(dst)
        ev = eng.write(d.key, 8 * 4, s.key, 0, 8 * 8)
        ev.wait()
        assert ev.done()
        assert torch.equal(dst[4:12], src[:8]) and dst[:4].eq(0).all() and dst[12:].eq(0).all()
        back = torch.zeros(8, dtype=torch.int64)
        b = reg.register(back)
        eng.read(d.key, 8 * 4, b.key, 0, 8 * 8).wait()
        assert torch.equal(back, src[:8])


def test_copies_complete_in_order_and_synchronize(lib):
    with native.Registry(lib) as reg, native.CopyEngine(reg) as eng:
        src = torch.randn(1 << 16)
        dsts = [torch.zeros(1 << 16) for _ in range(8)]
        s = reg.register(src)
        keys = [reg.register(d).key for d in dsts]
        events = [eng.write(k, 0, s.key, 0, src.numel() * 4) for k in keys]
        events[-1].wait()
        assert all(e.done() for e in events)  # one stream: the last done means all done
        eng.synchronize()
        for d in dsts:
            assert torch.equal(d, src)
        assert len({e.id for e in events}) == len(events)


def test_copy_engine_bad_input(lib):
    with native.Registry(lib) as reg, native.CopyEngine(reg) as eng:
        a = reg.register(torch.zeros(16, dtype=torch.float32))
        b = reg.register(torch.zeros(16, dtype=torch.float32))
        cases = [
            (dict(dst_key=999, dst_offset=0, src_key=b.key, src_offset=0, nbytes=4), "not-found", "not registered"),
            (dict(dst_key=a.key, dst_offset=60, src_key=b.key, src_offset=0, nbytes=8), "bounds", "outside segment"),
            (dict(dst_key=a.key, dst_offset=0, src_key=b.key, src_offset=64, nbytes=4), "bounds", "outside segment"),
            (dict(dst_key=a.key, dst_offset=2, src_key=b.key, src_offset=0, nbytes=4), "alignment", "not aligned"),
            (dict(dst_key=a.key, dst_offset=0, src_key=b.key, src_offset=0, nbytes=6), "alignment", "not aligned"),
            (dict(dst_key=a.key, dst_offset=0, src_key=a.key, src_offset=8, nbytes=16), "overlap", "overlap"),
            (dict(dst_key=a.key, dst_offset=-4, src_key=b.key, src_offset=0, nbytes=4), "bounds", "negative"),
        ]
        for kwargs, status, message in cases:
            with pytest.raises(native.NativeError, match=message) as err:
                eng.write(**kwargs)
            assert err.value.status == status, kwargs
        with pytest.raises(native.NativeError, match="never issued"):
            native.Event(eng, 77).wait()
        huge = 2**64 - 4
        with pytest.raises(native.NativeError, match="outside segment"):
            eng._copy(a.key, huge, b.key, 0, 8)


def test_deregistered_key_cannot_be_copied(lib):
    with native.Registry(lib) as reg, native.CopyEngine(reg) as eng:
        a = reg.register(torch.zeros(4))
        b = reg.register(torch.ones(4))
        reg.deregister(b.key)
        with pytest.raises(native.NativeError, match="source segment key .* not registered"):
            eng.write(a.key, 0, b.key, 0, 16)


def test_export_import_same_process(lib):
    with native.Registry(lib) as reg:
        seg = reg.alloc_exportable(256, elem_size=4)
        handle = reg.export(seg.key)
        seg.as_tensor(torch.float32).copy_(torch.arange(64, dtype=torch.float32))
        other = reg.import_handle(handle, elem_size=4)
        assert other.ptr != seg.ptr and other.size == 256
        assert torch.equal(other.as_tensor(torch.float32), torch.arange(64, dtype=torch.float32))
        with native.CopyEngine(reg) as eng:  # a one-sided write through the imported mapping
            local = reg.register(torch.full((4,), 5.0))
            eng.write(other.key, 16, local.key, 0, 16).wait()
        assert seg.as_tensor(torch.float32)[4:8].eq(5.0).all()
        with pytest.raises(native.NativeError, match="cannot be exported") as err:
            reg.export(local.key)
        assert err.value.status == "unsupported"


def test_export_import_across_processes(lib, build_dir):
    with native.Registry(lib) as reg:
        seg = reg.alloc_exportable(64, elem_size=8)
        seg.as_tensor(torch.int64).copy_(torch.arange(8))
        child = textwrap.dedent(f"""
            import sys, torch
            from porting import native
            lib = native.load("cpu", {str(build_dir)!r})
            reg = native.Registry(lib)
            seg = reg.import_handle(bytes.fromhex(sys.argv[1]), elem_size=8)
            view = seg.as_tensor(torch.int64)
            assert view.tolist() == list(range(8)), view
            view.mul_(10)
            print("ok")
        """)
        out = subprocess.run([sys.executable, "-c", child, reg.export(seg.key).hex()], capture_output=True,
                             text=True)
        assert out.returncode == 0, out.stderr
        assert seg.as_tensor(torch.int64).tolist() == [10 * i for i in range(8)]


def test_malformed_handles(lib):
    with native.Registry(lib) as reg:
        with pytest.raises(native.NativeError, match="expected"):
            reg.import_handle(b"short")
        seg = reg.alloc_exportable(32)
        handle = bytearray(reg.export(seg.key))
        handle[0] = 1  # claims to be a GPU IPC handle
        with pytest.raises(native.NativeError, match="not a shared-memory handle"):
            reg.import_handle(bytes(handle))
        gone = bytearray(reg.export(seg.key))
        reg.deregister(seg.key)  # releases the shared memory
        with pytest.raises(native.NativeError, match="was it released") as err:
            reg.import_handle(bytes(gone))
        assert err.value.status == "not-found"


def test_shard_bad_input(lib):
    t = torch.zeros(4, 6)
    with pytest.raises(native.NativeError, match="out of range") as err:
        native.gather_shard(t, 2, 2, 0, lib=lib)
    assert err.value.status == "bounds"
    with pytest.raises(native.NativeError, match="shard index 3 out of range"):
        native.gather_shard(t, 0, 3, 3, lib=lib)
    with pytest.raises(native.NativeError, match="chunks must be >= 1"):
        native.gather_shard(t, 0, 0, 0, lib=lib)
    with pytest.raises(native.NativeError, match="outside dim"):
        native.gather(t, 1, 4, 3, lib=lib)
    with pytest.raises(native.NativeError, match="0-d"):
        native.gather_shard(torch.tensor(1.0), 0, 1, 0, lib=lib)
    with pytest.raises(native.NativeError, match="staging has"):
        native.scatter_shard(torch.zeros(5), t, 0, 2, 0, lib=lib)
    with pytest.raises(native.NativeError, match="staging is torch.float64"):
        native.scatter_shard(torch.zeros(2, 6, dtype=torch.float64), t, 0, 2, 0, lib=lib)
    with pytest.raises(native.NativeError, match="avg needs a floating dtype"):
        native.reduce([torch.ones(3, dtype=torch.int64)] * 2, "avg", lib=lib)
    with pytest.raises(native.NativeError, match="buffer 1 is"):
        native.reduce([torch.ones(3), torch.ones(4)], "sum", lib=lib)
    with pytest.raises(native.NativeError, match="unknown op"):
        native.reduce([torch.ones(3)], "min", lib=lib)
    with pytest.raises(native.NativeError, match="at least one buffer"):
        native.reduce([], "sum", lib=lib)


def test_misaligned_tensor_is_refused_by_the_kernel(lib):
    raw = bytearray(4 * 9)
    t = torch.frombuffer(raw, dtype=torch.uint8)[1:33].view(torch.uint8)
    misaligned = torch.frombuffer(memoryview(raw)[1:33], dtype=torch.float32) if t.numel() else None
    assert misaligned is not None and misaligned.data_ptr() % 4 == 1
    with pytest.raises(native.NativeError, match="not aligned") as err:
        native.gather_shard(misaligned, 0, 2, 0, lib=lib)
    assert err.value.status == "alignment"


def test_wrong_device_tensor_is_refused(lib):
    t = torch.zeros(4, device="meta")
    with pytest.raises(native.NativeError, match="meta"):
        native.gather_shard(t, 0, 2, 0, lib=lib)


def test_closing_the_registry_closes_its_engines(lib):
    reg = native.Registry(lib)
    eng = native.CopyEngine(reg)
    a = reg.register(torch.zeros(1 << 16))
    b = reg.register(torch.ones(1 << 16))
    events = [eng.write(a.key, 0, b.key, 0, 1 << 18) for _ in range(4)]
    reg.close()  # waits for the copies, then closes the engine: nothing dangles
    with pytest.raises(native.NativeError, match="closed"):
        eng.write(a.key, 0, b.key, 0, 4)
    with pytest.raises(native.NativeError, match="closed"):
        events[0].wait()
    with pytest.raises(native.NativeError, match="registry is closed"):
        reg.register(torch.zeros(4))


def test_deregister_waits_for_copies_in_flight(lib):
    with native.Registry(lib) as reg, native.CopyEngine(reg) as eng:
        src = torch.randn(1 << 20)
        dst = torch.zeros(1 << 20)
        s, d = reg.register(src), reg.register(dst)
        ev = eng.write(d.key, 0, s.key, 0, src.numel() * 4)
        reg.deregister(d.key)
        assert ev.done() and torch.equal(dst, src)


def test_scatter_into_expanded_tensor_is_refused(lib):
    out = torch.zeros(1, 4).expand(6, 4)
    with pytest.raises(native.NativeError, match="stride-0"):
        native.scatter_shard(torch.ones(3, 4), out, 0, 2, 0, lib=lib)
    assert torch.equal(native.gather_shard(out, 0, 2, 1, lib=lib), torch.zeros(3, 4))  # reading is fine


def test_concurrent_copies_from_several_threads(lib):
    """ctypes releases the GIL: several Python threads drive one engine and registry at once."""
    from concurrent.futures import ThreadPoolExecutor

    with native.Registry(lib) as reg, native.CopyEngine(reg) as eng:
        src = torch.arange(4096, dtype=torch.int64)
        s = reg.register(src)

        def worker(w: int) -> bool:
            dst = torch.zeros(4096, dtype=torch.int64)
            d = reg.register(dst)
            for i in range(50):
                n = 8 * (1 + (i * 37 + w) % 512)
                eng.write(d.key, 0, s.key, 0, n).wait()
                if not torch.equal(dst[: n // 8], src[: n // 8]):
                    return False
            reg.deregister(d.key)
            return True

        with ThreadPoolExecutor(4) as pool:
            assert all(pool.map(worker, range(8)))
        assert len(reg) == 1
