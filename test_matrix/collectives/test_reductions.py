"""c10d reductions (all_reduce, reduce, reduce_scatter) over gloo and NCCL/RCCL.

A reduction is a kernel per (collective, op, dtype): gloo instantiates its reduce function per
op and C++ type, NCCL/RCCL compile one device kernel per collective x op x dtype. So all_reduce
is crossed with every op and dtype each backend instantiates; reduce and reduce-scatter reuse
gloo's functions (one looped case each on gloo) but are their own kernels on NCCL/RCCL (one
device case per op). Refusals are checked by message: gloo refuses int16/uint16/uint32/float8
('Invalid scalar type'), AVG on integers, bitwise ops on floats and PREMUL_SUM; NCCL refuses
bitwise ops and int16; torch refuses every op but SUM/AVG on complex tensors.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_file

pytestmark = [pytest.mark.component("collectives")]

_here = Path(__file__).resolve().parent
cases = load_file(_here / "c10d_cases.py", "port_matrix_c10d_cases")
bk = load_file(_here / "conftest.py", "port_matrix_collectives_params")

FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["int8", "uint8", "int32", "int64"]
DTYPES = FLOATS + INTS + ["bool"]


def _ids(*parts):
    return "-".join(parts)


# Distinct per (op, dtype): the reduce function gloo instantiates (sum/product/min/max per C++
# type; bool is its own type) and the NCCL/RCCL kernel (bool mapped to MAX/MIN on uint8).
@pytest.mark.parametrize("backend", bk.BOTH)
@pytest.mark.parametrize("op,dtype", [pytest.param(o, d, id=_ids(o, d))
                                      for o, d in itertools.product(["SUM", "PRODUCT", "MIN", "MAX"], DTYPES)])
def test_all_reduce(rank_pool, op, dtype):
    assert set(rank_pool.run(cases.all_reduce, op=op, dtype=dtype)) == {"ok"}


# Distinct per (op, integral type): gloo's band/bor/bxor templates exist for integral types only.
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
@pytest.mark.parametrize("op,dtype", [pytest.param(o, d, id=_ids(o, d))
                                      for o, d in itertools.product(["BAND", "BOR", "BXOR"], INTS + ["bool"])])
def test_all_reduce_bitwise(rank_pool, op, dtype):
    assert set(rank_pool.run(cases.all_reduce, op=op, dtype=dtype)) == {"ok"}


# AVG: gloo sums and divides in its own branch (one case); NCCL/RCCL's ncclAvg is a kernel per
# float type (device only for the three others).
@pytest.mark.parametrize("backend,dtype", [pytest.param("gloo", "float32", id="gloo-float32")]
                         + [pytest.param("nccl", d, id=f"nccl-{d}", marks=bk.NCCL.marks) for d in FLOATS])
def test_all_reduce_avg(rank_pool, dtype):
    assert set(rank_pool.run(cases.all_reduce, op="AVG", dtype=dtype)) == {"ok"}


# Each refusal is one check in gloo or torch; the values looped inside take the same check.
GLOO_REFUSALS = {
    "unsupported_dtypes": (list(cases.OPS - {"AVG"}), ["int16", "uint16", "uint32", "float8_e4m3fn"],
                           "RuntimeError", "Invalid scalar type"),
    "avg_on_integers": (["AVG"], INTS + ["bool"], "RuntimeError", "can't be cast"),
    "bitwise_on_floats": (["BAND", "BOR", "BXOR"], FLOATS, "RuntimeError",
                          "Cannot use ReduceOp.{op} with non-integral"),
    "complex_ops": (["PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"], ["complex64"], "ValueError",
                    "does not support RedOpType.{op} on complex"),
}


@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
@pytest.mark.parametrize("refusal", list(GLOO_REFUSALS))
def test_all_reduce_refused_by_gloo(rank_pool, refusal):
    ops, dtypes, kind, pattern = GLOO_REFUSALS[refusal]
    out = rank_pool.run(cases.all_reduce_refused, ops=ops, dtypes=dtypes, kind=kind, pattern=pattern)
    assert set(out) == {"ok"}


# PREMUL_SUM is refused by ProcessGroupGloo's op mapping (the tensor is left alone); it runs
# over NCCL/RCCL (test_all_reduce_premul_sum).
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_all_reduce_premul_sum_refused_by_gloo(rank_pool):
    assert set(rank_pool.run(cases.premul_sum_refused)) == {"ok"}


# NCCL/RCCL refuse bitwise ops (no kernel) and int16 (no ncclDataType); one device case each.
@pytest.mark.parametrize("backend", bk.NCCL_ONLY)
@pytest.mark.parametrize("ops,dtypes,pattern", [
    pytest.param(["BAND", "BOR", "BXOR"], ["int32"], r"{op}.*NCCL", id="bitwise"),
    pytest.param(["SUM"], ["int16"], r"(?i)not supported|unsupported", id="int16")])
def test_all_reduce_refused_by_nccl(rank_pool, ops, dtypes, pattern):
    # ProcessGroupNCCL raises these as ValueError/TypeError (C10_THROW_ERROR) in recent torch
    assert set(rank_pool.run(cases.all_reduce_refused, ops=ops, dtypes=dtypes, kind="RuntimeError|ValueError|TypeError",
                             pattern=pattern)) == {"ok"}


# PREMUL_SUM: NCCL/RCCL's pre-multiplied sum (ncclRedOpCreatePreMulSum); gloo refuses it above.
@pytest.mark.parametrize("backend", bk.NCCL_ONLY)
def test_all_reduce_premul_sum(rank_pool):
    assert set(rank_pool.run(cases.all_reduce_premul_sum, factor=2.0)) == {"ok"}


# complex64: torch's view_as_real branch (real and imaginary parts as float pairs); the float
# kernel underneath is test_all_reduce's, so no device twin.
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_all_reduce_complex(rank_pool):
    assert set(rank_pool.run(cases.all_reduce_complex, op="SUM")) == {"ok"}


# Distinct per layout/size: zero elements (an early return), fewer elements than ranks (empty
# ring chunks), 4 Mi elements (gloo's ring pipelines several segments; NCCL/RCCL switch from the
# LL to the Simple protocol), a strided view, a contiguous view at a storage offset (the data
# pointer is not the storage's).
SHAPES = [pytest.param("zero", b, id=f"{b}-zero", marks=m) for b, m in (("gloo", ()), ("nccl", bk.NCCL.marks))]
SHAPES += [pytest.param("large", b, id=f"{b}-large", marks=m) for b, m in (("gloo", ()), ("nccl", bk.NCCL.marks))]
SHAPES += [pytest.param("fewer_than_ranks", "gloo", id="gloo-fewer_than_ranks"),
           pytest.param("noncontig", "gloo", id="gloo-noncontig"),
           pytest.param("offset", "gloo", id="gloo-offset")]


@pytest.mark.parametrize("shape,backend", SHAPES)
def test_all_reduce_shape(rank_pool, shape):
    assert set(rank_pool.run(cases.all_reduce_shape, shape=shape)) == {"ok"}


# gloo's sparse all-reduce (its own work class): one nnz per rank, coalesced; nnz differing per
# rank and uncoalesced (the indices are gathered with their counts first).
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
@pytest.mark.parametrize("layout", ["coalesced", "uncoalesced_uneven_nnz"])
def test_all_reduce_sparse(rank_pool, layout):
    assert set(rank_pool.run(cases.all_reduce_sparse, layout=layout)) == {"ok"}


# reduce: root 0 and the last rank (the chain/tree starts elsewhere; dst is translated).
@pytest.mark.parametrize("backend", bk.BOTH)
@pytest.mark.parametrize("dtype,dst", [pytest.param("float32", 0, id="float32-root0"),
                                       pytest.param("int64", -1, id="int64-rootlast")])
def test_reduce(rank_pool, dtype, dst):
    assert set(rank_pool.run(cases.reduce, op="SUM", dtype=dtype, dst=dst)) == {"ok"}


OTHER_OPS = [("PRODUCT", "float32"), ("MIN", "int8"), ("MAX", "float16"), ("AVG", "float32"), ("BAND", "int32"),
             ("BOR", "uint8"), ("BXOR", "bool")]


# gloo's reduce reuses all_reduce's reduce functions: the other ops are one looped case.
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_reduce_other_ops(rank_pool):
    assert set(rank_pool.run(cases.reduce_ops_looped, pairs=OTHER_OPS)) == {"ok"}


# NCCL/RCCL compile ncclReduce per op: one device case each.
@pytest.mark.parametrize("backend", bk.NCCL_ONLY)
@pytest.mark.parametrize("op", ["PRODUCT", "MIN", "MAX", "AVG"])
def test_reduce_op_device(rank_pool, op):
    assert set(rank_pool.run(cases.reduce, op=op, dtype="float32", dst=1)) == {"ok"}


@pytest.mark.parametrize("backend", bk.BOTH)
def test_reduce_scatter_tensor(rank_pool):
    assert set(rank_pool.run(cases.reduce_scatter_tensor, op="SUM", dtype="float32")) == {"ok"}


# gloo's reduce-scatter reuses the reduce functions too: every other (op, dtype) looped.
@pytest.mark.parametrize("backend", bk.GLOO_ONLY)
def test_reduce_scatter_tensor_other_ops(rank_pool):
    pairs = [(o, d) for o, d in itertools.product(["SUM", "PRODUCT", "MIN", "MAX"], DTYPES)
             if (o, d) != ("SUM", "float32")] + [("AVG", "float32"), ("BXOR", "int64")]
    assert set(rank_pool.run(cases.reduce_scatter_looped, pairs=pairs)) == {"ok"}


# ncclReduceScatter per op (and bf16, whose device kernel emulates the arithmetic).
@pytest.mark.parametrize("backend", bk.NCCL_ONLY)
@pytest.mark.parametrize("op,dtype", [("PRODUCT", "float32"), ("MIN", "int32"), ("MAX", "float16"),
                                      ("AVG", "float32"), ("SUM", "bfloat16")])
def test_reduce_scatter_tensor_op_device(rank_pool, op, dtype):
    assert set(rank_pool.run(cases.reduce_scatter_tensor, op=op, dtype=dtype)) == {"ok"}


# The list form with a different chunk size per destination (gloo: its reduce_scatter work;
# NCCL: uneven chunks fall back from ncclReduceScatter to one reduce per rank).
@pytest.mark.parametrize("backend", bk.BOTH)
def test_reduce_scatter_list_uneven(rank_pool):
    assert set(rank_pool.run(cases.reduce_scatter_list)) == {"ok"}
