"""Inline PTX: the emulated subset against C++ references, at 32 and 64 lanes, and refusals.

programs/ptx/bits.cu and arith.cu compute every instruction through asm and through a C++
reference written in the program (plain shifts, masks and wide arithmetic, not the runtime's
helpers), and count mismatches; warp.cu checks the warp, barrier, memory and special-register
instructions with results that do not depend on the width. lanemask_diverges.cu holds a
32-lane assumption (a 32-bit %lanemask_lt and ballot) that must diverge at 64 lanes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.emulate import ptx
from porting.emulate.refuse import scan_text
from porting.emulate.rewrite import rewrite
from porting.errors import InputError

PROGRAMS = Path(__file__).parent / "programs" / "ptx"


@pytest.mark.parametrize("name", ["bits", "arith", "warp", "async_shared"])
def test_each_instruction_group_matches_its_reference_at_both_widths(emulate_program, name):
    result = emulate_program(PROGRAMS / f"{name}.cu", warps=[32, 64])
    for run in result.runs:
        assert run.exit == 0, run.stderr
        assert run.stdout.startswith("mismatches 0 "), run.stdout
    assert result.verdict == "same", result.differences


def _compacted(width: int) -> list[int]:
    """What lanemask_diverges.cu keeps: a 32-bit ballot and %lanemask_lt see lanes 0-31 of each
    warp only, so at 64 lanes the multiples of 3 in lanes 32-63 are dropped."""
    return [t for t in range(128) if t % 3 == 0 and t % width < 32]


def test_a_32_bit_lanemask_assumption_diverges_at_64(emulate_program):
    result = emulate_program(PROGRAMS / "lanemask_diverges.cu", warps=[32, 64])
    assert result.verdict == "diverged"
    for run in result.runs:
        kept = _compacted(run.warp)
        assert run.stdout.split(":")[0] == f"kept {len(kept)}"
        assert [int(x) for x in run.stdout.split(":")[1].split()][:len(kept)] == kept


@pytest.mark.parametrize("name, instruction", [
    ("refused_ldmatrix.cu", "'ldmatrix.sync.aligned.x4.m8n8.shared.b16'"),
])
def test_an_instruction_outside_the_subset_is_refused_by_name(name, instruction):
    path = PROGRAMS / name
    [refusal] = scan_text(path.read_text(), str(path))
    assert refusal.feature.startswith(f"inline assembly: PTX instruction {instruction}")
    assert refusal.where == f"{path}:7"


@pytest.mark.parametrize("name", ["bits.cu", "arith.cu", "warp.cu", "lanemask_diverges.cu", "async_shared.cu",
                                  "named_barrier_same.cu", "named_barrier_bad.cu"])
def test_programs_within_the_subset_are_not_refused(name):
    path = PROGRAMS / name
    assert scan_text(path.read_text(), str(path)) == []


def _kernel(body: str) -> str:
    return "__global__ void k(unsigned* o, unsigned a) {\n  unsigned r;\n  " + body + "\n  *o = r;\n}\n"


def test_the_rewrite_keeps_lines_and_leaves_strings_and_comments_alone():
    src = _kernel('asm volatile("bfe.u32 %0, %1, 4, 8;"\n    : "=r"(r)\n    : "r"(a));  // asm("x")\n'
                  '  const char* s = "asm(\\"trap;\\")";')
    out = rewrite(src, "k.cu").text
    assert out.count("\n") == src.count("\n")
    assert "::emu::ptx::bfe<uint32_t>" in out and 'asm("x")' in out and 'asm(\\"trap;\\")' in out


@pytest.mark.parametrize("body, message", [
    ('asm("frobnicate.u32 %0, %1;" : "=r"(r) : "r"(a));', "PTX instruction 'frobnicate.u32'"),
    ('asm("mov.u32 %0, %1;" : "=m"(r) : "r"(a));', "asm output constraint '=m'"),
    ('asm("bra LOOP;");', "PTX instruction 'bra'"),
    ('asm("add.sat.s32 %0, %1, 1;" : "=r"(r) : "r"(a));', "'add.sat.s32' (saturation)"),
    ('asm("cvt.rz.f32.f64 %0, %1;" : "=f"(r) : "d"(a));', "'cvt.rz.f32.f64'"),
    ('asm("prmt.b32.f4e %0, %1, %1, 0;" : "=r"(r) : "r"(a));', "prmt's default mode"),
])
def test_what_is_outside_the_subset_is_named(body, message):
    [refusal] = scan_text(_kernel(body), "k.cu")
    assert message in refusal.feature and refusal.where == "k.cu:3"
    with pytest.raises(InputError, match="k.cu: inline PTX"):
        rewrite(_kernel(body), "k.cu")


def test_a_compiler_barrier_and_scoped_registers_translate():
    [stmt] = ptx.find('asm volatile("brkpt;");')
    assert "__brkpt();" in ptx.translate(stmt)
    [stmt] = ptx.find('asm volatile("" ::: "memory");')
    assert stmt.template == "" and ptx.translate(stmt).startswith("do {")
    [stmt] = ptx.find('asm("{\\n\\t.reg .u64 t;\\n\\tmul.wide.u32 t, %1, %2;\\n\\tmov.b64 {%0, _}, t;\\n\\t}"'
                      ' : "=r"(lo) : "r"(a), "r"(b));')
    with pytest.raises(ptx.Unsupported, match="'_'"):
        ptx.translate(stmt)
    [stmt] = ptx.find('asm("{\\n\\t.reg .u64 t;\\n\\tmul.wide.u32 t, %1, %2;\\n\\tmov.b64 {%0, %1}, t;\\n\\t}"'
                      ' : "=r"(lo), "=r"(hi) : "r"(a), "r"(b));')
    out = ptx.translate(stmt)
    assert "uint64_t emu_r_t{}" in out and "emu_r_t" in out.split("uint64_t emu_r_t{};", 1)[1]


def test_operands_written_without_a_comma_are_split():
    src = _kernel('asm volatile("add.u32 %0, %1, %2;" : "=r"(r) : "r"(a) "r"(a + 1));')
    assert "const auto emu_a1 = (a);" in rewrite(src, "k.cu").text
    assert "const auto emu_a2 = (a + 1);" in rewrite(src, "k.cu").text


@pytest.mark.parametrize("body, message", [
    ('asm("cvta.to.local.u64 %0, %1;" : "=l"(r) : "l"(o));', "'cvta.to.local.u64' (local/const windows"),
    ('asm("cp.async.bulk.shared::cluster.global [%0], [%1], 16;" :: "r"(a), "l"(o));',
     "PTX instruction 'cp.async.bulk.shared::cluster.global'"),
    ('asm("vadd.u32.u32.u32.add %0, %1, %1, %1;" : "=r"(r) : "r"(a));', "PTX instruction 'vadd.u32.u32.u32.add'"),
    ('asm("vshr.s32.u32.u32.clamp %0, %1, %1, %1;" : "=r"(r) : "r"(a));', "PTX instruction 'vshr.s32.u32.u32.clamp'"),
])
def test_the_new_groups_refuse_the_forms_they_do_not_model(body, message):
    found = ptx.first_unsupported(_kernel(body))
    assert found is not None and message in found[1]


def test_an_if_group_in_a_template_becomes_one_block_per_branch_with_the_lines_kept():
    src = _kernel('asm("mov.u32 %0, 1;"\n#if X\n    "add.u32 %0, %0, 1;"\n#else\n    "add.u32 %0, %0, 2;"\n'
                  '#endif\n    : "=r"(r));')
    out = rewrite(src, "k.cu").text
    assert out.count("\n") == src.count("\n")
    assert "\n#if X\n" in out and "\n#else\n" in out and "\n#endif\n" in out


def test_nested_if_groups_in_a_template_are_refused():
    body = 'asm("mov.u32 %0, 1;"\n#if X\n#if Y\n    "add.u32 %0, %0, 1;"\n#endif\n#endif\n    : "=r"(r));'
    found = ptx.first_unsupported(_kernel(body))
    assert found is not None and "nested or repeated #if groups" in found[1]


def test_named_barriers_order_a_producer_and_a_consumer_at_both_widths(emulate_program):
    """bar.arrive/bar.sync 1 and 2 among 128 threads, bar.red.popc over the block (barrier 3, no
    count), barrier.sync 4: sum of 2 * (i % 100), i < 512, and 39 threads with in[t] > 60."""
    result = emulate_program(PROGRAMS / "named_barrier_same.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert [r.stdout for r in result.runs] == ["sum 49632, positive 39\n"] * 2


def test_a_32_lane_consumer_behind_named_barriers_diverges(emulate_program):
    result = emulate_program(PROGRAMS / "named_barrier_bad.cu")
    assert result.verdict == "diverged"
    assert result.runs[0].stdout == "sum 49632, positive 39\n"
    assert "lane 32 is not in its mask 0xffffffff" in result.runs[1].fault


def test_a_named_barrier_that_cannot_fill_is_a_deadlock_fault(emulate_program, tmp_path):
    src = tmp_path / "deadlock.cu"
    src.write_text('#include <cstdio>\n__global__ void k() {\n'
                   '  if (threadIdx.x < 32) asm volatile("bar.sync 1, 64;");\n}\n'
                   'int main() { k<<<1, 64>>>(); cudaDeviceSynchronize(); printf("done\\n"); }\n')
    with pytest.raises(InputError, match=r"named barrier 1: 32 thread\(s\) arrived, no other thread of the block "
                                         r"can arrive \(deadlock\)"):
        emulate_program(src)


@pytest.mark.parametrize("body, expected", [
    ('asm volatile("bar.sync 1, 64;");', "::emu::named_barrier(((uint32_t)(1ULL)), ((uint32_t)(64ULL)), 1, 0, 0);"),
    ('asm volatile("bar.cta.arrive 2, 64;");',
     "::emu::named_barrier(((uint32_t)(2ULL)), ((uint32_t)(64ULL)), 0, 0, 0);"),
    ('asm volatile("barrier.sync.aligned 3;");', "::emu::named_barrier(((uint32_t)(3ULL)), 0u, 1, 0, 0);"),
    ('asm volatile("bar.sync 0;");', "__syncthreads();"),
])
def test_barrier_forms_translate(body, expected):
    [stmt] = ptx.find(body)
    assert expected in ptx.translate(stmt)
