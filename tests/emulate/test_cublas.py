"""cuBLAS's common routines computed on the CPU (runtime/emu_cublas.h), the same at both widths."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.emulate import Unsupported, refuse

CUBLAS = Path(__file__).parent / "programs" / "cublas"


def test_cublas_routines_give_the_exact_results(emulate_program):
    """Worked out by hand from routines.cu's inputs (A = [1 2 3; 4 5 6], B = [1 0; 0 1; 1 1],
    column-major): AB = [4 5; 10 11]; 2 B^T A^T + AB = [12 25; 20 33]; Dgemm with beta 0.5;
    a strided batch of I T and 2I T; GemmEx over floats equals Sgemm; x = 1..8 written by a
    kernel: dot with ones 36, nrm2 over stride 2 squared 1 + 9 + 25 + 49, isamax 8 (1-based);
    axpy 2x + 1 then scal 2; gemv A [1 1 1] = [6 15]."""
    result = emulate_program(CUBLAS / "routines.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == (
        "sgemm 4 10 5 11\nsgemm TT 12 20 25 33\ndgemm 1 1.5 1.25 1.5\nbatched 1 2 3 4 2 4 6 8\n"
        "gemmex 4 10 5 11\nsdot 36 snrm2 84 isamax 8\nsaxpy+sscal 6 10 14 18 22 26 30 34\nsgemv 6 15\n")


def test_a_cublas_routine_outside_the_subset_is_named(tmp_path, emulate_program):
    src = tmp_path / "zgemm.cu"
    src.write_text("#include <cublas_v2.h>\nint main() {\n  cublasHandle_t h;\n  cublasCreate(&h);\n"
                   "  cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1);\n}\n")
    named = r"zgemm.cu:5: uses cublasZgemm, which port emulate's runtime does not provide"
    with pytest.raises(Unsupported, match=named):
        emulate_program(src)


def test_cublaslt_and_the_legacy_api_stay_refused(tmp_path):
    src = tmp_path / "lt.cu"
    src.write_text("#include <cublasLt.h>\nvoid f() { cublasLtHandle_t h; cublasLtCreate(&h); }\n")
    assert [r.feature for r in refuse.scan([src])] == ["uses cuBLASLt/cuBLASXt or the legacy cuBLAS API"]
    src.write_text("#include <cublas.h>\n")
    assert [r.feature for r in refuse.scan([src])] == ["uses cuBLASLt/cuBLASXt or the legacy cuBLAS API"]
    src.write_text("#include <cublas_v2.h>\nvoid f(cublasHandle_t h) { cublasCreate(&h); }\n")
    assert refuse.scan([src]) == []


def test_the_toolkit_include_guards_that_helper_headers_test_are_set(tmp_path, emulate_program):
    """cuda-samples' helper_cuda.h defines its cublasStatus_t / curandStatus_t overloads of
    _cudaGetErrorEnum only #ifdef CUBLAS_API_H_ / CURAND_H_ (the toolkit's guards); without them
    checkCudaErrors(cublasCreate(&h)) did not compile (UnifiedMemoryStreams, tune half)."""
    src = tmp_path / "guards.cu"
    src.write_text("#include <cublas_v2.h>\n#include <curand.h>\n#include <cstdio>\n"
                   "int main() {\n#if defined(CUBLAS_API_H_) && defined(CURAND_H_)\n"
                   "  puts(\"guards set\");\n#endif\n}\n")
    result = emulate_program(src)
    assert result.runs[0].stdout == "guards set\n"
