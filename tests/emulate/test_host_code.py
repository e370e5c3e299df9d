"""Host code as nvcc compiles it: host CPU assembly, compiler barriers, nvcc's own macros."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.emulate import ptx
from porting.emulate.refuse import scan_text

PROGRAM = Path(__file__).parent / "programs" / "runtime" / "host_code.cu"


@pytest.mark.skipif(not ptx.HOST_IS_X86, reason="x86 host assembly runs only on an x86-64 host")
def test_x86_host_assembly_barriers_and_nvcc_macros(emulate_program):
    """rdtsc, cpuid, fences and spin hints run on the host as written; an empty asm with a "g"
    or "+r" operand is a compiler barrier (also in a kernel); the launcher behind #ifdef __NVCC__
    is compiled. sum of (i - 150)^2 for i < 300 = 2 * sum(k^2, k <= 149) + 150^2 = 2,250,050."""
    result = emulate_program(PROGRAM)
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout.splitlines() == ["squares 2250050, counter advances 1, cpuid leaves 1, ticks 1",
                                                  "nvcc 1, version 1.1.1"]


def test_which_asm_statements_the_host_compiler_keeps(monkeypatch):
    """Empty templates whatever their constraints, x86 host instructions on an x86 host only;
    PTX is still translated, and other CPUs' assembly still refused by name."""
    def statement(src: str) -> ptx.AsmStatement:
        return next(ptx.find(src))
    monkeypatch.setattr(ptx, "HOST_IS_X86", True)
    assert ptx.native(statement('asm volatile("" : "+r,m"(x) : : "memory");'))
    assert ptx.native(statement('asm volatile("rdtsc\\n\\t" : "=a"(lo), "=d"(hi));'))
    assert ptx.native(statement('__asm__ __volatile__("rep; nop" ::: "memory");'))
    assert not ptx.native(statement('asm("mov.u32 %0, %%laneid;" : "=r"(lane));'))
    assert not ptx.native(statement('asm("rdtsc; mov.u32 %0, %%laneid;" : "=r"(lane));'))
    # other CPUs' timers are left to the host compiler too: in a branch the host does not take
    # they are never compiled (host_code.cu); taken, they fail the build (below)
    assert ptx.native(statement('asm volatile("isb; mrs %0, cntvct_el0" : "=r"(t));'))
    assert scan_text('void f() { unsigned long t; asm volatile("mftb %0" : "=r"(t)); }\n', "ppc.cpp") == []
    [refusal] = scan_text('__device__ void f() { unsigned t; asm volatile("mftb %0; mov.u32 %0, 1;" : "=r"(t)); }\n',
                          "mix.cu")
    assert "'mftb'" in refusal.feature  # mixed with PTX: PTX, refused by name
    monkeypatch.setattr(ptx, "HOST_IS_X86", False)
    monkeypatch.setattr(ptx.platform, "machine", lambda: "aarch64")
    [refusal] = scan_text('unsigned f() { unsigned a, d; asm volatile("rdtsc" : "=a"(a), "=d"(d)); return a; }\n',
                          "t.cu")
    assert refusal.feature == "inline assembly: x86 instruction 'rdtsc' on a aarch64 host"
    assert ptx.native(statement('asm volatile("" ::: "memory");'))  # a barrier on any CPU


@pytest.mark.skipif(not ptx.HOST_IS_X86, reason="an ARM instruction fails to assemble on an x86-64 host")
def test_another_cpus_assembly_on_the_taken_branch_fails_the_build(emulate_program, tmp_path):
    from porting.errors import InputError

    src = tmp_path / "arm_timer.cu"
    src.write_text('int main() {\n  unsigned long long t;\n  asm volatile("mrs %0, cntvct_el0" : "=r"(t));\n'
                   '  return (int)(t & 1);\n}\n')
    with pytest.raises(InputError, match="mrs"):
        emulate_program(src)


FALLBACK = Path(__file__).parent / "programs" / "fallback"


def test_a_host_file_with_a_cpu_stand_in_for_cuda_compiles_as_nvcc_compiles_it(emulate_program):
    """The CUDA Handbook's chCUDA.h class: host.cpp defines NO_CUDA and gets book.h's own
    `typedef int cudaError_t`; nvcc compiles a .cpp file without CUDA's headers, and so does
    port emulate (build.is_host_only), so the stand-in does not meet the runtime."""
    result = emulate_program(FALLBACK / "main.cu", FALLBACK / "host.cpp")
    assert result.verdict == "same", [d.line() for d in result.differences]
    assert result.runs[0].stdout == "gpu 3067 cpu 3067 lanes 1024\n"


def test_a_32_lane_count_beside_the_host_stand_in_diverges(emulate_program):
    result = emulate_program(FALLBACK / "main.cu", FALLBACK / "host.cpp", defines=["ASSUME_32"])
    assert [r.stdout for r in result.runs] == ["gpu 3067 cpu 3067 lanes 1024\n", "gpu 3067 cpu 3067 lanes 512\n"]


def test_a_cuda_file_taking_the_stand_in_is_refused_by_name(emulate_program):
    """What the rule leaves: a CUDA file itself on the fallback path (NO_CUDA for every file) gets
    the runtime and the stand-in together; the refusal names the stand-in and why."""
    from porting.errors import PortError

    with pytest.raises(PortError, match=r"book\.h:\d+: declares cudaError_t itself, a CPU-only stand-in for CUDA"):
        emulate_program(FALLBACK / "main.cu", FALLBACK / "host.cpp", defines=["NO_CUDA"])
