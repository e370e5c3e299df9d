"""The fiber runtime's execution model: HIP launches, shared memory, activity and lockstep rules."""

from __future__ import annotations

from pathlib import Path

import pytest

RUNTIME = Path(__file__).parent / "programs" / "runtime"


def test_a_hip_program_runs_the_same_at_both_widths(emulate_program):
    result = emulate_program(RUNTIME / "hip_features.hip")
    assert result.language == "hip"
    assert result.verdict == "same", [d.line() for d in result.differences]
    out = result.runs[0].stdout.splitlines()
    expected_total = sum((i % 13) * (1, 2, 3, 4)[k % 4] for i in range(3000) for k in [i % 4])
    assert out[0].startswith(f"scan totals {expected_total},")
    assert out[1] == "reversed: 127 0 255 128"
    assert out[2] == "ballot bytes 8, error: no error"  # HIP's ballot is 64 bits at either width


def test_a_mask_naming_a_lane_that_is_elsewhere_faults_when_strict(emulate_program):
    result = emulate_program(RUNTIME / "lockstep.cu", warps=[32], program_args=["mask"], strict_sync=True)
    [run] = result.runs
    assert run.exit == 3
    assert "__shfl_sync: mask 0xffffffff names lane 1, which has not exited but does not reach this call" in run.fault


def test_a_mask_naming_a_lane_that_is_elsewhere_is_a_finding_by_default(emulate_program):
    """NVIDIA GPUs run such a call under independent thread scheduling: each group of lanes meets
    with the lanes that arrived; the run goes on and is judged, the finding reported per site."""
    result = emulate_program(RUNTIME / "lockstep.cu", program_args=["mask"])
    assert result.verdict == "same", [d.line() for d in result.differences]
    for run in result.runs:
        assert run.exit == 0 and not run.fault
        assert run.stdout.split()[:4] == ["0", "101", "0", "101"]
        assert len(run.findings) == 2  # once per call site
        assert "__shfl_sync: mask 0xffffffff names lane 1, which waits at another call site" in run.findings[0]


