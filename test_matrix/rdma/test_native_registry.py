"""Our native layer's registry: every refusal of pn_register / pn_deregister / pn_export /
pn_import carries its own C status and message (the C ABI promises a status and a one-line
message for bad input, never an abort), and the boundaries next to each refusal are accepted.

Host memory with the cpu build (shared-memory handles). The GPU builds' registration and IPC
handles are checked in test_native_copy.py's device cases."""

from __future__ import annotations

import ctypes

import pytest

pytestmark = pytest.mark.component("native")


@pytest.fixture
def reg(native_libs):
    from porting import native

    registry = native.Registry(native_libs("host"))
    yield registry
    registry.close()


def _bytes(n: int):
    import torch

    return torch.zeros(n, dtype=torch.uint8)


def _register_cases():
    """case -> (action(reg, base), status, message pattern); ``base`` is a registered 64-byte
    tensor (its segment covers base[16:48]) that the actions overlap or reuse."""
    return {
        "same_range_twice": (lambda reg, t: reg.register_ptr(t.data_ptr() + 16, 32), "overlap",
                             r"overlaps registered segment \d+"),
        # starts before the registered segment and runs into it (the next segment in address order)
        "overlaps_following_segment": (lambda reg, t: reg.register_ptr(t.data_ptr(), 17), "overlap",
                                       r"overlaps registered segment \d+"),
        # starts inside the registered segment (the previous segment in address order)
        "overlaps_preceding_segment": (lambda reg, t: reg.register_ptr(t.data_ptr() + 47, 4), "overlap",
                                       r"overlaps registered segment \d+"),
        "zero_size": (lambda reg, t: reg.register_ptr(t.data_ptr(), 0), "invalid",
                      r"cannot register a zero-size segment"),
        "null_pointer": (lambda reg, t: reg.register_ptr(0, 8), "invalid", r"cannot register a NULL pointer"),
        "element_size_not_power_of_two": (lambda reg, t: reg.register_ptr(t.data_ptr(), 12, 3), "invalid",
                                          r"element size 3 is not 1, 2, 4, 8 or 16"),
        "element_size_too_large": (lambda reg, t: reg.register_ptr(t.data_ptr(), 64, 32), "invalid",
                                   r"element size 32 is not 1, 2, 4, 8 or 16"),
        "pointer_not_aligned": (lambda reg, t: reg.register_ptr(t.data_ptr() + 49, 8, 4), "alignment",
                                r"is not aligned to the element size 4"),
        "size_not_multiple_of_element": (lambda reg, t: reg.register_ptr(t.data_ptr() + 48, 6, 4), "alignment",
                                         r"size 6 is not a multiple of the element size 4"),
        # never dereferenced: the range check refuses it before anything touches the memory
        "range_wraps_address_space": (lambda reg, t: reg.register_ptr((1 << 64) - 16, 32), "bounds",
                                      r"wraps the address space"),
        "deregister_unknown_key": (lambda reg, t: reg.deregister(987654), "not-found",
                                   r"segment key 987654 is not registered"),
        "deregister_twice": (lambda reg, t: [reg.deregister(k) for k in [reg.register_ptr(t.data_ptr(), 8).key] * 2],
                             "not-found", r"segment key \d+ is not registered"),
        "segment_of_unknown_key": (lambda reg, t: reg.segment(987654), "not-found",
                                   r"segment key 987654 is not registered"),
        "empty_tensor": (lambda reg, t: reg.register(t[:0]), "invalid", r"zero-size segment"),
        "non_contiguous_tensor": (lambda reg, t: reg.register(t[::2]), "invalid", r"tensor must be contiguous"),
    }


@pytest.mark.parametrize("case", list(_register_cases()))
def test_registration_refusals(reg, case):
    from porting import native

    action, status, message = _register_cases()[case]
    base = _bytes(64)
    held = reg.register_ptr(base.data_ptr() + 16, 32)
    before = len(reg)
    with pytest.raises(native.NativeError, match=message) as info:
        action(reg, base)
    assert info.value.status == status, f"{case}: status {info.value.status}, expected {status}"
    # a refusal registers nothing (deregister_twice removed the one segment it added itself)
    assert len(reg) == before and reg.segment(held.key).size == 32


def test_adjacent_segments_are_not_overlaps(reg):
    """The overlap check is half-open: segments that touch at one address both register, and
    after deregistering one its range can be registered again."""
    base = _bytes(96)
    a = reg.register_ptr(base.data_ptr(), 32)
    b = reg.register_ptr(base.data_ptr() + 32, 32)
    c = reg.register_ptr(base.data_ptr() + 64, 32)
    assert len(reg) == 3 and len({a.key, b.key, c.key}) == 3
    reg.deregister(b.key)
    again = reg.register_ptr(base.data_ptr() + 32, 32)
    assert again.key not in (a.key, b.key, c.key), "keys are never reused"
    assert len(reg) == 3


