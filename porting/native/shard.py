"""Shard gather/scatter/reduce and pointer classification over torch tensors."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from .errors import NativeError
from .library import Library, PointerInfoC, default_library

if TYPE_CHECKING:  # pragma: no cover
    import torch

MEMORY_KINDS = {0: "unknown", 1: "host", 2: "device", 3: "managed"}
OPS = {"sum": 0, "avg": 1, "max": 2}
MAX_DIMS = 16


def _dtype_codes() -> dict[Any, int]:
    import torch

    return {torch.float32: 0, torch.float64: 1, torch.float16: 2, torch.bfloat16: 3, torch.int32: 4,
            torch.int64: 5, torch.uint8: 6, torch.int8: 7, torch.int16: 8}


@dataclass(frozen=True)
class PointerInfo:
    kind: str  # host | device | managed | unknown
    device: int  # -1 for host
    pci_bus_id: str  # "" for host

    @classmethod
    def from_c(cls, info: PointerInfoC) -> "PointerInfo":
        return cls(MEMORY_KINDS.get(info.kind, "unknown"), int(info.device), info.pci_bus_id.decode())


def classify(obj: Any, lib: Library | None = None) -> PointerInfo:
    """Classify a tensor's data pointer, or an integer address (host/device/managed)."""
    lib = default_library(lib)
    ptr = obj if isinstance(obj, int) else obj.data_ptr()
    info = PointerInfoC()
    lib.call("pn_classify_pointer", ctypes.c_void_p(ptr), ctypes.byref(info))
    return PointerInfo.from_c(info)


