"""Our native layer's branches that no other case takes (issue 27): the clean-up paths of a
registration that fails after memory was allocated or mapped, the handle's offset field, imports
that cannot be re-exported, the overlap check's boundaries among many segments, alignment
checked per side of a copy, several engines on one registry, the error-message slot's contract,
the binding's own argument checks, and the loader's refusals of build records and libraries.

Host memory with the cpu build (shared-memory handles); each case names the branch it takes."""

from __future__ import annotations

import ctypes
import gc
import json
import os
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.component("native")


def _pattern(n: int, seed: int):
    import torch

    idx = torch.arange(n, dtype=torch.int64)
    return ((idx * 131 + seed * 17 + (idx >> 8)) % 251).to(torch.uint8)


@pytest.fixture
def lib(native_libs):
    return native_libs("host")


@pytest.fixture
def reg(lib):
    from porting import native

    registry = native.Registry(lib)
    yield registry
    registry.close()


def _own_shm() -> set[str]:
    """This process's shared-memory objects (the cpu build names them /pn-<pid>-<n>)."""
    prefix = f"pn-{os.getpid()}-"
    return {name for name in os.listdir("/dev/shm") if name.startswith(prefix)}


def _mappings(name: str) -> int:
    """How many mappings of /dev/shm/<name> this process holds."""
    return sum(1 for line in Path("/proc/self/maps").read_text().splitlines() if line.endswith("/dev/shm/" + name))


def _edited(handle: bytes, **fields) -> bytes:
    from porting.native.library import ExportHandleC

    c = ExportHandleC.from_buffer_copy(handle)
    for name, value in fields.items():
        setattr(c, name, value)
    return bytes(c)


def _shm_name(handle: bytes) -> str:
    from porting.native.library import ExportHandleC

    return bytes(ExportHandleC.from_buffer_copy(handle).bytes).split(b"\0")[0].decode().lstrip("/")


# ---- registration that fails after the runtime allocated or mapped memory -------------------

# pn_alloc_exportable creates and maps the shared memory before insert() checks the element size:
# each refusal of insert() must release (unmap and unlink) what was allocated.
@pytest.mark.parametrize("case", ["element_size_refused", "size_not_multiple_of_element"])
def test_refused_exportable_allocation_releases_its_shared_memory(reg, case):
    from porting import native

    size, elem, status, message = {
        "element_size_refused": (64, 3, "invalid", r"element size 3 is not 1, 2, 4, 8 or 16"),
        "size_not_multiple_of_element": (66, 4, "alignment", r"size 66 is not a multiple of the element size 4"),
    }[case]
    before = _own_shm()
    with pytest.raises(native.NativeError, match=message) as info:
        reg.alloc_exportable(size, elem)
    assert info.value.status == status
    assert _own_shm() == before, "the refused allocation's shared memory was left behind"
    assert len(reg) == 0


def test_refused_import_unmaps_and_leaves_the_allocation(reg):
    """pn_import maps the handle, then insert() refuses the element size: the mapping is released
    (an import never unlinks), and the exporter's allocation still imports afterwards."""
    from porting import native

    seg = reg.alloc_exportable(4096)
    handle = reg.export(seg.key)
    name = _shm_name(handle)
    assert _mappings(name) == 1
    with pytest.raises(native.NativeError, match=r"element size 5 is not 1, 2, 4, 8 or 16") as info:
        reg.import_handle(handle, elem_size=5)
    assert info.value.status == "invalid"
    assert _mappings(name) == 1, "the refused import left its mapping"
    assert name in _own_shm() and len(reg) == 1
    again = reg.import_handle(handle, elem_size=4)
    assert again.size == 4096 and again.elem_size == 4 and _mappings(name) == 2


# ---- the handle's offset field ----------------------------------------------------------------

def test_import_at_an_offset_maps_that_part_of_the_allocation(reg):
    """The handle's offset selects where the segment starts inside the exported allocation (the
    cpu build maps offset + size and registers from the offset); export itself writes 0."""
    seg = reg.alloc_exportable(8192)
    seg.as_tensor().copy_(_pattern(8192, 11))
    handle = reg.export(seg.key)
    from porting.native.library import ExportHandleC

    assert ExportHandleC.from_buffer_copy(handle).offset == 0
    part = reg.import_handle(_edited(handle, offset=3072, size=1024))
    assert part.size == 1024
    assert bool((part.as_tensor() == _pattern(8192, 11)[3072:4096]).all())


