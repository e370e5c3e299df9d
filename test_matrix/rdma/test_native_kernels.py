"""Our native layer's host kernels (reduce, shard gather/scatter): the multithreaded path above
4 MiB gives the same bytes as the single-threaded one, reduce with one buffer and with many,
each dtype's accumulator, and the argument checks of the Python binding and of the C ABI
itself (called directly: the ABI promises a status for bad input, never an abort)."""

from __future__ import annotations

import ctypes

import pytest

pytestmark = pytest.mark.component("native")

THRESHOLD = 4 << 20  # native/src/shard_cpu.cpp kParallelBytes: below it one thread does the work


@pytest.fixture
def lib(native_libs):
    lib = native_libs("host")
    before = lib.num_threads()
    yield lib
    lib.set_num_threads(before)  # the thread count is library-global: restore it for later cases


def _random(shape, dtype, seed: int):
    import torch

    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(info.min, info.max, shape, generator=g, dtype=torch.int64).to(dtype)


def test_thread_count_setting_is_clamped(lib):
    """pn_set_num_threads: n as given, <= 0 means one per core, at most 64."""
    import os

    cores = max(1, min(64, os.cpu_count() or 1))
    observed = {}
    for asked in (1, 3, 0, -5, 1000):
        lib.set_num_threads(asked)
        observed[asked] = lib.num_threads()
    assert observed == {1: 1, 3: 3, 0: cores, -5: cores, 1000: 64}, observed


# Byte counts around the threshold (reduce counts the K inputs and the output): below it one
# thread runs whatever the setting; at and above it the work is split over the set threads.
def _reduce_sizes(k: int, elem: int) -> dict[str, int]:
    per = THRESHOLD // (elem * (k + 1))
    return {"below": per - 1, "at": per, "above": 3 * per + 7}


@pytest.mark.parametrize("op", ["sum", "avg", "max"])
def test_reduce_threads_give_the_same_bytes(lib, op):
    import torch

    from porting import native

    failures = []
    for name, n in _reduce_sizes(3, 4).items():
        bufs = [_random([n], torch.float32, seed) for seed in range(3)]
        results = {}
        for threads in (1, 4):
            lib.set_num_threads(threads)
            results[threads] = native.reduce(bufs, op, lib=lib)
        if not torch.equal(results[1], results[4]):
            failures.append(f"{name} ({n} elements): 1 thread and 4 threads differ")
        elif not torch.equal(results[1], native.reduce_reference(bufs, op)):
            failures.append(f"{name} ({n} elements): differs from the sequential reference")
    assert not failures, failures


