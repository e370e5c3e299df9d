"""Shard gather/scatter/reduce on the cpu build against torch references."""

from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from porting import native

pytestmark = pytest.mark.component("native")

DTYPES = [torch.float32, torch.bfloat16, torch.float16, torch.int64, torch.float64, torch.int32, torch.int8,
          torch.uint8, torch.int16]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def random_tensor(shape: list[int], dtype: torch.dtype, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(max(info.min, -1000), min(info.max, 1000), shape, generator=g, dtype=dtype)


@st.composite
def layouts(draw):
    """A tensor (possibly a non-contiguous view), a dim and a chunk count."""
    ndim = draw(st.integers(1, 4))
    shape = draw(st.lists(st.integers(0, 7), min_size=ndim, max_size=ndim))
    dtype = draw(st.sampled_from(DTYPES))
    seed = draw(st.integers(0, 2**31))
    kind = draw(st.sampled_from(["contiguous", "transposed", "sliced", "expanded-stride"]))
    t = random_tensor(shape, dtype, seed)
    if kind == "transposed" and ndim >= 2:
        t = random_tensor(shape[::-1], dtype, seed).transpose(0, ndim - 1)
    elif kind == "sliced":
        big = random_tensor([s * 2 + 1 for s in shape], dtype, seed)
        t = big[tuple(slice(1, 1 + 2 * s, 2) for s in shape)]
    elif kind == "expanded-stride" and ndim >= 2:
        t = random_tensor(shape[:-1] + [shape[-1] + 3], dtype, seed)[..., : shape[-1]]
    dim = draw(st.integers(-ndim, ndim - 1))
    chunks = draw(st.integers(1, 9))
    return t, dim, chunks


@SETTINGS
@given(layouts())
def test_gather_shard_matches_torch_chunk(shard_lib, case):
    t, dim, chunks = case
    ref = torch.chunk(t, chunks, dim)
    for index in range(chunks):
        got = native.gather_shard(t, dim, chunks, index, lib=shard_lib)
        assert got.is_contiguous()
        if index < len(ref):
            assert got.dtype == t.dtype and got.shape == ref[index].shape
            assert torch.equal(got, ref[index].contiguous())
        else:  # torch.chunk returned fewer chunks: DTensor's empty shard
            assert got.numel() == 0


@SETTINGS
@given(layouts())
def test_scatter_shard_writes_only_its_chunk(shard_lib, case):
    t, dim, chunks = case
    for index in range(chunks):
        out = t.clone()
        expected = t.clone()
        ref_chunks = torch.chunk(expected, chunks, dim)
        if index >= len(ref_chunks):
            staging = torch.empty(0, dtype=t.dtype)
        else:
            staging = random_tensor(list(ref_chunks[index].shape), t.dtype, index + 7)
            ref_chunks[index].copy_(staging)
        native.scatter_shard(staging, out, dim, chunks, index, lib=shard_lib)
        assert torch.equal(out, expected)


@SETTINGS
@given(layouts())
def test_gather_then_scatter_roundtrip_into_strided_view(shard_lib, case):
    t, dim, chunks = case
    rebuilt = torch.zeros_like(t)
    for index in range(chunks):
        native.scatter_shard(native.gather_shard(t, dim, chunks, index, lib=shard_lib), rebuilt, dim, chunks, index,
                             lib=shard_lib)
    assert torch.equal(rebuilt, t)


def test_gather_with_explicit_bounds_and_out(lib):
    t = torch.arange(60, dtype=torch.float32).reshape(3, 4, 5)
    out = torch.empty(3, 2, 5)
    got = native.gather(t, 1, 1, 2, out=out, lib=lib)
    assert got is out
    assert torch.equal(out, t.narrow(1, 1, 2))


def test_gather_matches_dtensor_local_shards(shard_lib):
    from torch.distributed.tensor.placement_types import Shard

    t = torch.randn(10, 7)
    for world in (1, 3, 4, 6):
        for dim in (0, 1):
            shards, _ = Shard(dim)._split_tensor(t, world, with_padding=False)
            for rank, shard in enumerate(shards):
                assert torch.equal(native.gather_shard(t, dim, world, rank, lib=shard_lib), shard.contiguous())


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(DTYPES), st.sampled_from(["sum", "avg", "max"]), st.integers(1, 9),
       st.lists(st.integers(0, 9), min_size=1, max_size=3), st.integers(0, 2**31))