def test_import_offset_past_the_allocation_is_refused(reg):
    """offset + size is what must fit (a handle whose size alone fits is still refused)."""
    from porting import native

    seg = reg.alloc_exportable(4096)
    with pytest.raises(native.NativeError, match=r"is smaller than the handle's 2048 bytes") as info:
        reg.import_handle(_edited(reg.export(seg.key), offset=3072, size=2048))
    assert info.value.status == "bounds" and len(reg) == 1


def test_import_offset_misaligned_for_the_element_size_is_refused(reg):
    """The mapping is page-aligned, so the pointer's alignment is the offset's: an offset of 2
    under element size 4 is refused by the registration's alignment check (and unmapped)."""
    from porting import native

    seg = reg.alloc_exportable(4096)
    handle = reg.export(seg.key)
    with pytest.raises(native.NativeError, match=r"is not aligned to the element size 4") as info:
        reg.import_handle(_edited(handle, offset=2, size=1024), elem_size=4)
    assert info.value.status == "alignment" and _mappings(_shm_name(handle)) == 1


# ---- imports: several of one handle, not re-exportable ---------------------------------------

def test_one_handle_imported_twice_gives_two_aliasing_segments(reg):
    """Each import is its own mapping at its own address (no overlap refusal), both over the same
    memory: a write through one is read through the other and through the exporter's segment."""
    from porting import native

    seg = reg.alloc_exportable(4096)
    handle = reg.export(seg.key)
    a, b = reg.import_handle(handle), reg.import_handle(handle)
    assert len({seg.ptr, a.ptr, b.ptr}) == 3 and len(reg) == 3
    eng = native.CopyEngine(reg)
    src = reg.register(_pattern(4096, 12))
    eng.write(a.key, 0, src.key, 0, 4096).wait()
    assert bool((b.as_tensor() == src.owner).all()) and bool((seg.as_tensor() == src.owner).all())


def test_an_imported_segment_cannot_be_exported_again(reg):
    """Only the allocating registry exports (pn_export checks exported_alloc, which an import
    does not set): re-sharing goes through the original handle."""
    from porting import native

    seg = reg.alloc_exportable(256)
    handle = reg.export(seg.key)
    imported = reg.import_handle(handle)
    with pytest.raises(native.NativeError, match=rf"segment {imported.key} was not allocated by alloc_exportable"):
        reg.export(imported.key)
    assert reg.export(seg.key) == handle, "exporting twice gives the same handle"


def test_registering_inside_an_exportable_allocation_overlaps(reg):
    """alloc_exportable registers its memory: the same range cannot be registered again."""
    from porting import native

    seg = reg.alloc_exportable(4096)
    with pytest.raises(native.NativeError, match=rf"overlaps registered segment {seg.key}") as info:
        reg.register_ptr(seg.ptr + 100, 16)
    assert info.value.status == "overlap"


def test_registry_garbage_collection_releases_its_exports(lib):
    """A Registry dropped without close() releases through __del__ (shared memory unlinked)."""
    from porting import native

    before = _own_shm()
    registry = native.Registry(lib)
    registry.alloc_exportable(4096)
    assert len(_own_shm() - before) == 1
    del registry
    gc.collect()
    assert _own_shm() == before


# ---- the overlap check among many segments -------------------------------------------------

def test_overlap_names_the_segment_it_hits_among_many(reg):
    """The registry finds the neighbours by address (not by key or insertion order): 64 segments
    registered in a shuffled order, then a range into each one's last byte names that segment,
    and a range exactly filling each gap is accepted."""
    import random

    import torch

    from porting import native

    base = torch.zeros(64 * 64, dtype=torch.uint8)
    order = list(range(64))
    random.Random(5).shuffle(order)
    keys = {}
    for i in order:  # segment i covers [64 i, 64 i + 32); the gaps [64 i + 32, 64 i + 64) stay free
        keys[i] = reg.register_ptr(base.data_ptr() + 64 * i, 32).key
    wrong = []
    for i in range(64):
        try:
            reg.register_ptr(base.data_ptr() + 64 * i + 31, 2)
            wrong.append(f"{i}: accepted")
        except native.NativeError as exc:
            if f"overlaps registered segment {keys[i]}" not in str(exc):
                wrong.append(f"{i}: {exc}")
    for i in range(63):
        reg.register_ptr(base.data_ptr() + 64 * i + 32, 32)
    assert not wrong, wrong
    assert len(reg) == 64 + 63


