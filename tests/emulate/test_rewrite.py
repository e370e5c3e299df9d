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
    assert '.named("ns::kern<float, 4>")' in lines[3]  # the kernel as spelled, for a device fault's report
    assert "[&](auto&&... emu_a_) { ns::kern<float, 4>(emu_a_...); }, a," in lines[3]
    assert lines[5] == '::emu::launch(::emu::config(1, 32).named("(fp)"), [&](auto&&... emu_a_) { (fp)(emu_a_...); });'


def test_extern_shared_becomes_the_dynamic_buffer():
    src = ("extern __shared__ __align__(16) float smem[];\nextern __shared__ int tile[][33];\n"
           "extern __shared__ __align__(sizeof(double)) unsigned char buf[];\n")
    out = rewrite(src)
    assert out.dynamic_shared == 3
    assert out.text.splitlines() == [
        "float* const smem = reinterpret_cast<float*>(::emu::dynamic_shared);",
        "int (* const tile)[33] = reinterpret_cast<int (*)[33]>(::emu::dynamic_shared);",
        "unsigned char* const buf = reinterpret_cast<unsigned char*>(::emu::dynamic_shared);",
    ]


@pytest.mark.parametrize("src, message", [
    ("k<<<1, 1>>>;\n", "x.cu:1: a '<<<...>>>' launch without its argument list"),
    ("\nk<<<1, 1;\n", "x.cu:2: a '<<<' launch without its closing '>>>'"),
    ("k<<<1, 1>>>(a, b;\n", "x.cu:1: a kernel launch whose argument list is not closed"),
    ("  <<<1, 1>>>();\n", "x.cu:1: a '<<<' launch without a kernel name before it"),
    ("x = a[1;\n]<<<1, 1>>>();\n", "x.cu:2: a '<<<' launch without a kernel name before it"),
])
def test_malformed_launches_are_named(src, message):
    with pytest.raises(InputError) as err:
        rewrite(src, "x.cu")
    assert str(err.value) == message


def test_a_kernel_name_on_the_line_before_the_chevrons():
    src = "void f(int* a) {\n  my_kernel\n      <<<grid, 256>>>(a);\n  x = 1;\n}\n"
    out = rewrite(src, "x.cu")
    assert out.launches == 1 and out.text.count("\n") == src.count("\n")
    assert ('::emu::launch(::emu::config(grid, 256).named("my_kernel"), '
            "[&](auto&&... emu_a_) { my_kernel(emu_a_...); }, a)") in out.text


def test_a_kernel_pointer_from_an_array_or_a_member_is_launched():
    src = "kernels[k % 2]<<<1, 32>>>(a);\nt.fn<<<2, 64>>>(a);\np->fns[1]<<<1, 1>>>();\n"
    out = rewrite(src, "x.cu")
    assert out.launches == 3 and out.text.count("\n") == src.count("\n")
    assert out.text.splitlines() == [
        '::emu::launch(::emu::config(1, 32).named("kernels[k % 2]"), '
        '[&](auto&&... emu_a_) { kernels[k % 2](emu_a_...); }, a);',
        '::emu::launch(::emu::config(2, 64).named("t.fn"), [&](auto&&... emu_a_) { t.fn(emu_a_...); }, a);',
        '::emu::launch(::emu::config(1, 1).named("p->fns[1]"), [&](auto&&... emu_a_) { p->fns[1](emu_a_...); });',
    ]


def test_chevrons_with_blanks_between_them_as_visual_studio_formats_them():
    src = ("void f(int* a) {\n  matrixSum << < grid, block >> > (a, n >> 1);\n}\n"
           "template <class T> std::ostream& operator<< <T>(std::ostream& o, T t);\n")
    out = rewrite(src, "x.cu")
    assert out.launches == 1 and out.text.count("\n") == src.count("\n")
    assert ('::emu::launch(::emu::config( grid, block ).named("matrixSum"), '
            "[&](auto&&... emu_a_) { matrixSum(emu_a_...); }, a, n >> 1)") in out.text
    assert "operator<< <T>(std::ostream& o, T t);" in out.text  # a template's chevrons, not a launch


def test_a_statement_end_before_the_chevrons_is_still_no_kernel_name():
    with pytest.raises(InputError, match="x.cu:2: a '<<<' launch without a kernel name"):
        rewrite("x = 1;\n<<<1, 1>>>();\n", "x.cu")


def test_shared_declarations_in_both_orders_and_with_static():
    src = ("extern float __shared__ buf[];\n"
           "static __shared__ int a[4];\n"
           "__shared__ static int b;\n"
           "__shared__ int c;  // becomes static through the runtime's macro\n"
           "const char* s = \"static __shared__\";\n")
    out = rewrite(src)
    lines = out.text.splitlines()
    assert out.dynamic_shared == 1
    assert lines[0] == "float* const buf = reinterpret_cast<float*>(::emu::dynamic_shared);"
    assert lines[1].split() == ["static", "int", "a[4];"]
    assert lines[2].split() == ["static", "int", "b;"]
    assert lines[3].startswith("__shared__ int c;")
    assert lines[4] == src.splitlines()[4]


def test_void_pointer_casts_of_kernels_record_them_and_nothing_else():
    from porting.emulate.rewrite import kernel_names
    src = ("template <int B> __global__ void __launch_bounds__(256, 2) red(float* a) {}\n"
           "extern \"C\" __global__ void plain(int x);\n"
           "void f(S* s, void** a) {\n"
           "  cudaLaunchKernel((void*)plain, 1, 1, a); p.func = (void *)&red<128>;\n"
           "  void* q = reinterpret_cast<void*>(plain);\n"
           "  void* r = (void*)s->plain; void* t = (void*)plain(1); void* u = (void*)other;\n"
           "  const char* m = \"(void*)plain\";\n}\n")
    kernels = kernel_names(src)
    assert kernels == {"red", "plain"}
    out = rewrite(src, "x.cu", kernels).text
    assert out.count("\n") == src.count("\n")
    lines = out.splitlines()
    assert lines[3] == "  cudaLaunchKernel(::emu::kernel_ptr(plain), 1, 1, a); p.func = ::emu::kernel_ptr(red<128>);"
    assert lines[4] == "  void* q = ::emu::kernel_ptr(plain);"
    assert lines[5:7] == src.splitlines()[5:7]  # a member, a call's result, another name, a string: unchanged
