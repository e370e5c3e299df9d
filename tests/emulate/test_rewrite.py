"""Launch and dynamic-shared-memory rewriting: line numbers kept, code only, errors named."""

from __future__ import annotations

import pytest

from porting.emulate.rewrite import rewrite
from porting.errors import InputError


def test_launches_are_rewritten_and_lines_kept():
    src = (
        'const char* s = "k<<<1, 1>>>()"; // k<<<2, 2>>>()\n'
        "/* k<<<3, 3>>>() */\n"
        "ns::kern<float, 4><<<dim3(g, 1),\n"
        "    256, smem, stream>>>(a,\n"
        "    n);\n"
        "(fp)<<<1, 32>>>();\n"
    )
    out = rewrite(src, "x.cu")
    assert out.launches == 2
    assert out.text.count("\n") == src.count("\n")
    lines = out.text.splitlines()
    assert lines[0] == src.splitlines()[0] and lines[1] == src.splitlines()[1]  # strings, comments untouched
    assert lines[2].startswith("::emu::launch(::emu::config(dim3(g, 1),")
    assert "[&](auto&&... emu_a_) { ns::kern<float, 4>(emu_a_...); }, a," in lines[3]
    assert lines[5] == "::emu::launch(::emu::config(1, 32), [&](auto&&... emu_a_) { (fp)(emu_a_...); });"


def test_extern_shared_becomes_the_dynamic_buffer():
    src = "extern __shared__ __align__(16) float smem[];\nextern __shared__ int tile[][33];\n"
    out = rewrite(src)
    assert out.dynamic_shared == 2
    assert out.text.splitlines() == [
        "float* const smem = reinterpret_cast<float*>(::emu::dynamic_shared);",
        "int (* const tile)[33] = reinterpret_cast<int (*)[33]>(::emu::dynamic_shared);",
    ]


@pytest.mark.parametrize("src, message", [
    ("k<<<1, 1>>>;\n", "x.cu:1: a '<<<...>>>' launch without its argument list"),
    ("\nk<<<1, 1;\n", "x.cu:2: a '<<<' launch without its closing '>>>'"),
    ("k<<<1, 1>>>(a, b;\n", "x.cu:1: a kernel launch whose argument list is not closed"),
    ("  <<<1, 1>>>();\n", "x.cu:1: a '<<<' launch without a kernel name before it"),
])
def test_malformed_launches_are_named(src, message):
    with pytest.raises(InputError) as err:
        rewrite(src, "x.cu")
    assert str(err.value) == message
