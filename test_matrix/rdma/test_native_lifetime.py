"""Our native layer's lifetimes and concurrency (issue 27: behaviours no other case takes).

Each case is one path of native/src that the copy, registry and kernel cases do not reach:
the two release branches of an exported allocation with an import alive (the exporter's
release unlinks the shared memory and unmaps its own view; an importer's release only unmaps
its view), the registry's destroy loop releasing exported allocations, the registry mutex
under concurrent registrations, the engine's event table under copies submitted from several
threads, an engine destroyed with copies still queued (the stream drains before its worker
exits), and the error channel (pn_last_error) under failing calls from several threads.
Host memory (the cpu build); the device builds' IPC lifetimes are the GPU cases of
test_native_copy.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

pytestmark = pytest.mark.component("native")


def _pattern(n: int, seed: int):
    import torch

    idx = torch.arange(n, dtype=torch.int64)
    return ((idx * 131 + seed * 17 + (idx >> 8)) % 251).to(torch.uint8)


def _shm_name(handle: bytes) -> str:
    from porting.native.library import ExportHandleC

    raw = bytes(ExportHandleC.from_buffer_copy(handle).bytes)
    return raw.split(b"\0", 1)[0].decode()


@pytest.fixture
def lib(native_libs):
    return native_libs("host")


def test_an_import_outlives_the_exporters_release(lib):
    """The exporter deregisters its allocation (unlink + unmap of its view) while another
    registry holds an import: the import keeps its mapping, its bytes and its copies, and the
    name is gone for any later import."""
    import torch

    from porting import native

    exporter, importer = native.Registry(lib), native.Registry(lib)
    try:
        seg = exporter.alloc_exportable(8192)
        seg.as_tensor().copy_(_pattern(8192, 1))
        handle = exporter.export(seg.key)
        imported = importer.import_handle(handle)
        exporter.deregister(seg.key)
        if Path("/dev/shm").is_dir():
            assert not Path("/dev/shm", _shm_name(handle).lstrip("/")).exists(), \
                "the exporter's release left the shared-memory name behind"
        assert torch.equal(imported.as_tensor(), _pattern(8192, 1)), "the import lost its bytes"
        with native.CopyEngine(importer) as eng:
            out = torch.zeros(8192, dtype=torch.uint8)
            eng.read(imported.key, 0, importer.register(out).key, 0, 8192).wait()
        assert torch.equal(out, _pattern(8192, 1))
        with pytest.raises(native.NativeError, match=r"was it released\?"):
            native.Registry(lib).import_handle(handle)
    finally:
        importer.close()
        exporter.close()


def test_releasing_an_import_leaves_the_exported_allocation(lib):
    """An importer's deregister only unmaps its view: the exporter's segment keeps working,
    and a second import of the same handle maps the same, still shared, bytes."""
    import torch

    from porting import native

    exporter, importer = native.Registry(lib), native.Registry(lib)
    try:
        seg = exporter.alloc_exportable(4096)
        handle = exporter.export(seg.key)
        first = importer.import_handle(handle)
        first.as_tensor().copy_(_pattern(4096, 2))
        importer.deregister(first.key)
        assert torch.equal(seg.as_tensor(), _pattern(4096, 2)), "the exporter's view changed"
        second = importer.import_handle(handle)
        seg.as_tensor()[:16] = 7
        assert second.as_tensor()[:16].tolist() == [7] * 16, "the second import does not share the memory"
    finally:
        importer.close()
        exporter.close()


def test_closing_a_registry_releases_its_exported_allocations(lib):
    """pn_registry_destroy releases every exported allocation still registered (no deregister
    first): the shared-memory name is unlinked and the handle cannot be imported any more."""
    from porting import native

    reg = native.Registry(lib)
    handles = [reg.export(reg.alloc_exportable(1024 * (i + 1)).key) for i in range(3)]
    names = [_shm_name(h) for h in handles]
    if Path("/dev/shm").is_dir():
        assert all(Path("/dev/shm", n.lstrip("/")).exists() for n in names), names
    reg.close()
    if Path("/dev/shm").is_dir():
        left = [n for n in names if Path("/dev/shm", n.lstrip("/")).exists()]
        assert not left, f"closing the registry left shared memory behind: {left}"
    other = native.Registry(lib)
    try:
        for h in handles:
            with pytest.raises(native.NativeError, match=r"was it released\?") as info:
                other.import_handle(h)
            assert info.value.status == "not-found"
    finally:
        other.close()


def test_concurrent_registrations_admit_one_per_range(lib):
    """8 threads register the same 4 contested ranges (and one private range each) at once:
    the overlap check and insert happen under one lock, so exactly one registration per
    contested range wins, every other one is refused as an overlap, and keys are unique."""
    import torch

    from porting import native

    reg = native.Registry(lib)
    base = torch.zeros(64 * 16, dtype=torch.uint8)
    start = threading.Barrier(8)
    won: list[tuple[int, int]] = []
    refused: list[str] = []
    other: list[str] = []
    lock = threading.Lock()

    def worker(t: int) -> None:
        start.wait()
        for r in [0, 1, 2, 3, 8 + t]:  # ranges 0-3 contested, 8+t private
            try:
                seg = reg.register_ptr(base.data_ptr() + 64 * r, 64)
                with lock:
                    won.append((r, seg.key))
            except native.NativeError as exc:
                with lock:
                    (refused if exc.status == "overlap" else other).append(str(exc))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    try:
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert not other, other
        ranges = sorted(r for r, _ in won)
        assert ranges == [0, 1, 2, 3] + list(range(8, 16)), ranges
        assert len(refused) == 4 * 7 and len({k for _, k in won}) == len(won) == len(reg)
    finally:
        reg.close()


def test_copies_submitted_from_threads_all_land_with_distinct_events(lib):
    """4 threads submit 64 copies each to one engine: the event table and the stream queue
    take concurrent submissions, every event id is distinct and every byte lands."""
    import torch

    from porting import native

    reg = native.Registry(lib)
    eng = native.CopyEngine(reg)
    try:
        n, per, chunk = 4, 64, 256
        src = _pattern(n * per * chunk, 3)
        dst = torch.zeros_like(src)
        s, d = reg.register(src), reg.register(dst)
        events: list[list[int]] = [[] for _ in range(n)]
        start = threading.Barrier(n)

        def worker(t: int) -> None:
            start.wait()
            for i in range(per):
                off = (t * per + i) * chunk
                events[t].append(eng.write(d.key, off, s.key, off, chunk).id)

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(n)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        ids = [e for es in events for e in es]
        assert len(ids) == n * per and len(set(ids)) == len(ids), "two copies got the same event"
        eng.synchronize()
        assert all(native.Event(eng, e).done() for e in ids) and torch.equal(dst, src)
    finally:
        eng.close()
        reg.close()


def test_destroying_an_engine_drains_its_queued_copies(lib):
    """pn_engine_destroy with copies still queued (no wait, no synchronize): the stream's
    worker finishes the queue before it exits, so every queued copy lands. A 64 MiB copy
    first keeps the worker busy while 16 small ones queue behind it; the case checks that the
    last one was still pending when the engine was destroyed (tried up to 5 times)."""
    import torch

    from porting import native

    reg = native.Registry(lib)
    try:
        big, small = 64 << 20, 4096
        src = torch.empty(big, dtype=torch.uint8).random_(generator=torch.Generator().manual_seed(4))
        dst = torch.zeros(big, dtype=torch.uint8)
        s, d = reg.register(src), reg.register(dst)
        for _ in range(5):
            dst.zero_()
            eng = native.CopyEngine(reg)
            eng.write(d.key, 0, s.key, 0, big)
            # The small copies rewrite the head with the same bytes: they land last.
            events = [eng.write(d.key, i * small, s.key, i * small, small) for i in range(16)]
            pending = not events[-1].done()
            eng.close()
            assert torch.equal(dst, src), "destroying the engine dropped queued copies"
            if pending:
                return
        pytest.fail("the queue had drained before every destroy (5 tries): the drain path was not reached")
    finally:
        reg.close()


def test_error_messages_stay_with_the_thread_that_failed(lib):
    """pn_last_error is per thread: 4 threads make 500 failing registrations each at once, each
    with its own bad element size, and every NativeError names its own thread's size (one
    message buffer shared by the threads would hand some of them another's message)."""
    import torch

    from porting import native

    reg = native.Registry(lib)
    base = torch.zeros(64, dtype=torch.uint8)
    sizes = [3, 5, 6, 7]
    start = threading.Barrier(len(sizes))
    crossed: list[str] = []

    def worker(elem: int) -> None:
        start.wait()
        for _ in range(500):
            try:
                reg.register_ptr(base.data_ptr(), 48, elem)
                crossed.append(f"element size {elem} accepted")
            except native.NativeError as exc:
                if f"element size {elem} is not" not in str(exc):
                    crossed.append(f"thread of size {elem} got: {exc}")

    threads = [threading.Thread(target=worker, args=(e,)) for e in sizes]
    try:
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert not crossed, f"{len(crossed)} messages crossed threads, e.g. {crossed[:3]}"
        assert len(reg) == 0
    finally:
        reg.close()