def test_element_sizes_at_each_power_of_two_are_accepted(reg):
    """The accepted side of the element-size check: 1, 2, 4, 8 and 16 at an aligned pointer,
    each kept on the segment (looped: one branch)."""
    import torch

    base = torch.zeros(16 * 40, dtype=torch.uint8)
    start = (-base.data_ptr()) % 16
    wrong = []
    for i, elem in enumerate([1, 2, 4, 8, 16]):
        seg = reg.register_ptr(base.data_ptr() + start + 64 * i, 32, elem)
        if (seg.size, seg.elem_size) != (32, elem):
            wrong.append(f"{elem}: {seg}")
    assert not wrong, wrong


def test_binding_refuses_negative_sizes_before_the_library(reg):
    """register_ptr's own check (a negative size would wrap to 2**64 in the C call)."""
    from porting import native

    wrong = []
    for size, elem in [(-1, 1), (8, 0), (8, -4)]:
        try:
            reg.register_ptr(4096, size, elem)
            wrong.append(f"{size}/{elem}: accepted")
        except native.NativeError as exc:
            if str(exc) != f"register: bad size {size} / elem_size {elem}":
                wrong.append(f"{size}/{elem}: {exc}")
    assert not wrong and len(reg) == 0, wrong


def test_keys_belong_to_their_registry(lib):
    """Keys are numbered per registry: the same key names different memory in two registries,
    and a key one registry never issued is unknown there."""
    import torch

    from porting import native

    with native.Registry(lib) as r1, native.Registry(lib) as r2:
        a = r1.register(torch.zeros(8, dtype=torch.uint8))
        b = r2.register(torch.zeros(16, dtype=torch.uint8))
        assert a.key == b.key and r1.segment(a.key).size == 8 and r2.segment(b.key).size == 16
        r1.register(torch.zeros(4, dtype=torch.uint8))
        with pytest.raises(native.NativeError, match=rf"segment key {a.key + 1} is not registered"):
            r2.segment(a.key + 1)


# ---- copies: the overlap boundary, alignment per side, several engines ------------------------

def test_copy_overlap_check_is_half_open(reg):
    """Inside one segment: ranges that touch are copied; one shared byte is refused."""
    import torch

    from porting import native

    eng = native.CopyEngine(reg)
    t = _pattern(256, 13).clone()
    seg = reg.register(t)
    expected = t.clone()
    expected[64:128] = expected[0:64]
    eng.write(seg.key, 64, seg.key, 0, 64).wait()  # dst starts where src ends
    eng.write(seg.key, 192, seg.key, 128, 64).wait()  # and the other way round below
    expected[192:256] = expected[128:192]
    assert torch.equal(t, expected)
    for dst, src in [(63, 0), (0, 63)]:
        with pytest.raises(native.NativeError, match=r"source and destination ranges overlap \(64 bytes") as info:
            eng.write(seg.key, dst, seg.key, src, 64)
        assert info.value.status == "overlap"


def test_copy_alignment_is_checked_per_side(reg):
    """Each side is checked against its own segment's element size and named by role: a byte
    offset is fine on a uint8 destination while the int32 source refuses it, and vice versa."""
    import torch

    from porting import native

    eng = native.CopyEngine(reg)
    bytes_seg = reg.register(torch.zeros(64, dtype=torch.uint8))
    words = reg.register(torch.arange(16, dtype=torch.int32))
    eng.write(bytes_seg.key, 3, words.key, 4, 8).wait()  # odd dst offset on the uint8 side: fine
    assert bytes_seg.owner[3:11].clone().view(torch.int32).tolist() == [1, 2]
    cases = {
        "source offset": (lambda: eng.write(bytes_seg.key, 0, words.key, 2, 4),
                          rf"source offset 2 / length 4 not aligned to segment {words.key}'s element size 4"),
        "source length": (lambda: eng.write(bytes_seg.key, 0, words.key, 0, 6),
                          rf"source offset 0 / length 6 not aligned to segment {words.key}'s element size 4"),
        "destination offset": (lambda: eng.read(bytes_seg.key, 0, words.key, 1, 4),
                               rf"destination offset 1 / length 4 not aligned to segment {words.key}'s"),
    }
    wrong = []
    for name, (call, message) in cases.items():
        try:
            call()
            wrong.append(f"{name}: accepted")
        except native.NativeError as exc:
            if exc.status != "alignment" or not re.search(message, str(exc)):
                wrong.append(f"{name}: {exc.status}: {exc}")
    assert not wrong, wrong