def chunk_bounds(size: int, chunks: int, index: int) -> tuple[int, int]:
    """(start, length) of ``torch.chunk(t, chunks, dim)[index]`` along a dim of ``size``;
    length 0 where torch.chunk returns fewer chunks (DTensor's empty shards)."""
    if chunks < 1:
        raise NativeError(f"chunks must be >= 1, got {chunks}")
    if not 0 <= index < chunks:
        raise NativeError(f"shard index {index} out of range for {chunks} chunks", "bounds")
    step = -(-size // chunks) if size else 0
    start = min(index * step, size)
    return start, max(0, min(step, size - start))


def _check_dim(t: "torch.Tensor", dim: int, what: str) -> int:
    if t.dim() == 0:
        raise NativeError(f"{what}: a 0-d tensor has no dim to shard")
    if t.dim() > MAX_DIMS:
        raise NativeError(f"{what}: {t.dim()} dims, at most {MAX_DIMS} supported")
    if not -t.dim() <= dim < t.dim():
        raise NativeError(f"{what}: dim {dim} out of range for a {t.dim()}-d tensor", "bounds")
    return dim % t.dim()


def _view_args(t: "torch.Tensor") -> tuple[Any, Any, int]:
    n = t.dim()
    sizes = (ctypes.c_int64 * n)(*t.shape)
    strides = (ctypes.c_int64 * n)(*t.stride())
    return sizes, strides, t.element_size()


def _stream(t: "torch.Tensor") -> ctypes.c_void_p:
    if t.device.type == "cuda":
        import torch

        return ctypes.c_void_p(torch.cuda.current_stream(t.device).cuda_stream)
    return ctypes.c_void_p(None)


def _check_device(lib: Library, *tensors: "torch.Tensor") -> None:
    want = "cpu" if lib.backend == "cpu" else "cuda"
    for t in tensors:
        if t.device.type != want:
            raise NativeError(f"tensor on {t.device} but the {lib.path} build works on {want} tensors")


def gather(t: "torch.Tensor", dim: int, start: int, length: int, out: "torch.Tensor | None" = None,
           lib: Library | None = None) -> "torch.Tensor":
    """Copy ``t.narrow(dim, start, length)`` into a contiguous staging tensor (``out`` if given)."""
    import torch

    lib = default_library(lib)
    dim = _check_dim(t, dim, "gather")
    if start < 0 or length < 0 or start + length > t.shape[dim]:
        raise NativeError(f"gather: slice [{start}, {start + length}) outside dim {dim} of size {t.shape[dim]}",
                          "bounds")
    shape = list(t.shape)
    shape[dim] = length
    if out is None:
        out = torch.empty(shape, dtype=t.dtype, device=t.device)
    elif list(out.shape) != shape or out.dtype != t.dtype or not out.is_contiguous():
        raise NativeError(f"gather: out must be a contiguous {t.dtype} tensor of shape {tuple(shape)}, "
                          f"got {out.dtype} {tuple(out.shape)}")
    _check_device(lib, t, out)
    sizes, strides, esize = _view_args(t)
    lib.call("pn_gather_shard", ctypes.c_void_p(t.data_ptr()), t.dim(), sizes, strides, esize, dim, start, length,
             ctypes.c_void_p(out.data_ptr()), _stream(t))
    return out


def scatter(staging: "torch.Tensor", out: "torch.Tensor", dim: int, start: int, length: int,
            lib: Library | None = None) -> "torch.Tensor":
    """Copy the contiguous ``staging`` into ``out.narrow(dim, start, length)``; returns out."""
    lib = default_library(lib)
    dim = _check_dim(out, dim, "scatter")
    if start < 0 or length < 0 or start + length > out.shape[dim]:
        raise NativeError(f"scatter: slice [{start}, {start + length}) outside dim {dim} of size "
                          f"{out.shape[dim]}", "bounds")
    shape = list(out.shape)
    shape[dim] = length
    if staging.dtype != out.dtype:
        raise NativeError(f"scatter: staging is {staging.dtype} but out is {out.dtype}")
    if staging.numel() != 0 and staging.numel() != _prod(shape):
        raise NativeError(f"scatter: staging has {staging.numel()} elements, the shard {tuple(shape)} needs "
                          f"{_prod(shape)}", "bounds")
    if staging.numel() == 0 and _prod(shape) != 0:
        raise NativeError(f"scatter: staging is empty but the shard {tuple(shape)} is not", "bounds")
    if not staging.is_contiguous():
        raise NativeError("scatter: staging must be contiguous")
    _check_device(lib, staging, out)
    if any(st == 0 and n > 1 for st, n in zip(out.stride(), out.shape)):
        raise NativeError("scatter: out has a stride-0 (expanded) dim: several elements share one memory location")
    sizes, strides, esize = _view_args(out)
    lib.call("pn_scatter_shard", ctypes.c_void_p(out.data_ptr()), out.dim(), sizes, strides, esize, dim, start,
             length, ctypes.c_void_p(staging.data_ptr()), _stream(out))
    return out


def _prod(shape: Sequence[int]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def gather_shard(t: "torch.Tensor", dim: int, chunks: int, index: int, out: "torch.Tensor | None" = None,
                 lib: Library | None = None) -> "torch.Tensor":
    """``torch.chunk(t, chunks, dim)[index].contiguous()`` (empty for DTensor's missing shards)."""
    dim = _check_dim(t, dim, "gather_shard")
    start, length = chunk_bounds(t.shape[dim], chunks, index)
    return gather(t, dim, start, length, out=out, lib=lib)


def scatter_shard(staging: "torch.Tensor", out: "torch.Tensor", dim: int, chunks: int, index: int,
                  lib: Library | None = None) -> "torch.Tensor":
    """Write ``staging`` back into ``torch.chunk(out, chunks, dim)[index]``; returns out."""
    dim = _check_dim(out, dim, "scatter_shard")
    start, length = chunk_bounds(out.shape[dim], chunks, index)
    return scatter(staging, out, dim, start, length, lib=lib)


def reduce(buffers: Sequence["torch.Tensor"], op: str = "sum", out: "torch.Tensor | None" = None,
           lib: Library | None = None) -> "torch.Tensor":
    """Elementwise sum / avg / max of K same-shape contiguous staging buffers."""
    import torch

    lib = default_library(lib)
    if op not in OPS:
        raise NativeError(f"reduce: unknown op {op!r} (expected sum, avg or max)")
    if len(buffers) == 0:
        raise NativeError("reduce: needs at least one buffer")
    first = buffers[0]
    codes = _dtype_codes()
    if first.dtype not in codes:
        raise NativeError(f"reduce: dtype {first.dtype} not supported")
    if op == "avg" and not first.dtype.is_floating_point:
        raise NativeError(f"reduce: avg needs a floating dtype, got {first.dtype}")
    for i, b in enumerate(buffers):
        if b.dtype != first.dtype or b.shape != first.shape:
            raise NativeError(f"reduce: buffer {i} is {b.dtype} {tuple(b.shape)}, buffer 0 is "
                              f"{first.dtype} {tuple(first.shape)}")
        if not b.is_contiguous():
            raise NativeError(f"reduce: buffer {i} is not contiguous")
    if out is None:
        out = torch.empty_like(first)
    elif out.dtype != first.dtype or out.shape != first.shape or not out.is_contiguous():
        raise NativeError("reduce: out must be a contiguous tensor like the buffers")
    _check_device(lib, out, *buffers)
    ptrs = (ctypes.c_void_p * len(buffers))(*[b.data_ptr() for b in buffers])
    lib.call("pn_reduce", ptrs, len(buffers), first.numel(), codes[first.dtype], OPS[op],
             ctypes.c_void_p(out.data_ptr()), _stream(first))
    return out


def reduce_reference(buffers: Sequence["torch.Tensor"], op: str = "sum") -> "torch.Tensor":
    """What ``reduce`` computes, in torch, bit for bit: buffer 0, then each next one in order,
    accumulated in float32 (float64 for float64, int64 for integers, wrapping back to the storage
    type on the way out). The contract every build of pn_reduce is held to."""
    import torch

    dtype = buffers[0].dtype
    acc_t = torch.float64 if dtype == torch.float64 else torch.float32 if dtype.is_floating_point else torch.int64
    acc = buffers[0].to(acc_t)
    for b in buffers[1:]:
        acc = torch.maximum(acc, b.to(acc_t)) if op == "max" else acc + b.to(acc_t)
    if op == "avg":
        acc = acc / len(buffers)
    return acc.to(dtype)
