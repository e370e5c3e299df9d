"""cuSPARSE's generic SpMV/SpMM/SparseToDense subset (runtime/emu_cusparse.h) against the dense
reference in programs/cusparse/generic.cu at 32 and 64 lanes, and the scan's line between the
subset and the rest of the library."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.emulate.refuse import scan_text

PROGRAM = Path(__file__).parent / "programs" / "cusparse" / "generic.cu"


def test_spmv_spmm_and_sparse_to_dense_match_the_dense_reference(emulate_program):
    result = emulate_program(PROGRAM, warps=[32, 64])
    for run in result.runs:
        assert run.exit == 0, run.stdout + run.stderr
        assert run.stdout.startswith("nnz 20 mismatches 0 "), run.stdout
    assert result.verdict == "same", result.differences


def test_the_subset_passes_the_scan():
    assert scan_text(PROGRAM.read_text(), str(PROGRAM)) == []


@pytest.mark.parametrize("call", ["cusparseSpGEMM_compute(h, a, b)", "cusparseDcsrilu02(h)",
                                  "cusparseSpSV_solve(h)", "cusparseCsr2cscEx2(h)"])
def test_a_call_beyond_the_subset_is_refused_at_its_line(call):
    text = f"#include <cusparse.h>\nvoid f(cusparseHandle_t h) {{\n  cusparseCreate(&h);\n  {call};\n}}\n"
    [refusal] = scan_text(text, "s.cu")
    assert refusal.feature == "uses cuSPARSE beyond SpMV/SpMM/SparseToDense on CSR/COO"
    assert refusal.where == "s.cu:4"