def test_two_engines_on_one_registry_number_events_apart(reg):
    """Each engine has its own stream and event table: both start at event 1, an id issued only
    by the other engine is unknown, and closing the registry closes both."""
    import torch

    from porting import native

    e1, e2 = native.CopyEngine(reg), native.CopyEngine(reg)
    src = reg.register(_pattern(1024, 14))
    d1, d2 = reg.register(torch.zeros(1024, dtype=torch.uint8)), reg.register(torch.zeros(1024, dtype=torch.uint8))
    first = [e1.write(d1.key, 0, src.key, 0, 512), e1.write(d1.key, 512, src.key, 512, 512)]
    other = e2.write(d2.key, 0, src.key, 0, 1024)
    assert [ev.id for ev in first] == [1, 2] and other.id == 1
    with pytest.raises(native.NativeError, match=r"event 2 was never issued by this engine"):
        native.Event(e2, 2).wait()
    for ev in first + [other]:
        ev.wait()
    assert torch.equal(d1.owner, src.owner) and torch.equal(d2.owner, src.owner)
    reg.close()
    for eng in (e1, e2):
        with pytest.raises(native.NativeError, match=r"copy engine is closed"):
            eng.synchronize()


def test_an_engine_cannot_be_created_on_a_closed_registry(lib):
    from porting import native

    registry = native.Registry(lib)
    registry.close()
    with pytest.raises(native.NativeError, match=r"^registry is closed$"):
        native.CopyEngine(registry)
    with pytest.raises(native.NativeError, match=r"^registry is closed$"):
        registry.deregister(1)


def test_an_event_of_a_closed_engine_refuses_queries(reg):
    import torch

    from porting import native

    eng = native.CopyEngine(reg)
    a, b = reg.register(_pattern(8, 15)), reg.register(torch.zeros(8, dtype=torch.uint8))
    ev = eng.write(b.key, 0, a.key, 0, 8)
    eng.close()  # the stream drains before it stops: the copy landed
    assert torch.equal(b.owner, a.owner)
    for call in (ev.done, ev.wait):
        with pytest.raises(native.NativeError, match=r"copy engine is closed"):
            call()


# ---- the C ABI's error slot and destroy functions --------------------------------------------

def test_error_message_stays_until_the_next_failure(lib):
    """pn_last_error is only written on failure: a successful call leaves the previous message
    (callers read it only after a non-zero status), the next failure replaces it."""
    from porting import native

    with pytest.raises(native.NativeError):
        native.classify(0, lib=lib)
    assert lib.cdll.pn_last_error() == b"pointer is NULL"
    count = ctypes.c_int32(-1)
    assert lib.cdll.pn_device_count(ctypes.byref(count)) == 0 and count.value == 0
    assert lib.cdll.pn_last_error() == b"pointer is NULL"
    assert lib.cdll.pn_segment_count(None, None) == 1
    assert lib.cdll.pn_last_error() == b"registry or count is NULL"


def test_destroying_null_handles_is_a_no_op(lib):
    """pn_registry_destroy / pn_engine_destroy accept NULL (C's free() convention), so the
    binding may call them from __del__ of a half-constructed object."""
    lib.cdll.pn_registry_destroy(None)
    lib.cdll.pn_engine_destroy(None)
    assert lib.cdll.pn_abi_version() == 1


def test_statuses_outside_the_enum_map_to_runtime(lib, monkeypatch):
    """Library.call names every status of port_native.h; one it does not know (a newer library)
    is reported as runtime with the library's message, not dropped or mistaken for success."""
    from porting import native
    from porting.native.errors import STATUS_NAMES

    assert STATUS_NAMES == {1: "invalid", 2: "no-device", 3: "runtime", 4: "not-found", 5: "bounds",
                            6: "overlap", 7: "alignment", 8: "unsupported"}

    class Fake:
        def __getattr__(self, name):
            if name == "pn_last_error":
                return lambda: b"from a newer library"
            return lambda *args: 42

    monkeypatch.setattr(lib, "cdll", Fake())
    with pytest.raises(native.NativeError, match=r"^pn_device_count: from a newer library$") as info:
        lib.call("pn_device_count", None)
    assert info.value.status == "runtime"