def test_exited_lanes_and_partial_warps_are_inactive(emulate_program):
    result = emulate_program(RUNTIME / "lockstep.cu", program_args=["partial"])
    live = [t for t in range(40) if t % 7 != 6]
    for w in (32, 64):
        run = next(r for r in result.runs if r.warp == w)
        values = [int(v) for v in run.stdout.split()]
        for t in live:
            peers = sum(1 for u in live if u // w == t // w)
            assert values[t] == len(live) * 1000 + peers, (w, t)
    assert result.verdict == "diverged"  # __activemask's population differs, as on hardware


def test_reading_an_exited_lane_warns_and_returns_own_value(emulate_program):
    result = emulate_program(RUNTIME / "lockstep.cu", warps=[64], program_args=["exited"])
    [run] = result.runs
    assert run.stdout.split()[:4] == ["0", "0", "6", "9"]  # lanes 0, 2, 3 read exited lane 1: their own t*3
    assert run.stderr.count("__shfl_sync: lane 0 reads lane 1, which is not active") == 1  # once per call site


def test_toolkit_include_guards_and_device_attributes(emulate_program):
    result = emulate_program(RUNTIME / "toolkit_guards.cu")
    assert result.verdict == "same", [d.line() for d in result.differences]
    assert result.runs[0].stdout.splitlines() == [
        "device 0, 1 multiprocessor(s)",
        "cudaSetDevice(3): cudaErrorInvalidDevice, then last error cudaErrorInvalidDevice",
    ]


def test_cooperative_groups_at_block_and_tile_scope(emulate_program):
    result = emulate_program(RUNTIME / "cooperative_groups.cu")
    assert result.verdict == "same", [d.line() for d in result.differences]
    lines = result.runs[0].stdout.splitlines()
    assert lines[0] == f"sum {sum(i % 17 for i in range(5000))}"
    cells = dict(cell.split(":", 1) for cell in lines[1].split())
    for t in range(20):
        rank = t % 16
        base = t - rank
        scan = sum((u % 5) for u in range(base, t + 1)) * 100 + rank
        ballot = sum(1 << (u - base) for u in range(base, base + 16) if u % 3 == 0)
        any7 = int(base <= 7 < base + 16)
        assert cells[str(t)] == f"{scan}:{ballot + (any7 << 20) + (1 << 21):x}", t
    assert lines[2] == f"counter {sum(1 for t in range(128) if t % 3 != 1)}, slots unique"


def test_front_end_gaps_of_real_programs(emulate_program):
    result = emulate_program(RUNTIME / "frontend_gaps.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    s = sum(min(t, 100) + max(t, 5) for t in range(128))
    assert result.runs[0].stdout == (f"out {s + 256} {s + 256} counter 256\ncallback 1 overlap 1 cudaErrorAssert\n"
                                     "pointers 176 176\n")


def test_a_tile_wider_than_the_warp_compiles_when_unused(emulate_program):
    result = emulate_program(RUNTIME / "wide_tile_template.cu")
    assert result.verdict == "same", [d.line() for d in result.differences]
    assert result.runs[0].stdout == f"{sum(range(128))} {sum(range(128))}\n"


def test_half_and_bfloat16(emulate_program):
    """1/3 rounds to half 0x3555 (0.33325195) and to bfloat16 0x3eab (0.33398438), to nearest
    even; 2048 + 1 in half is 2048 (11-bit significand), rounded once after the float sum."""
    result = emulate_program(RUNTIME / "half_types.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == ("sum 224.0 third 0x3555 0.33325195 h2 4.5 6.0 bf16 0x3eab 0.33398438"
                                     " big 2048.0\n")



def test_half_and_bfloat16_pairs_construct_from_two_values(emulate_program):
    """`half2 value(0.f, 0.f)` (cuda-samples' fp16ScalarProduct), half2(h, h), {f, f}, the bf16
    pair, a zero pair from {}; 256 products of 0.25*(i%4)*2 + 1*0.5*(i%2) through __hfma2 sum to 256."""
    result = emulate_program(RUNTIME / "half2_constructors.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == "dot 256.0 bf16 1.5 -2.0 zero 0.0 0.0\n"

def test_host_threads_launch_in_turn_and_host_files_keep_their_own_helpers(emulate_program):
    src = Path(__file__).parent / "programs" / "hostthreads"
    result = emulate_program(src / "main.cu", src / "helpers.cpp")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == "sum 160320 host_min 3\n"


def test_resource_hints_are_accepted_validated_and_reported_back(emulate_program):
    """Limits (64 MiB heap set, CUDA's default 1024-byte stack, an unknown limit refused),
    stream priorities clamped to [0, -5], an L2 access-policy window read back (a hit ratio
    above 1 refused), pools counting their live bytes (4096 + 1024, then 1024 after a free;
    the high-water mark stays), a created pool's access flags; the kernel's data is intact."""
    result = emulate_program(RUNTIME / "resource_hints.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == (
        "heap 64 stack 1024 bad_limit cudaErrorInvalidValue range 0 -5 prio -5 0\n"
        "window 0.6 2 1 bad_ratio cudaErrorInvalidValue\n"
        "pool used 5120 after 1024 high 5120 own 512 access 3 first 20\n")


def test_cuda_arch_is_the_emulated_devices_for_cuda_sources_only(emulate_program):
    """`#if __CUDA_ARCH__ >= 800` takes the sm_80 path (800) and `#ifdef __CUDA_ARCH__` the
    device side (+1) at both widths; the reduction is right either way (0..127 sums to 8128).
    A HIP source sees no __CUDA_ARCH__."""
    result = emulate_program(RUNTIME / "cuda_arch.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == "sum 8128 path 801 arch 800\n"
    hip = emulate_program(RUNTIME / "cuda_arch_hip.hip")
    assert hip.runs[0].stdout == "no cuda_arch\n"


def test_openmp_host_code_is_built_with_openmp(emulate_program):
    """Four OpenMP threads each launch a kernel on their slice (3 * i for i < 1024 sums to
    1571328) and a parallel host reduction adds them up; without -fopenmp it would not link."""
    result = emulate_program(Path(__file__).parent / "programs" / "openmp" / "omp_launch.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == "threads 4 mask 15 sum 1571328\n"


def test_the_rest_of_cuda_fp16_and_bf16(emulate_program):
    """Directed rounding of 1/3 (half: nearest 0x3555 lies below it, so rz keeps it, ru steps
    to 0x3556, rd of -1/3 to 0xb556; 70000 toward zero is the largest half, 0x7bff; bf16
    nearest 0x3eab, rz/rd 0x3eaa), half2 comparisons as 1.0/0.0 masks and as one bool, a
    saturating add (1.25 -> 1), fma with relu, the complex multiply-add (1+2i)(3+4i)+(0.5+0.5i),
    h2exp2, ++, -=, raw bits (3.5 = 0x4300), bf16 pairs, round-half-even conversions; half2
    pairs reduced through shuffles per warp and added up: 64 x (0.25 * (i % 4), 1)."""
    result = emulate_program(RUNTIME / "half_ops.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == (
        "pairs 24.00 64.0\n"
        "round 3555 3555 3556 b556 7bff\n"
        "bf16 round 3eab 3eaa 3eaa\n"
        "cmp 0 1 1 0 all 1 0\n"
        "sat 1.00 relu 0.0 cmadd -4.5 10.5\n"
        "exp2 8.0 0.50 inc 3.5 raw 4300 sub 0.0 5.0 bf2 1.5 0.0 int 2 -2\n")


def test_a_timeout_is_inconclusive_unless_lines_both_printed_differ(emulate_program):
    """Both widths time out after printing (no fflush: stdout is kept by lines): a complete
    stdout line that differs (4 warps vs 2) is a divergence no more run time can undo; the
    same lines, or a difference only in a last line without its newline, leave the verdict
    inconclusive."""
    src = RUNTIME / "partial_output.cu"
    differs = emulate_program(src, timeout=3, sandbox=False)
    assert [r.status for r in differs.runs] == ["timeout", "timeout"]
    assert differs.verdict == "diverged"
    assert [d.line() for d in differs.differences] == ["stdout line 2: warp 32: warps 4 | warp 64: warps 2"]
    assert emulate_program(src, timeout=3, sandbox=False, defines=["SAME"]).verdict == "inconclusive"
    assert emulate_program(src, timeout=3, sandbox=False, defines=["CUT"]).verdict == "inconclusive"


def test_partial_comparison_after_a_timeout():
    """The comparison of runs of which one timed out (no compiler needed): a build that failed
    at the other width is certain; a finished run's end of output against more complete lines
    is certain; a finished run whose lines the timed-out one printed alike is not."""
    from porting.emulate.run import Run, compare
    late = Run(64, "timeout", None, "a\nb\nc\n")
    assert [d.what for d in compare([Run(32, "build-failed", fault="x"), late], ["stdout"], [])] == ["status"]
    assert [d.line() for d in compare([Run(32, "ran", 0, "a\n"), late], ["stdout"], [])] == [
        "stdout line 2: warp 32: <end of output> | warp 64: b"]
    assert compare([Run(32, "ran", 0, "a\nb\nc\nd\n"), late], ["stdout", "exit"], []) == []
    cut = Run(64, "timeout", None, "a\nb")  # its last line may be cut off: not compared
    assert compare([Run(32, "ran", 0, "a\nc\n"), cut], ["stdout"], []) == []


def test_clock_and_entropy_seeds_are_the_same_at_both_widths(emulate_program):
    """srand(time(NULL)) and std::random_device seed 2,000 inputs that a kernel sums: the same
    sum at both widths (with the C library's clock and libstdc++'s entropy the two runs would
    draw other inputs), and time() is still the real epoch (after 2023)."""
    result = emulate_program(RUNTIME / "seeded_inputs.cu")
    assert result.verdict == "same", [d.line() for d in result.differences]
    assert result.runs[0].stdout.endswith(" clock_moves 1\n")


def test_c99_classification_functions_unqualified(emulate_program):
    """signbit/isnan/isinf/isfinite unqualified, as nvcc's headers declare them: -1.5 is
    negative and finite (1 + 8), 2 finite (8), -inf negative and infinite (1 + 4), NaN 2."""
    result = emulate_program(RUNTIME / "c99_math.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == "9 8 5 2\n"


def test_a_kernel_launching_kernels_runs_its_children_after_it(emulate_program):
    """Dynamic parallelism: child grids (recursive, one per block) run with copied arguments
    before the launch that started their parent returns."""
    result = emulate_program(RUNTIME / "dynamic_parallelism.cu")
    assert result.verdict == "same", [d.line() for d in result.differences]
    out = result.runs[0].stdout.splitlines()
    assert out[:8] == [f"depth {d}: {64 >> d if d < 7 else 0} threads wrote {d * 10 + 1 if d < 7 else 0}"
                       for d in range(8)]
    # block b of the parent launched b + 1 blocks of 32 threads into counts[0..b]
    assert out[8] == "counts 128 96 64 32 0, no error"


def test_a_device_side_wait_for_a_child_grid_is_refused(emulate_program):
    from porting.emulate import Unsupported

    with pytest.raises(Unsupported, match="cudaDeviceSynchronize in device code waiting for a child grid"):
        emulate_program(RUNTIME / "dynamic_parallelism.cu", warps=[32], program_args=["sync"])


def test_managed_memory_hints_are_accepted_and_validated(emulate_program):
    """cudaMemAttachHost, cudaStreamAttachMemAsync (whole allocation, global, host; a mix of flags
    refused), cudaMemAdvise (an unknown advice refused), CUDA 13's cudaMemLocation forms (an
    invalid location refused), cudaHostGetDevicePointer on a typed pointer: the kernel's result
    is unchanged."""
    result = emulate_program(RUNTIME / "managed_hints.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == (
        "location cudaSuccess cudaErrorInvalidValue cudaSuccess mapped cudaSuccess 1\n"
        "pageable 1 host_tables 1 1 register 1\n"
        "sum 999000 attach cudaSuccess cudaSuccess bad_flags cudaErrorInvalidValue "
        "advise cudaSuccess cudaSuccess bad_advice cudaErrorInvalidValue\n")


HELPERS = Path(__file__).parent / "programs" / "samples_helpers"


def test_the_cuda_samples_helper_headers_are_provided(emulate_program):
    """helper_cuda.h / helper_functions.h / helper_timer.h without the samples' Common: the
    timer, the -n= flag, checkCudaErrors failing on a bad device (exit 1, its message)."""
    result = emulate_program(HELPERS / "uses_helpers.cu", program_args=["-n=50"])
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    run = result.runs[0]
    assert run.exit == 1
    assert run.stdout.splitlines()[-1] == f"n 50 sum {sum(range(50)) + 3 * 50} timer_ok 1 reset 0 deleted 1"
    assert "code=101(cudaErrorInvalidDevice) \"cudaSetDevice(7)\"" in run.stderr


def test_a_programs_own_helper_header_wins(emulate_program):
    result = emulate_program(HELPERS / "own" / "main.cu", include_dirs=[HELPERS / "own"])
    assert result.runs[0].stdout == "the program's own\n"


def test_the_standard_library_after_the_runtime_header(emulate_program):
    """<bits/stdc++.h> (libstdc++'s __attribute__((__noinline__))) and a __noinline__ function."""
    result = emulate_program(RUNTIME / "std_headers_after_runtime.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == "6 56\n"


def test_cucomplex_arithmetic_on_device_and_host(emulate_program):
    result = emulate_program(RUNTIME / "cucomplex.cu")
    assert result.verdict == "same", [d.line() for d in result.differences]
    # the scaled division keeps (1e300 + 1e300i) / (1e300 - 1e300i) = i finite
    assert result.runs[0].stdout.splitlines() == ["c[7] = 28 -48i", "q = 0 +1i, |3+4i| = 5"]


def test_the_cuda_4_sdk_cutil_headers_are_provided(emulate_program):
    """<cutil_inline.h> and <shrQATest.h> without the SDK: timers, cutComparef/fe/L2fe, the checks;
    a block reduction that follows warpSize is the same at both widths."""
    result = emulate_program(HELPERS / "uses_cutil.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout.splitlines()[2:] == [
        "timer sessions ok 1, deleted 1, bad handle 1", "sums: 1518 1534 ... 1526",
        "exact 1, l2 1, off by 0.5: exact 0, within 0.6 1", "[./uses_cutil] test results...", "PASSED", ""]
    assert "Using device 0:" in result.runs[0].stderr


def test_a_cutil_program_with_a_32_wide_tree_step_diverges(emulate_program):
    result = emulate_program(HELPERS / "uses_cutil_bad.cu")
    assert result.verdict == "diverged"
    assert [r.exit for r in result.runs] == [0, 1]
    assert result.runs[1].stdout.splitlines()[-2] == "FAILED"


def test_the_cutil_macros_of_the_cuda_2_sdk(emulate_program, tmp_path: Path):
    """CUDA_SAFE_CALL, CUT_DEVICE_INIT, CUT_CHECK_ERROR, CUT_SAFE_CALL, cutCheckCmdLineFlag and
    cutGetCmdLineArgumenti, <math_functions.h>, and CUT_EXIT, which prompts unless -noprompt and
    exits 0 (stdin is empty); a failing CUDA_SAFE_CALL names the file and line, exit 1."""
    src = tmp_path / "old.cu"
    src.write_text(
        "#include <cuda.h>\n#include <cutil.h>\n#include <math_functions.h>\n#include <cstdio>\n"
        "__global__ void k(int* p) { p[threadIdx.x] = threadIdx.x; }\n"
        "int main(int argc, char** argv) {\n  CUT_DEVICE_INIT(argc, argv);\n  int* d; int h[4], n = 0;\n"
        "  CUDA_SAFE_CALL(cudaMalloc((void**)&d, sizeof h));\n  k<<<1, 4>>>(d);\n  CUT_CHECK_ERROR(\"k\");\n"
        "  CUDA_SAFE_CALL(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));\n"
        "  CUT_SAFE_CALL(cutGetCmdLineArgumenti(argc, (const char**)argv, \"n\", &n));\n"
        "  printf(\"%d %d %d %d n=%d flag %d\\n\", h[0], h[1], h[2], h[3], n,\n"
        "         cutCheckCmdLineFlag(argc, (const char**)argv, \"noprompt\"));\n"
        "  if (n == 0) CUDA_SAFE_CALL(cudaSetDevice(5));\n  CUT_EXIT(argc, argv);\n}\n")
    result = emulate_program(src, program_args=["-n=3"])
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == "0 1 2 3 n=3 flag 0\n\nPress ENTER to exit...\n" and result.runs[0].exit == 0
    result = emulate_program(src, program_args=["--noprompt", "-n=0"])
    assert result.runs[0].exit == 1 and "in line 16" in result.runs[0].stderr


def test_per_architecture_toolkit_headers_and_integer_dot_products(emulate_program):
    """`#include <sm_61_intrinsics.h>` and the other per-architecture headers resolve to the runtime;
    __dp4a sums four byte products (3*1 + 2*2 - 1*3 + 1*4 + 10; unsigned: 255*3), __dp2a_lo/_hi two
    16-bit-by-byte products with srcB's low / high bytes (3*1 - 2*2, 3*3 - 2*4; unsigned: 65534)."""
    result = emulate_program(RUNTIME / "sm_headers_dot_products.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout.splitlines() == [
        "dp4a 18 786",
        "dp2a lo -1 131071 hi 1 262145",
        "atomic 18",
    ]


def test_globals_named_like_standard_algorithms_compile_with_using_namespace_std(emulate_program):
    """The sixth suite's `__device__ unsigned int count` beside `using namespace std;`: nvcc's
    headers bring no <algorithm>, and neither do the runtime's (emu_base.h)."""
    result = emulate_program(RUNTIME / "std_names.cu")
    assert result.verdict == "same", [d.line() for d in result.differences]
    assert result.runs[0].stdout == "lanes counted: 256, find[3] = 9, sort = 3\n"


def test_a_32_lane_count_beside_std_named_globals_diverges(emulate_program):
    result = emulate_program(RUNTIME / "std_names.cu", defines=["ASSUME_32"])
    assert [r.stdout for r in result.runs] == ["lanes counted: 256, find[3] = 9, sort = 3\n",
                                               "lanes counted: 128, find[3] = 9, sort = 3\n"]


def test_a_global_named_like_a_container_helper_is_still_ambiguous(emulate_program, tmp_path):
    """What the rule leaves: the runtime's own containers (<vector>, <string>, <unordered_map>,
    <mutex>, std::function) still declare `size`, `data`, `empty`, `vector`, `string`,
    `function`, `hash`, `less`... in std, which nvcc's headers do not; such a global with
    `using namespace std;` does not compile (docs/emulate.md lists the names)."""
    from porting.errors import PortError

    src = tmp_path / "size.cu"
    src.write_text("#include <cstdio>\nusing namespace std;\nint size = 4;\n"
                   "int main() { printf(\"%d\\n\", size); return 0; }\n")
    with pytest.raises(PortError, match="reference to .size. is ambiguous"):
        emulate_program(src)


ILLEGAL = "700 cudaErrorIllegalAddress (an illegal memory access was encountered)"


@pytest.mark.parametrize("mode, ran, kernel, thread", [
    ("null", 70, "count_then_fault", "block (1,0,0) thread (5,0,0)"),
    ("wild", 70, "count_then_fault", "block (1,0,0) thread (5,0,0)"),
    ("read", 70, "count_then_fault", "block (1,0,0) thread (5,0,0)"),
    ("barrier", 71, "barrier_then_fault", "block (0,0,0) thread (70,0,0)"),
])
def test_a_device_memory_fault_aborts_the_launch_with_a_sticky_illegal_address(emulate_program, mode, ran, kernel,
                                                                                thread):
    """A null store, a non-canonical pointer, a null load, and a fault while the other threads of
    the block wait at a barrier: the grid stops at the faulting thread (block 0's 64 threads and
    1.0-1.5 ran, or 71 of the barrier kernel's first phase), every call returns 700 and
    cudaGetLastError does not clear it, nothing launched afterwards runs, cudaDeviceReset clears
    it and the next launch runs every thread again (2 x 128 x (1 + 1000)); the same at both widths."""
    result = emulate_program(RUNTIME / "device_fault.cu", program_args=[mode])
    assert result.verdict == "same", [d.line() for d in result.differences]
    for run in result.runs:
        out = run.stdout.splitlines()
        assert run.exit == 0 and not run.fault
        assert out[0] == f"threads that ran: {ran}"
        assert out[1:6] == [f"{what}: {ILLEGAL}" for what in
                            ("cudaGetLastError", "cudaGetLastError again", "cudaDeviceSynchronize", "cudaMemcpy")] + [
            "host copy untouched: 7"]
        assert out[6:9] == [f"cudaMalloc: {ILLEGAL}", f"launch after the fault: {ILLEGAL}", f"threads that ran: {ran}"]
        assert out[9:] == ["cudaDeviceReset: 0 cudaSuccess (no error)", "cudaMallocManaged: 0 cudaSuccess (no error)",
                           "launch after the reset: 0 cudaSuccess (no error)", "threads that ran: 256256"]
        assert [f.split(": the launch")[0] for f in run.findings] == [
            f"kernel '{kernel}': an illegal memory access (SIGSEGV)"]
        assert f"[warp {run.warp}: {thread}]" in run.stderr


def test_a_device_fault_in_a_kernel_another_host_thread_launched(emulate_program):
    result = emulate_program(RUNTIME / "device_fault.cu", program_args=["thread"])
    assert result.verdict == "same", [d.line() for d in result.differences]
    assert result.runs[0].stdout.splitlines() == [f"in the thread: {ILLEGAL}", "threads that ran: 129",
                                                  f"in main: {ILLEGAL}"]


def test_a_kernel_past_its_stack_is_a_device_fault_named_as_an_overflow(emulate_program):
    result = emulate_program(RUNTIME / "device_fault.cu", program_args=["overflow"])
    assert result.verdict == "same", [d.line() for d in result.differences]
    assert result.runs[0].stdout == f"after overflow: {ILLEGAL}\n"
    assert "a stack overflow" in result.runs[0].findings[0]


def test_a_memory_fault_in_host_code_still_ends_the_program(emulate_program):
    """Only device code's faults are caught: a null store in main after a clean launch kills the
    process at both widths, as it would natively (no verdict)."""
    from porting.errors import PortError

    with pytest.raises(PortError, match="fails at every width.*killed by signal 11"):
        emulate_program(RUNTIME / "device_fault.cu", program_args=["host"])


def test_event_times_read_the_emulated_device_clock(emulate_program):
    """cudaEventElapsedTime between events: 6,400 bytes copied (100 ns), a grid of 1,024 threads
    (1,024 ns), nothing (0): bare times print the same at both widths."""
    result = emulate_program(RUNTIME / "event_clock.cu")
    assert result.verdict == "same", [d.line() for d in result.differences]
    assert result.runs[0].stdout == "0.000100\n0.001024\n0.000000\n"


def test_event_times_follow_work_that_depends_on_the_width(emulate_program):
    """What the clock does not hide: a grid of warpSize threads is half the work at 32 lanes."""
    result = emulate_program(RUNTIME / "event_clock.cu", program_args=["by_warp"])
    assert result.verdict == "diverged"
    assert [r.stdout.splitlines()[1] for r in result.runs] == ["0.000032", "0.000064"]
