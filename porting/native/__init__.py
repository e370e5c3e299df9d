"""Python binding of the native layer (``native/``): ctypes over the C ABI in
``native/include/port_native.h``.

Public API (stable; used by ``test_matrix/``)::

    from porting import native
    lib = native.load()                   # best built library in build_dir (GPU if usable, else cpu)
    lib = native.load(path="cpu", build_dir="build/port")
    lib = native.load_for("host" | "device")  # the build for tensors in that memory (cpu / GPU)
    native.is_available()                 # True if some build can be loaded
    native.ensure_built("cpu", build_dir) # build (incrementally) then load: for test fixtures

    staging = native.gather_shard(t, dim, chunks, index)       # == torch.chunk(t, chunks, dim)[index].contiguous()
    native.scatter_shard(staging, out, dim, chunks, index)     # out.chunk(...)[index].copy_(staging)
    native.gather(t, dim, start, length) / native.scatter(staging, out, dim, start, length)
    native.reduce([b0, b1, ...], "sum" | "avg" | "max", out=None)
    native.classify(tensor_or_ptr) -> PointerInfo(kind, device, pci_bus_id)

    reg = native.Registry()
    seg = reg.register(tensor)            # Segment(key, ptr, size, elem_size, info)
    seg2 = reg.alloc_exportable(nbytes); h = reg.export(seg2.key); reg.import_handle(h)
    eng = native.CopyEngine(reg)
    ev = eng.write(dst_key, dst_off, src_key, src_off, nbytes)  # or eng.read(...)
    ev.wait(); ev.done()

Every failure is a ``NativeError`` (a ``porting.errors.PortError``) with a one-line message;
``NativeError.status`` names the C status (``bounds``, ``not-found``, ``overlap``, ...).
torch is imported lazily.
"""

from __future__ import annotations

from .errors import NativeError, NoDeviceError
from .library import PLACEMENTS, Library, absent, ensure_built, is_available, library_path, load, load_for
from .registry import CopyEngine, Event, Registry, Segment
from .shard import (PointerInfo, chunk_bounds, classify, gather, gather_shard, reduce, reduce_reference, scatter,
                    scatter_shard)

__all__ = [
    "NativeError", "NoDeviceError", "Library", "load", "load_for", "PLACEMENTS", "is_available", "ensure_built",
    "library_path", "absent",
    "Registry", "Segment", "CopyEngine", "Event", "PointerInfo", "classify", "chunk_bounds",
    "gather", "gather_shard", "scatter", "scatter_shard", "reduce", "reduce_reference",
]