def _handle_fields(handle: bytes):
    from porting.native.library import ExportHandleC

    return ExportHandleC.from_buffer_copy(handle)


def _edited(handle: bytes, **fields) -> bytes:
    c = _handle_fields(handle)
    for name, value in fields.items():
        if name == "name":
            ctypes.memset(c.bytes, 0, len(c.bytes))
            ctypes.memmove(c.bytes, value, len(value))
        else:
            setattr(c, name, value)
    return bytes(c)


def _import_cases():
    """case -> (make_handle(reg, exported_segment, handle), status, message pattern)."""
    return {
        "released_allocation": (lambda reg, seg, h: (reg.deregister(seg.key), h)[1], "not-found",
                                r"shared memory /pn-\S+: .*\(was it released\?\)"),
        "malformed_name": (lambda reg, seg, h: _edited(h, name=b"/etc/passwd"), "invalid",
                           r"malformed shared-memory handle"),
        "unterminated_name": (lambda reg, seg, h: _edited(h, name=b"/pn-" + b"x" * 124), "invalid",
                              r"malformed shared-memory handle"),
        "other_build_kind": (lambda reg, seg, h: _edited(h, kind=1), "unsupported",
                             r"handle kind 1 is not a shared-memory handle"),
        "zero_size": (lambda reg, seg, h: _edited(h, size=0), "invalid", r"handle describes a zero-size segment"),
        "larger_than_allocation": (lambda reg, seg, h: _edited(h, size=1 << 20), "bounds",
                                   r"is smaller than the handle's 1048576 bytes"),
    }


@pytest.mark.parametrize("case", list(_import_cases()))
def test_import_refusals(reg, case):
    """An import of a stale, foreign or inconsistent handle is refused with its reason."""
    from porting import native

    make, status, message = _import_cases()[case]
    seg = reg.alloc_exportable(4096)
    handle = make(reg, seg, reg.export(seg.key))
    before = len(reg)
    with pytest.raises(native.NativeError, match=message) as info:
        reg.import_handle(handle)
    assert info.value.status == status, f"{case}: status {info.value.status}, expected {status}"
    assert len(reg) == before, "a refused import registers nothing"


def test_import_handle_of_wrong_length_is_refused(reg):
    from porting import native

    seg = reg.alloc_exportable(64)
    with pytest.raises(native.NativeError, match=r"import: handle is 10 bytes, expected \d+"):
        reg.import_handle(reg.export(seg.key)[:10])


@pytest.mark.parametrize("case", ["not_exportable", "unknown_key", "zero_size_allocation"])
def test_export_refusals(reg, case):
    """Only memory from alloc_exportable can be exported (user memory has no shareable handle)."""
    from porting import native

    expected = {"not_exportable": ("unsupported", r"was not allocated by alloc_exportable and cannot be exported"),
                "unknown_key": ("not-found", r"segment key 424242 is not registered"),
                "zero_size_allocation": ("invalid", r"cannot allocate a zero-size segment")}[case]
    t = _bytes(64)
    with pytest.raises(native.NativeError, match=expected[1]) as info:
        if case == "not_exportable":
            reg.export(reg.register(t).key)
        elif case == "unknown_key":
            reg.export(424242)
        else:
            reg.alloc_exportable(0)
    assert info.value.status == expected[0]



def test_null_arguments_are_refused_not_dereferenced(native_libs):
    """Every entry point that takes an out-pointer or a handle checks it for NULL and returns
    invalid with a message (the ABI never aborts on bad input). One guard, looped over them."""
    from porting import native

    lib = native_libs("host")
    null = None  # ctypes passes None as a NULL pointer of any pointer type
    calls = {
        "pn_device_count": (null,), "pn_registry_create": (null,), "pn_engine_create": (null, null),
        "pn_segment_count": (null, null), "pn_deregister": (null, 1), "pn_export": (null, 1, null),
        "pn_import": (null, null, 1, null, null), "pn_alloc_exportable": (null, 8, 1, null, null),
        "pn_engine_copy": (null, 1, 0, 2, 0, 8, null), "pn_event_wait": (null, 1),
        "pn_event_query": (null, 1, null), "pn_engine_synchronize": (null,),
    }
    wrong = []
    for name, args in calls.items():
        try:
            lib.call(name, *args)
            wrong.append(f"{name}: accepted")
        except native.NativeError as exc:
            if exc.status != "invalid" or "NULL" not in str(exc):
                wrong.append(f"{name}: {exc.status}: {exc}")
    assert not wrong, wrong