# ---- the binding's shard/reduce branches no other case takes ---------------------------------

def test_gather_into_a_given_out_and_a_negative_dim(lib):
    """gather(out=...) writes into and returns the caller's tensor; dim=-1 is the last dim."""
    import torch

    from porting import native

    t = torch.arange(60, dtype=torch.float32).reshape(3, 4, 5)
    out = torch.full((3, 4, 2), -1.0)
    got = native.gather(t, -1, 2, 2, out=out, lib=lib)
    assert got is out and torch.equal(out, t[:, :, 2:4])


def test_zero_size_dim_gives_empty_shards_for_every_index(lib):
    """chunk_bounds with size 0 (step 0): every index is (0, 0), gathers are empty and a
    scatter of an empty staging into the empty shard is a no-op."""
    import torch

    from porting import native

    t = torch.zeros(0, 3)
    assert [native.chunk_bounds(0, 3, i) for i in range(3)] == [(0, 0)] * 3
    for i in range(3):
        assert native.gather_shard(t, 0, 3, i, lib=lib).shape == (0, 3)
    out = torch.ones(4, 3)
    native.scatter(torch.zeros(0), out, 0, 2, 0, lib=lib)
    assert bool((out == 1).all())


def test_reduce_into_its_first_buffer(lib):
    """out may alias buffer 0 (an in-place accumulation): elementwise, so the result is the
    reference's; returned object is the caller's out."""
    import torch

    from porting import native

    bufs = [torch.arange(1000, dtype=torch.float32) * (i + 1) for i in range(3)]
    expected = native.reduce_reference(bufs, "sum")
    got = native.reduce(bufs, "sum", out=bufs[0], lib=lib)
    assert got is bufs[0] and torch.equal(bufs[0], expected)


def test_tensors_on_another_device_are_refused_by_the_binding(lib):
    """_check_device: the cpu build takes cpu tensors only (a meta tensor has no memory)."""
    import torch

    from porting import native

    meta = torch.empty(4, 4, device="meta")
    cases = {
        "gather": lambda: native.gather(meta, 0, 0, 2, lib=lib),
        "scatter": lambda: native.scatter(torch.empty(8, device="meta"), meta, 0, 0, 2, lib=lib),
        "reduce": lambda: native.reduce([meta, meta], "sum", lib=lib),
    }
    wrong = []
    for name, call in cases.items():
        try:
            call()
            wrong.append(f"{name}: accepted")
        except native.NativeError as exc:
            if str(exc) != "tensor on meta but the cpu build works on cpu tensors":
                wrong.append(f"{name}: {exc}")
    assert not wrong, wrong


# ---- the loader: build records and libraries ----------------------------------------------------

def _record(tmp_path: Path, text: str) -> Path:
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "build-record.json").write_text(text)
    return tmp_path


# Each a branch of library_path / Library(): absent (not-found: cases skip) vs broken (cases error).
LOADER = {
    "no_record": (None, "not-found", r"no build record; run `port build --path cpu`"),
    "unreadable_record": ("{not json", "invalid", r"unreadable build record: JSONDecodeError"),
    "failed_build": (json.dumps({"ok": False, "library": "lib/x.so"}), "not-found",
                     r"the last `port build --path cpu` did not succeed"),
    "compile_only_toolchain": (json.dumps({"ok": True, "library": "lib/x.so", "runnable": False,
                                           "toolchain": "clang-22", "gpu_archs": ["gfx942"]}), "not-found",
                               r"built by the compile-only clang-22 toolchain \(compiled for gfx942\)"),
    "not_a_library": (json.dumps({"ok": True, "library": "lib/x.so"}), "runtime", r"cannot load native library"),
    "missing_symbols": (json.dumps({"ok": True, "library": "LIBC"}), "invalid",
                        r"missing symbol pn_abi_version \(stale build\? run `port build`\)"),
}