def test_reduce_matches_reference(shard_lib, dtype, op, k, shape, seed):
    if op == "avg" and not dtype.is_floating_point:
        return
    buffers = [random_tensor(shape, dtype, seed + i) for i in range(k)]
    got = native.reduce(buffers, op, lib=shard_lib)
    assert got.dtype == dtype and got.shape == buffers[0].shape
    assert torch.equal(got, native.reduce_reference(buffers, op))  # same order and rounding: bit-exact
    stacked = torch.stack(buffers)
    ref = {"sum": lambda: stacked.sum(0), "max": lambda: stacked.amax(0),
           "avg": lambda: stacked.float().mean(0) if dtype in (torch.float16, torch.bfloat16) else stacked.mean(0)}
    expected = ref[op]().to(dtype)
    if dtype.is_floating_point:
        tol = {torch.float16: 1e-2, torch.bfloat16: 5e-2}.get(dtype, 1e-5)
        torch.testing.assert_close(got, expected, rtol=tol, atol=tol)
    else:
        assert torch.equal(got, expected)


def test_reduce_max_propagates_nan(shard_lib):
    a = torch.tensor([1.0, float("nan"), 3.0])
    b = torch.tensor([float("nan"), 2.0, 1.0])
    got = native.reduce([a, b], "max", lib=shard_lib)
    expected = torch.stack([a, b]).amax(0)
    assert torch.equal(got.isnan(), expected.isnan())
    assert got[2] == 3.0


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_conversions_are_exact_for_every_bit_pattern(shard_lib, dtype):
    """avg of [x] is float(x) rounded back: every 16-bit pattern must survive unchanged;
    avg of (x, y) must round like torch's float -> half conversion."""
    bits = torch.arange(-(2**15), 2**15, dtype=torch.int32).to(torch.int16)
    x = bits.view(dtype)
    got = native.reduce([x], "avg", lib=shard_lib)
    finite = ~x.isnan()
    assert torch.equal(got[finite].view(torch.int16), x[finite].view(torch.int16))
    assert got[~finite].isnan().all()
    y = x.roll(12345)
    got = native.reduce([x, y], "avg", lib=shard_lib)
    expected = ((x.float() + y.float()) / 2).to(dtype)
    both = ~expected.isnan()
    assert torch.equal(got[both].view(torch.int16), expected[both].view(torch.int16))
    assert got[~both].isnan().all()


@pytest.mark.parametrize("shape,perm", [((70, 45), (1, 0)), ((33, 3, 40), (2, 1, 0)), ((5, 64, 37), (0, 2, 1)),
                                        ((40, 2, 35), (1, 2, 0))])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.uint8])
def test_transposed_views_large_enough_for_tiling(shard_lib, shape, perm, dtype):
    """Views whose innermost dim is element-strided while another dim has unit stride take the
    cpu path's tiled copy (32 x 32 tiles): shapes with partial and several whole tiles."""
    t = random_tensor(list(shape), dtype, 3).permute(perm)
    for dim in range(t.dim()):
        for index in range(3):
            ref = torch.chunk(t, 3, dim)
            got = native.gather_shard(t, dim, 3, index, lib=shard_lib)
            if index < len(ref):
                assert torch.equal(got, ref[index].contiguous())
                out = torch.zeros_like(t)
                native.scatter_shard(got, out, dim, 3, index, lib=shard_lib)
                expected = torch.zeros_like(t)
                torch.chunk(expected, 3, dim)[index].copy_(ref[index])
                assert torch.equal(out, expected)


@pytest.mark.parametrize("threads", [1, 3])
def test_large_shards_split_across_threads(lib, threads):
    """Shards above 4 MiB are split over host threads along the outermost dim: same bytes."""
    before = lib.num_threads()
    lib.set_num_threads(threads)
    try:
        assert lib.num_threads() == threads
        t = random_tensor([1031, 1100], torch.float32, 5)  # 4.5 MiB
        for view in (t, t.t(), t[:, 3:1060]):
            for dim in (0, 1):
                for index in range(3):
                    ref = torch.chunk(view, 3, dim)[index]
                    got = native.gather_shard(view, dim, 3, index, lib=lib)
                    assert torch.equal(got, ref.contiguous())
                    out = torch.zeros_like(view)
                    native.scatter_shard(got, out, dim, 3, index, lib=lib)
                    assert torch.equal(torch.chunk(out, 3, dim)[index], ref)
        bufs = [random_tensor([3_000_001], torch.bfloat16, i) for i in range(3)]
        assert torch.equal(native.reduce(bufs, "sum", lib=lib), native.reduce_reference(bufs, "sum"))
    finally:
        lib.set_num_threads(before)
