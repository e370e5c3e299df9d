"""One table of the ROCm families the compile-only SDK cannot judge (porting.rocm_libraries),
read by the audit and by the alias table alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.audit.scan import audit_paths
from porting.audit.symbols import SymbolSets
from porting.rocm_libraries import FAMILIES, family_of

# A ROCm 7 header set that declares the runtime names used below and nothing of the families.
SETS = SymbolSets(rocm=frozenset({"hipMalloc", "hipFree", "hipStream_t", "hipError_t"}))


def removed(tmp_path: Path, code: str) -> dict[str, str]:
    (tmp_path / "k.cu").write_text(code)
    result = audit_paths([tmp_path / "k.cu"], sets=SETS, jobs=1)
    return {f.symbol: f.hip for f in result.findings if f.rule == "rocm7-removed"}


def test_family_names_are_not_called_removed_from_rocm7(tmp_path):
    code = ("#include <cuComplex.h>\n#include <cublas_v2.h>\n#include <curand.h>\n"
            "void f(cuDoubleComplex* z, cuFloatComplex* w, cublasHandle_t h, curandGenerator_t g) {\n"
            "  cublasCreate(&h); curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);\n}\n")
    assert removed(tmp_path, code) == {}


def test_an_undeclared_runtime_name_is_still_reported(tmp_path):
    # the synthetic header set declares hipMalloc but not hipStreamBeginCapture
    code = "void f(void* p, cudaStream_t s) {\n  cudaMalloc(&p, 1);\n  cudaStreamBeginCapture(s, 0);\n}\n"
    assert removed(tmp_path, code) == {"cudaStreamBeginCapture": "hipStreamBeginCapture"}


@pytest.mark.parametrize("cuda,hip,family", [
    ("cuDoubleComplex", "hipDoubleComplex", "hip_complex.h"),
    ("cublasSgemm_v2", "hipblasSgemm_v2", "hipBLAS"),
    ("ncclAllReduce", "rcclAllReduce", "RCCL"),
    ("", "rocprim::block_reduce", "hipCUB/rocPRIM"),
    ("cudaGraphicsGLRegisterBuffer", "hipGraphicsGLRegisterBuffer", "GL/EGL interop"),
    ("cudaMalloc", "hipMalloc", None),
    ("cudaStreamCreate", "hipStreamCreate", None),
])
def test_family_of(cuda, hip, family):
    found = family_of(cuda, hip)
    assert (found.name if found else None) == family


def test_the_alias_table_leaves_interop_to_its_undeclared_rules():
    from porting.aliases.ground_truth import library_of

    assert library_of("cudaGraphicsGLRegisterBuffer", "hipGraphicsGLRegisterBuffer") is None
    assert library_of("cublasCreate_v2", "hipblasCreate_v2") == "hipBLAS"
    assert [f.name for f in FAMILIES if f.runtime_interop] == ["GL/EGL interop"]


def test_every_unverified_alias_is_a_family_the_audit_does_not_judge():
    """The two readers cannot drift: whatever the shipped alias table left unverified, the audit
    leaves unjudged too."""
    from porting import assets
    from porting.aliases.snapshot import load

    table = load(assets.aliases_dir() / "alias_table.json")
    unverified = [a for a in table.entries.values() if a.status == "unverified"]
    assert unverified
    stray = [(a.cuda, a.hip) for a in unverified if family_of(a.cuda, a.hip.split()[0].rstrip("*")) is None]
    assert stray == []
    assert {a.library for a in unverified} <= {f.name for f in FAMILIES}