def _loaded_libc() -> str:
    """The C library this process mapped: a real shared object without the native symbols."""
    for line in Path("/proc/self/maps").read_text().splitlines():
        if re.search(r"/libc[.-][^/]*so", line):
            return line.split()[-1]
    pytest.fail("no libc mapping in /proc/self/maps")


@pytest.mark.parametrize("case", list(LOADER))
def test_loader_refusals_of_build_records(tmp_path, case):
    from porting import native

    text, status, message = LOADER[case]
    if text is not None:
        _record(tmp_path, text.replace("LIBC", _loaded_libc()))
        (tmp_path / "cpu" / "lib").mkdir()
        (tmp_path / "cpu" / "lib" / "x.so").write_text("not an ELF file")
    with pytest.raises(native.NativeError, match=message) as info:
        native.Library(native.library_path("cpu", tmp_path))
    assert info.value.status == status
    assert native.absent(info.value) == (status == "not-found")


# ---- the kernels' pointer checks at the C ABI (make_shard_view / check_reduce_args) -------------

def _shard_call(lib, base, sizes, strides, length, staging):
    c = lambda values: None if values is None else (ctypes.c_int64 * len(values))(*values)  # noqa: E731
    lib.call("pn_gather_shard", ctypes.c_void_p(base), len(sizes or [0]), c(sizes), c(strides), 4, 0, 0, length,
             ctypes.c_void_p(staging), ctypes.c_void_p(None))


def test_an_empty_shard_needs_no_pointers(lib):
    """numel == 0 returns before the pointer checks: NULL tensor and staging are accepted (empty
    tensors may have no data pointer); a non-empty shard with either NULL is refused."""
    import torch

    from porting import native

    _shard_call(lib, None, [4, 3], [3, 1], 0, None)
    staging = torch.zeros(3, dtype=torch.float32)
    for base, stage in [(None, staging.data_ptr()), (staging.data_ptr(), None)]:
        with pytest.raises(native.NativeError, match=r"tensor or staging pointer is NULL") as info:
            _shard_call(lib, base, [4, 3], [3, 1], 1, stage)
        assert info.value.status == "invalid"


def test_shard_sizes_or_strides_null_is_refused(lib):
    from porting import native

    for sizes, strides in [(None, [1]), ([4], None)]:
        with pytest.raises(native.NativeError, match=r"sizes or strides is NULL") as info:
            lib.call("pn_gather_shard", ctypes.c_void_p(4096), 1,
                     None if sizes is None else (ctypes.c_int64 * 1)(*sizes),
                     None if strides is None else (ctypes.c_int64 * 1)(*strides), 4, 0, 0, 1,
                     ctypes.c_void_p(4096), ctypes.c_void_p(None))
        assert info.value.status == "invalid"


def test_a_size_one_dim_with_any_stride_is_ignored(lib):
    """Size-1 dims are dropped before the copy (their stride is never used): a view whose size-1
    dim has a stride far outside the storage gathers and scatters like its squeezed twin."""
    import torch

    from porting import native

    base = torch.arange(24, dtype=torch.float32)
    view = base.as_strided((4, 1, 6), (6, 1 << 40, 1))
    got = native.gather(view, 2, 1, 3, lib=lib)
    assert torch.equal(got, base.view(4, 1, 6)[:, :, 1:4])
    out = torch.zeros(24).as_strided((4, 1, 6), (6, 1 << 40, 1))
    native.scatter(got, out, 2, 1, 3, lib=lib)
    assert torch.equal(out[:, :, 1:4], got) and float(out[:, :, [0, 4, 5]].abs().sum()) == 0.0


def test_gather_reads_an_expanded_view(lib):
    """A stride-0 dim (expanded) is refused only for scatter (aliasing writes); gather reads it,
    the repeated row copied once per index (the element loop over a stride-0 dim)."""
    import torch

    from porting import native

    row = torch.arange(5, dtype=torch.int32)
    wide = row.expand(7, 5)
    assert wide.stride() == (0, 1)
    assert torch.equal(native.gather_shard(wide, 0, 2, 1, lib=lib), wide[4:].contiguous())
    assert torch.equal(native.gather(wide, 1, 2, 2, lib=lib), wide[:, 2:4].contiguous())


# Each a check of check_reduce_args not in test_native_kernels.py's ABI cases.
REDUCE_POINTERS = {
    "buffer_list_null": ("list", 4, r"buffer list is NULL"),
    "one_buffer_null": ("second", 4, r"buffer 1 is NULL"),
}