def test_shard_copy_threads_give_the_same_bytes(lib):
    """gather/scatter above 4 MiB split the outermost dim over threads; contiguous, transposed
    (tiled path) and sliced views, below and above the threshold."""
    import torch

    from porting import native

    failures = []
    for rows in (THRESHOLD // (4 * 1024) - 1, THRESHOLD // (4 * 1024) + 37):
        t = _random([rows, 1024], torch.float32, rows)
        for view_name, view in (("contiguous", t), ("transposed", t.t()), ("sliced", t[:, 5:1000])):
            for threads in (1, 4):
                lib.set_num_threads(threads)
                got = native.gather_shard(view, 0, 3, 1, lib=lib)
                out = torch.zeros_like(view)
                native.scatter_shard(got, out, 0, 3, 1, lib=lib)
                ref = torch.chunk(view, 3, 0)[1]
                if not (torch.equal(got, ref.contiguous()) and torch.equal(torch.chunk(out, 3, 0)[1], ref)):
                    failures.append(f"{rows} rows, {view_name}, {threads} thread(s)")
    assert not failures, failures


def test_reduce_of_one_buffer_is_a_copy(lib):
    """K = 1: no accumulation pass runs; sum and max return the input, avg divides by 1."""
    import torch

    from porting import native

    for dtype in (torch.float32, torch.bfloat16, torch.int8, torch.int64):
        buf = _random([1001], dtype, 3)
        for op in ("sum", "max") + (("avg",) if dtype.is_floating_point else ()):
            out = native.reduce([buf], op, lib=lib)
            assert torch.equal(out, buf), f"{dtype} {op}: one buffer must come back unchanged"
            assert out.data_ptr() != buf.data_ptr(), f"{dtype} {op}: result must be a new tensor"


# Each dtype is its own accumulator path in reduce_range: f32 and f64 accumulate in their type,
# f16 and bf16 convert through float with their own conversions, int8, int16 and int32 each
# accumulate in int64 and wrap on the way out through their own unsigned cast (three
# instantiations of reduce_typed), uint8 accumulates unsigned, int64 sums in uint64 (wraps
# like torch instead of overflowing) and maxes signed.
REDUCE_DTYPES = {"float32": ("sum", "avg", "max"), "float64": ("sum", "avg", "max"),
                 "float16": ("sum", "avg", "max"), "bfloat16": ("sum", "avg", "max"),
                 "int8": ("sum", "max"), "int16": ("sum", "max"), "int32": ("sum", "max"),
                 "uint8": ("sum", "max"), "int64": ("sum", "max")}


@pytest.mark.parametrize("group", list(REDUCE_DTYPES))
def test_reduce_many_buffers_per_accumulator(lib, group):
    import torch

    from porting import native

    dtype = getattr(torch, group)
    failures = []
    for k in (2, 7):
        bufs = [_random([4099], dtype, 10 * k + i) for i in range(k)]
        for op in REDUCE_DTYPES[group]:
            got = native.reduce(bufs, op, lib=lib)
            if not torch.equal(got, native.reduce_reference(bufs, op)):
                failures.append(f"{dtype} k={k} {op}")
    assert not failures, failures


def test_reduce_integer_sums_wrap_like_torch(lib):
    """Sums past the type's range wrap (two's complement), as torch's integer addition does."""
    import torch

    from porting import native

    for dtype in (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64):
        top = torch.full([5], torch.iinfo(dtype).max, dtype=dtype)
        got = native.reduce([top, top, top], "sum", lib=lib)
        assert torch.equal(got, top + top + top), f"{dtype}: {got.tolist()} != {(top + top + top).tolist()}"


def test_reduce_max_propagates_nan(lib):
    import torch

    from porting import native

    a = torch.tensor([1.0, float("nan"), 3.0, -1.0])
    b = torch.tensor([float("nan"), 2.0, 1.0, -2.0])
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        got = native.reduce([a.to(dtype), b.to(dtype)], "max", lib=lib).float()
        assert torch.isnan(got[:2]).all() and got[2:].tolist() == [3.0, -1.0], f"{dtype}: {got.tolist()}"


def test_reduce_of_empty_buffers_returns_empty(lib):
    """n = 0: nothing to do, and empty tensors may have no data pointer at all."""
    import torch

    from porting import native

    out = native.reduce([torch.empty(0), torch.empty(0)], "sum", lib=lib)
    assert out.shape == (0,) and out.dtype == torch.float32


def _binding_reduce_cases():
    """case -> (buffers, op, extra kwargs, message pattern): refused by porting.native.reduce."""
    import torch

    f = torch.zeros(4)
    return {
        "mismatched_shape": ([f, torch.zeros(5)], "sum", {}, r"buffer 1 is torch.float32 \(5,\), buffer 0 is "
                                                            r"torch.float32 \(4,\)"),
        "mismatched_dtype": ([f, torch.zeros(4, dtype=torch.float64)], "sum", {}, r"buffer 1 is torch.float64"),
        "no_buffers": ([], "sum", {}, r"needs at least one buffer"),
        "unknown_op": ([f], "min", {}, r"unknown op 'min'"),
        "avg_of_integers": ([torch.zeros(4, dtype=torch.int32)], "avg", {}, r"avg needs a floating dtype"),
        "unsupported_dtype": ([torch.zeros(4, dtype=torch.complex64)], "sum", {}, r"dtype torch.complex64 not "
                                                                                  r"supported"),
        "non_contiguous_buffer": ([f, torch.zeros(8)[::2]], "sum", {}, r"buffer 1 is not contiguous"),
        "out_of_wrong_shape": ([f, f], "sum", {"out": torch.zeros(3)}, r"out must be a contiguous tensor"),
    }


@pytest.mark.parametrize("case", list(_binding_reduce_cases()))
def test_reduce_argument_errors(lib, case):
    from porting import native

    buffers, op, kwargs, message = _binding_reduce_cases()[case]
    with pytest.raises(native.NativeError, match=message):
        native.reduce(buffers, op, lib=lib, **kwargs)


def _abi_reduce_cases():
    """case -> (k, n, dtype code, op code, NULL out?, status, message): pn_reduce's own checks."""
    return {
        "k_zero": (0, 4, 0, 0, False, "invalid", r"need at least one buffer, got 0"),
        "negative_count": (2, -1, 0, 0, False, "invalid", r"element count -1 is negative"),
        "unknown_op": (2, 4, 0, 9, False, "invalid", r"unknown reduce op 9"),
        "unknown_dtype": (2, 4, 42, 0, False, "invalid", r"unknown dtype code 42"),
        "avg_of_integers": (2, 4, 4, 1, False, "invalid", r"avg needs a floating dtype \(got dtype 4\)"),
        "null_out": (2, 4, 0, 0, True, "invalid", r"out is NULL"),
    }


@pytest.mark.parametrize("case", list(_abi_reduce_cases()))
def test_reduce_abi_refusals(lib, case):
    import torch

    from porting import native

    k, n, dtype, op, null_out, status, message = _abi_reduce_cases()[case]
    bufs = [torch.zeros(4) for _ in range(2)]
    out = torch.zeros(4)
    ptrs = (ctypes.c_void_p * 2)(*[b.data_ptr() for b in bufs])
    with pytest.raises(native.NativeError, match=message) as info:
        lib.call("pn_reduce", ptrs, k, n, dtype, op, ctypes.c_void_p(None if null_out else out.data_ptr()),
                 ctypes.c_void_p(None))
    assert info.value.status == status
    assert torch.equal(out, torch.zeros(4)), "a refused reduce must not write"


def _binding_shard_cases():
    """case -> (call(t), message pattern): refused by the gather/scatter binding."""
    import torch

    from porting import native

    t = torch.zeros(6, 4)
    return {
        "zero_dim_tensor": (lambda: native.gather_shard(torch.tensor(1.0), 0, 2, 0), r"a 0-d tensor has no dim"),
        "too_many_dims": (lambda: native.gather_shard(torch.zeros([1] * 17), 0, 1, 0), r"17 dims, at most 16"),
        "dim_out_of_range": (lambda: native.gather_shard(t, 2, 2, 0), r"dim 2 out of range for a 2-d tensor"),
        "index_out_of_range": (lambda: native.gather_shard(t, 0, 2, 2), r"shard index 2 out of range for 2 chunks"),
        "no_chunks": (lambda: native.gather_shard(t, 0, 0, 0), r"chunks must be >= 1, got 0"),
        "slice_outside_dim": (lambda: native.gather(t, 0, 4, 3), r"slice \[4, 7\) outside dim 0 of size 6"),
        "gather_out_wrong_shape": (lambda: native.gather(t, 0, 0, 3, out=torch.zeros(3, 5)),
                                   r"out must be a contiguous torch.float32 tensor of shape \(3, 4\)"),
        "scatter_staging_size": (lambda: native.scatter(torch.zeros(5), t, 0, 0, 2),
                                 r"staging has 5 elements, the shard \(2, 4\) needs 8"),
        "scatter_staging_dtype": (lambda: native.scatter(torch.zeros(8, dtype=torch.float64), t, 0, 0, 2),
                                  r"staging is torch.float64 but out is torch.float32"),
        "scatter_into_expanded": (lambda: native.scatter(torch.zeros(8), torch.zeros(1, 4).expand(6, 4), 0, 0, 2),
                                  r"stride-0 \(expanded\) dim"),
        "scatter_empty_staging": (lambda: native.scatter(torch.zeros(0), t, 0, 0, 2),
                                  r"staging is empty but the shard \(2, 4\) is not"),
    }


@pytest.mark.parametrize("case", list(_binding_shard_cases()))
def test_shard_argument_errors(lib, case):
    from porting import native

    call, message = _binding_shard_cases()[case]
    with pytest.raises(native.NativeError, match=message):
        call()


def _abi_shard_cases():
    """case -> (ndim, sizes, strides, elem size, dim, start, length, status, message): the checks of
    make_shard_view (shared by the cpu and GPU kernels) reached through pn_gather_shard."""
    return {
        "ndim_zero": (0, [4], [1], 4, 0, 0, 1, "invalid", r"ndim 0 not in 1\.\.16"),
        "ndim_seventeen": (17, [1] * 17, [1] * 17, 4, 0, 0, 1, "invalid", r"ndim 17 not in 1\.\.16"),
        "dim_past_ndim": (2, [4, 4], [4, 1], 4, 2, 0, 1, "bounds", r"dim 2 out of range for 2 dims"),
        "element_size_three": (1, [4], [1], 3, 0, 0, 1, "invalid", r"element size 3 is not 1, 2, 4, 8 or 16"),
        "negative_size": (2, [4, -1], [4, 1], 4, 0, 0, 1, "invalid", r"size\[1\] = -1 is negative"),
        "negative_stride": (2, [4, 4], [-4, 1], 4, 0, 0, 1, "invalid", r"stride\[0\] = -4 is negative"),
        "slice_outside": (1, [4], [1], 4, 0, 3, 2, "bounds", r"slice \[3, 5\) outside dim 0 of size 4"),
        "misaligned_base": (1, [4], [1], 4, 0, 0, 4, "alignment", r"is not aligned to the element size 4"),
    }


@pytest.mark.parametrize("case", list(_abi_shard_cases()))
def test_shard_abi_refusals(lib, case):
    import torch

    from porting import native

    ndim, sizes, strides, elem, dim, start, length, status, message = _abi_shard_cases()[case]
    src, staging = torch.zeros(64, dtype=torch.uint8), torch.full((64,), 7, dtype=torch.uint8)
    base = src.data_ptr() + (1 if case == "misaligned_base" else 0)
    c_sizes = (ctypes.c_int64 * len(sizes))(*sizes)
    c_strides = (ctypes.c_int64 * len(strides))(*strides)
    with pytest.raises(native.NativeError, match=message) as info:
        lib.call("pn_gather_shard", ctypes.c_void_p(base), ndim, c_sizes, c_strides, elem, dim, start, length,
                 ctypes.c_void_p(staging.data_ptr()), ctypes.c_void_p(None))
    assert info.value.status == status
    assert bool((staging == 7).all()), "a refused gather must not write the staging buffer"


def _shard_roundtrip(view, dim: int, chunks: int, lib) -> list[str]:
    """gather then scatter every chunk of ``view`` against torch.chunk; the failing chunks."""
    import torch

    from porting import native

    wrong = []
    ref = torch.chunk(view, chunks, dim)
    for index in range(chunks):
        got = native.gather_shard(view, dim, chunks, index, lib=lib)
        expected = ref[index].contiguous() if index < len(ref) else None
        if expected is None:
            if got.numel() != 0:
                wrong.append(f"chunk {index}: torch has no such chunk, got {tuple(got.shape)}")
            continue
        out = torch.zeros_like(view)
        native.scatter_shard(got, out, dim, chunks, index, lib=lib)
        if not torch.equal(got, expected) or not torch.equal(torch.chunk(out, chunks, dim)[index], ref[index]):
            wrong.append(f"chunk {index}")
    return wrong


# The kernel's paths by view layout (shard_cpu.cpp): rows copied with memcpy (unit innermost
# stride), an element-strided innermost dim with no unit-stride dim (element loop), a transposed
# view (32 x 32 tiles), a shard that collapses to one element (ndim 0), chunks past the end
# (empty shards, DTensor's), and 16-byte elements (the Bytes16 instantiation).
def _layouts():
    import torch

    base = _random([12, 10], torch.float32, 1)
    return {
        "contiguous_rows": (base, 0, 4),
        "element_strided_inner": (_random([12, 20], torch.float32, 2)[:, ::2], 1, 3),
        "transposed_tiles": (_random([70, 45], torch.float32, 3).t(), 1, 3),
        "single_element": (_random([3, 1, 1], torch.int16, 4), 0, 3),
        "empty_chunks_past_the_end": (_random([2, 5], torch.float64, 5), 0, 4),
        "sixteen_byte_elements": (torch.randn(9, 4, dtype=torch.complex128)[:, 1:], 0, 2),
    }


@pytest.mark.parametrize("layout", ["contiguous_rows", "element_strided_inner", "transposed_tiles", "single_element",
                                    "empty_chunks_past_the_end", "sixteen_byte_elements"])
def test_shard_kernel_paths_match_torch_chunk(lib, layout):
    view, dim, chunks = _layouts()[layout]
    wrong = _shard_roundtrip(view, dim, chunks, lib)
    assert not wrong, f"{layout}: {wrong}"


# copy_tiled and copy_strided are instantiated per element size (uint8/16/32/64 and Bytes16,
# gather and scatter each); the layouts above send 4 bytes through both and 16 through the
# memcpy rows. These send 1, 2 and 8-byte elements through the tiled (transposed) and the
# element loop (element-strided innermost) instantiations, and the tiled path with more than
# one plane (its odometer over a third dim) that no 2-D view reaches.
def _sized(dtype, shape, seed: int):
    import torch

    if dtype == torch.bool:
        return _random(shape, torch.int8, seed) > 0
    return _random(shape, dtype, seed)


def _sized_layouts():
    import torch

    out = {}
    for name, dtype in (("1byte", torch.int8), ("2byte", torch.bfloat16), ("8byte", torch.int64)):
        out[f"transposed_tiles_{name}"] = (_sized(dtype, [70, 45], 11).t(), 1, 3)
        out[f"element_strided_inner_{name}"] = (_sized(dtype, [12, 20], 12)[:, ::2], 1, 3)
    out["tiled_planes_4byte"] = (_sized(torch.float32, [3, 40, 50], 13).permute(0, 2, 1), 2, 3)
    out["tiled_planes_1byte_bool"] = (_sized(torch.bool, [3, 40, 50], 14).permute(0, 2, 1), 1, 4)
    return out


SIZED_LAYOUTS = ["transposed_tiles_1byte", "element_strided_inner_1byte", "transposed_tiles_2byte",
                 "element_strided_inner_2byte", "transposed_tiles_8byte", "element_strided_inner_8byte",
                 "tiled_planes_4byte", "tiled_planes_1byte_bool"]


@pytest.mark.parametrize("layout", SIZED_LAYOUTS)
def test_shard_kernel_instantiations_match_torch_chunk(lib, layout):
    view, dim, chunks = _sized_layouts()[layout]
    assert not view.is_contiguous()
    wrong = _shard_roundtrip(view, dim, chunks, lib)
    assert not wrong, f"{layout}: {wrong}"
