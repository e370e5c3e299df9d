"""Issue 26: which branches ROCm compiles is the preprocessor's arithmetic with the CUDA macros HIP
never defines taken as 0 (porting.audit.branches.rocm_value / never_compiled)."""

from __future__ import annotations

import pytest

from porting.audit.branches import UNKNOWN, never_compiled, rocm_value


@pytest.mark.parametrize(("cond", "value"), [
    ("__CUDA_ARCH__ < 700", 1),  # 0 < 700
    ("__CUDA_ARCH__ >= 800", 0),
    ("!defined(__CUDA_ARCH__)", 1),
    ("defined __CUDA_ARCH__", 0),
    ("defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800", 0),
    ("CUDART_VERSION >= 11000 || defined(USE_X)", UNKNOWN),  # -DUSE_X decides
    ("__CUDA_ARCH__ >= 800 && defined(USE_X)", 0),  # decided without USE_X
    ("!defined(__CUDA_ARCH__) || USE_X", 1),
    ("(__CUDA_ARCH__ >= 700) ? 1 : 0", 0),
    ("(__CUDA_ARCH__ + 100) / 3 == 33", 1),
    ("CUDA_VERSION >= 12000", UNKNOWN),  # hipify renames it: not judged
    ("1 << 99", None),  # out of range: not guessed
    ("(1", None),
])
def test_rocm_value(cond: str, value: int | None) -> None:
    assert rocm_value(cond) == value


def test_a_commented_out_define_is_zero() -> None:
    assert rocm_value("USE_PTX && 1", {"USE_PTX"}) == 0


def test_never_compiled_follows_elif_chains() -> None:
    code = "\n".join([
        "#if __CUDA_ARCH__ < 700",  # 1: true on ROCm
        "a",  # 2 compiled
        "#elif X",  # 3
        "b",  # 4: after a true branch: never
        "#else",  # 5
        "c",  # 6: never
        "#endif",  # 7
        "#if __CUDA_ARCH__ >= 900",  # 8: false
        "d",  # 9 never
        "#elif Y",  # 10 unknown
        "e",  # 11 maybe
        "#else",  # 12
        "f",  # 13 maybe
        "#endif",  # 14
    ]) + "\n"
    never = never_compiled(code, code)
    assert [line for line in range(1, 15) if never[line]] == [4, 6, 9]