@pytest.mark.parametrize("case", list(REDUCE_POINTERS))
def test_reduce_pointer_refusals(lib, case):
    import torch

    from porting import native

    which, n, message = REDUCE_POINTERS[case]
    a, out = torch.ones(4), torch.zeros(4)
    ptrs = None if which == "list" else (ctypes.c_void_p * 2)(a.data_ptr(), None)
    with pytest.raises(native.NativeError, match=message) as info:
        lib.call("pn_reduce", ptrs, 2, n, 0, 0, ctypes.c_void_p(out.data_ptr()), ctypes.c_void_p(None))
    assert info.value.status == "invalid" and float(out.sum()) == 0.0


def test_reduce_of_zero_elements_needs_no_pointers(lib):
    """n == 0 is accepted before out and the buffers are looked at (NULL everywhere), but the
    argument checks before it still apply (an unknown op is refused even for n == 0)."""
    from porting import native

    ptrs = (ctypes.c_void_p * 2)(None, None)
    lib.call("pn_reduce", ptrs, 2, 0, 0, 0, ctypes.c_void_p(None), ctypes.c_void_p(None))
    with pytest.raises(native.NativeError, match=r"unknown reduce op 7"):
        lib.call("pn_reduce", ptrs, 2, 0, 0, 7, ctypes.c_void_p(None), ctypes.c_void_p(None))


# ---- the loader's search over build paths (load / load_for) ------------------------------------

def _gpu_paths() -> list[str]:
    from porting.native.library import PATHS

    return [p for p in PATHS if p != "cpu"]


def test_load_with_nothing_built_lists_every_path(tmp_path):
    """No record anywhere: not-found (the cases skip), with one problem per build path."""
    from porting import native
    from porting.native.library import PATHS

    with pytest.raises(native.NativeError) as info:
        native.load(build_dir=tmp_path)
    assert info.value.status == "not-found" and str(info.value).startswith("no usable native build: ")
    assert [p for p in PATHS if f"run `port build --path {p}`" in str(info.value)] == list(PATHS)


def test_load_reports_a_broken_build_over_absent_ones(tmp_path):
    """One GPU path's record is unreadable, the others are absent: the load fails with the broken
    one's status (invalid), so the cases error instead of skipping (_worst)."""
    from porting import native

    broken = _gpu_paths()[-1]
    (tmp_path / broken).mkdir()
    (tmp_path / broken / "build-record.json").write_text("[unterminated")
    with pytest.raises(native.NativeError, match=r"unreadable build record") as info:
        native.load(build_dir=tmp_path)
    assert info.value.status == "invalid" and not native.absent(info.value)


def test_load_falls_through_absent_gpu_builds_to_the_cpu_build(tmp_path, lib):
    """The preference order ends at cpu: with only a cpu record (naming the built library by an
    absolute path) load() returns that build; load_for("device") still refuses it."""
    from porting import native

    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "build-record.json").write_text(json.dumps({"ok": True, "library": str(lib.file)}))
    found = native.load(build_dir=tmp_path)
    assert (found.backend, found.file) == ("cpu", lib.file.resolve())
    with pytest.raises(native.NativeError, match=r"^no usable GPU build for device memory: ") as info:
        native.load_for("device", build_dir=tmp_path)
    assert info.value.status == "not-found"


# ---- concurrency on the registry's and the engine's locks ------------------------------------

def test_exports_racing_a_deregistration_either_export_or_report_it(reg):
    """pn_export runs under the registry lock, so against a concurrent deregister each export
    either returns a handle of the live allocation or reports the key unknown; never a handle
    of released memory that still imports as something else."""
    import threading

    from porting import native

    outcomes: list[str] = []
    for _ in range(20):
        seg = reg.alloc_exportable(4096)
        start = threading.Barrier(2)
        handles: list[bytes] = []

        def export_many(key=seg.key, start=start, handles=handles) -> None:
            start.wait()
            for _ in range(200):
                try:
                    handles.append(reg.export(key))
                except native.NativeError as exc:
                    outcomes.append(exc.status)
                    return

        worker = threading.Thread(target=export_many)
        worker.start()
        start.wait()
        reg.lib.call("pn_deregister", reg.handle, seg.key)  # no quiesce: no engine here
        worker.join()
        for h in handles:
            with pytest.raises(native.NativeError, match=r"\(was it released\?\)"):
                reg.import_handle(h)
    assert set(outcomes) <= {"not-found"}, outcomes
    assert len(reg) == 0


