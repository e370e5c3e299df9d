"""Memory registration and the one-sided copy engine."""

from __future__ import annotations

import ctypes
import weakref
from dataclasses import dataclass, field
from typing import Any

from .errors import NativeError
from .library import ExportHandleC, Library, PointerInfoC, default_library
from .shard import PointerInfo


@dataclass
class Segment:
    """A registered memory segment: ``key`` names it in copies and exports."""

    key: int
    ptr: int
    size: int
    elem_size: int
    info: PointerInfo
    owner: Any = field(default=None, repr=False)  # keeps the tensor alive while registered

    def as_tensor(self, dtype: Any = None) -> Any:
        """A CPU torch tensor aliasing this (host or shared-memory) segment."""
        import torch

        if self.info.kind not in ("host", "managed"):
            raise NativeError(f"segment {self.key}: {self.info.kind} memory has no host view")
        buf = (ctypes.c_ubyte * self.size).from_address(self.ptr)
        return torch.frombuffer(buf, dtype=dtype or torch.uint8)


class _Closable:
    """A native handle owner: ``with`` closes it, and so does garbage collection."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self):  # -> Self
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


class Registry(_Closable):
    """Segments registered with keys and bounds; exports handles for intra-node access."""

    def __init__(self, lib: Library | None = None) -> None:
        self.lib = default_library(lib)
        handle = ctypes.c_void_p()
        self.lib.call("pn_registry_create", ctypes.byref(handle))
        self._handle: ctypes.c_void_p | None = handle
        self._owners: dict[int, Any] = {}
        self._elem: dict[int, int] = {}
        self._engines: "weakref.WeakSet[CopyEngine]" = weakref.WeakSet()

    def _quiesce(self) -> None:
        """Wait for every copy in flight on this registry's engines (before memory goes away)."""
        for engine in list(self._engines):
            if engine._handle is not None:
                engine.synchronize()

    @property
    def handle(self) -> ctypes.c_void_p:
        if self._handle is None:
            raise NativeError("registry is closed")
        return self._handle

    def register(self, tensor: Any) -> Segment:
        """Register a tensor's storage bytes (it must be contiguous)."""
        if not tensor.is_contiguous():
            raise NativeError("register: tensor must be contiguous")
        seg = self.register_ptr(tensor.data_ptr(), tensor.numel() * tensor.element_size(), tensor.element_size())
        self._owners[seg.key] = tensor
        seg.owner = tensor
        return seg

    def register_ptr(self, ptr: int, size: int, elem_size: int = 1) -> Segment:
        if size < 0 or elem_size < 1:
            raise NativeError(f"register: bad size {size} / elem_size {elem_size}")
        key = ctypes.c_uint64()
        self.lib.call("pn_register", self.handle, ctypes.c_void_p(ptr), size, elem_size, ctypes.byref(key))
        self._elem[key.value] = elem_size
        return self.segment(key.value)

    def deregister(self, key: int) -> None:
        """Remove a segment; copies in flight on this registry's engines finish first."""
        self._quiesce()
        self.lib.call("pn_deregister", self.handle, key)
        self._owners.pop(key, None)
        self._elem.pop(key, None)

    def segment(self, key: int) -> Segment:
        ptr, size, info = ctypes.c_void_p(), ctypes.c_uint64(), PointerInfoC()
        self.lib.call("pn_segment", self.handle, key, ctypes.byref(ptr), ctypes.byref(size), ctypes.byref(info))
        return Segment(key, ptr.value or 0, size.value, self._elem.get(key, 1), PointerInfo.from_c(info),
                       self._owners.get(key))

    def __len__(self) -> int:
        count = ctypes.c_uint64()
        self.lib.call("pn_segment_count", self.handle, ctypes.byref(count))
        return count.value

    def alloc_exportable(self, size: int, elem_size: int = 1) -> Segment:
        """Allocate and register memory another process can map (shm on cpu, device memory on GPU)."""
        ptr, key = ctypes.c_void_p(), ctypes.c_uint64()
        self.lib.call("pn_alloc_exportable", self.handle, size, elem_size, ctypes.byref(ptr), ctypes.byref(key))
        self._elem[key.value] = elem_size
        return self.segment(key.value)

    def export(self, key: int) -> bytes:
        """An opaque handle (bytes) for ``import_handle`` in any process on this node."""
        out = ExportHandleC()
        self.lib.call("pn_export", self.handle, key, ctypes.byref(out))
        return bytes(out)

    def import_handle(self, handle: bytes, elem_size: int = 1) -> Segment:
        if len(handle) != ctypes.sizeof(ExportHandleC):
            raise NativeError(f"import: handle is {len(handle)} bytes, expected {ctypes.sizeof(ExportHandleC)}")
        c_handle = ExportHandleC.from_buffer_copy(handle)
        ptr, key = ctypes.c_void_p(), ctypes.c_uint64()
        self.lib.call("pn_import", self.handle, ctypes.byref(c_handle), elem_size, ctypes.byref(ptr),
                      ctypes.byref(key))
        self._elem[key.value] = elem_size
        return self.segment(key.value)

    def close(self) -> None:
        if self._handle is not None:
            self._quiesce()
            for engine in list(self._engines):
                engine.close()  # an engine must not outlive the registry it resolves keys in
            self.lib.cdll.pn_registry_destroy(self._handle)
            self._handle = None
            self._owners.clear()


@dataclass
class Event:
    engine: "CopyEngine"
    id: int

    def done(self) -> bool:
        flag = ctypes.c_int32()
        self.engine.lib.call("pn_event_query", self.engine.handle, self.id, ctypes.byref(flag))
        return bool(flag.value)

    def wait(self) -> None:
        self.engine.lib.call("pn_event_wait", self.engine.handle, self.id)


class CopyEngine(_Closable):
    """Asynchronous one-sided reads/writes between registered segments, on one stream."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.lib = registry.lib
        handle = ctypes.c_void_p()
        self.lib.call("pn_engine_create", registry.handle, ctypes.byref(handle))
        self._handle: ctypes.c_void_p | None = handle
        registry._engines.add(self)

    @property
    def handle(self) -> ctypes.c_void_p:
        if self._handle is None:
            raise NativeError("copy engine is closed (or its registry was closed)")
        return self._handle

    def write(self, dst_key: int, dst_offset: int, src_key: int, src_offset: int, nbytes: int) -> Event:
        """Put ``nbytes`` of local segment src into (remote) segment dst."""
        return self._copy(dst_key, dst_offset, src_key, src_offset, nbytes)

    def read(self, src_key: int, src_offset: int, dst_key: int, dst_offset: int, nbytes: int) -> Event:
        """Get ``nbytes`` of (remote) segment src into local segment dst."""
        return self._copy(dst_key, dst_offset, src_key, src_offset, nbytes)

    def _copy(self, dst_key: int, dst_off: int, src_key: int, src_off: int, nbytes: int) -> Event:
        for name, value in (("dst offset", dst_off), ("src offset", src_off), ("nbytes", nbytes)):
            if value < 0:
                raise NativeError(f"copy: {name} {value} is negative", "bounds")
        event = ctypes.c_uint64()
        self.lib.call("pn_engine_copy", self.handle, dst_key, dst_off, src_key, src_off, nbytes,
                      ctypes.byref(event))
        return Event(self, event.value)

    def synchronize(self) -> None:
        self.lib.call("pn_engine_synchronize", self.handle)

    def close(self) -> None:
        if self._handle is not None:
            self.lib.cdll.pn_engine_destroy(self._handle)
            self._handle = None