def test_threads_waiting_on_events_while_another_synchronizes(reg):
    """pn_event_wait holds its event by reference outside the engine lock while other threads
    retire it (synchronize, later waits): 8 threads each waiting on every event in another order
    all return, and the bytes landed."""
    import random
    import threading

    import torch

    from porting import native

    eng = native.CopyEngine(reg)
    n, parts = 1 << 22, 16
    src, dst = reg.register(_pattern(n, 16)), reg.register(torch.zeros(n, dtype=torch.uint8))
    step = n // parts
    events = [eng.write(dst.key, i * step, src.key, i * step, step) for i in range(parts)]
    errors: list[str] = []

    def wait_all(seed: int) -> None:
        order = list(events)
        random.Random(seed).shuffle(order)
        try:
            for ev in order:
                ev.wait()
        except native.NativeError as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=wait_all, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    eng.synchronize()
    for t in threads:
        t.join()
    assert not errors and all(ev.done() for ev in events) and torch.equal(dst.owner, src.owner)


# ---- the binding's Segment views and pointer classification ---------------------------------------

def test_a_segment_views_as_any_dtype_and_device_kinds_have_none(reg):
    """Segment.as_tensor aliases host memory (a float32 view of an exported allocation writes
    through); a segment whose kind is device memory has no host view and says so."""
    import dataclasses

    import torch

    from porting import native

    seg = reg.alloc_exportable(64, 4)
    view = seg.as_tensor(torch.float32)
    view.fill_(1.5)
    assert view.shape == (16,) and torch.equal(seg.as_tensor().view(torch.float32), torch.full((16,), 1.5))
    device_seg = dataclasses.replace(seg, info=native.PointerInfo("device", 0, "0000:00:00.0"))
    with pytest.raises(native.NativeError, match=rf"^segment {seg.key}: device memory has no host view$"):
        device_seg.as_tensor()


def test_classifying_an_address_never_dereferences_it(lib):
    """classify() of an integer address asks the runtime only (the cpu build answers host for any
    non-NULL address, mapped or not), so a bad address is classified, not crashed on."""
    from porting import native

    for address in (0x1000, (1 << 47) - 4096, 0xDEADBEEF):
        info = native.classify(address, lib=lib)
        assert (info.kind, info.device, info.pci_bus_id) == ("host", -1, ""), hex(address)


def test_a_copy_between_two_mappings_of_one_allocation(reg):
    """Two imports of one handle are two address ranges over the same memory: a copy from the
    first mapping's [0, 64) to the second's [64, 128) passes the (virtual-address) overlap check
    and lands in the exporter's [64, 128)."""
    from porting import native

    seg = reg.alloc_exportable(4096)
    seg.as_tensor().copy_(_pattern(4096, 17))
    handle = reg.export(seg.key)
    a, b = reg.import_handle(handle), reg.import_handle(handle)
    native.CopyEngine(reg).write(b.key, 64, a.key, 0, 64).wait()
    expected = _pattern(4096, 17)
    expected[64:128] = expected[0:64].clone()
    assert bool((seg.as_tensor() == expected).all())


def test_the_cpu_build_ignores_the_handles_device_field(reg):
    """A shared-memory handle names no device: an import with device 3 maps the same memory."""
    seg = reg.alloc_exportable(128)
    seg.as_tensor().fill_(0x5A)
    imported = reg.import_handle(_edited(reg.export(seg.key), device=3))
    assert imported.info.kind == "host" and imported.info.device == -1
    assert bool((imported.as_tensor() == 0x5A).all())


def test_reduce_into_its_last_buffer(lib):
    """out may alias a buffer that is read after buffer 0: each block is accumulated before it
    is stored, so every element reads the last buffer before overwriting it (past one 2048-element
    block and a partial one)."""
    import torch

    from porting import native

    bufs = [torch.arange(5000, dtype=torch.float32) * (i + 1) for i in range(3)]
    expected = native.reduce_reference(bufs, "sum")
    got = native.reduce(bufs, "sum", out=bufs[2], lib=lib)
    assert got is bufs[2] and torch.equal(bufs[2], expected)
