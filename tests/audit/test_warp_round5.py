"""Issue 26, round 5 (classes seen in corpus 5's hold-out; own programs, not its code).

- A configuration macro #defined to a value that is 0 on ROCm (``#define FP4_OK (CUDA_VERSION >=
  12080)``: CUDA_VERSION is undefined there, or hipify's TORCH_HIP_VERSION, 7xx) gates an ``#if
  FP4_OK`` branch ROCm never compiles: inline PTX there is no finding. ``#ifdef FP4_OK`` is compiled
  (the macro exists) and keeps its finding; a value ROCm may make true keeps it too.
- CUTLASS's / CuTe's arch switches (``CUTLASS_ARCH_*_ENABLED``, ``CUTE_ARCH_*_ENABLED``) are defined
  by those libraries only under ``__CUDA_ARCH__`` tests, so their branches are CUDA-only even when
  the library's headers are not in the tree; a project that #defines one itself keeps its findings."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths

CONFIG = "#pragma once\n#define FP4_OK (CUDA_VERSION >= 12080)\n"
GATED = """#include "config.h"
#if FP4_OK
__device__ void cvt(unsigned* x) { asm volatile("mov.u32 %0, 1;" : "=r"(*x)); }
#endif
#if defined(CUTLASS_ARCH_CLC_ENABLED)
__device__ void clc(unsigned* x) { asm volatile("mov.u32 %0, 2;" : "=r"(*x)); }
#endif
#ifdef CUTE_ARCH_CP_ASYNC_SM80_ENABLED
__device__ void cp(unsigned* x) { asm volatile("mov.u32 %0, 3;" : "=r"(*x)); }
#endif
#if !defined(CUTLASS_ARCH_CLC_ENABLED)
__device__ void plain(unsigned* x) { *x = 4; }
#else
__device__ void clc2(unsigned* x) { asm volatile("mov.u32 %0, 5;" : "=r"(*x)); }
#endif
"""
# #ifdef of a macro that exists on ROCm (with value 0) is compiled there: the PTX fails
DEFINED_TEST = GATED.replace("#if FP4_OK", "#ifdef FP4_OK")
# a value ROCm can make true (an AMD test beside the CUDA one): the branch may be compiled
MAYBE = "#pragma once\n#define FP4_OK (CUDA_VERSION >= 12080 || defined(__HIP_PLATFORM_AMD__))\n"
# the project #defines the CUTLASS switch itself, outside any CUDA branch: its branches count
OWN_SWITCH = '#include "config.h"\n#define CUTLASS_ARCH_CLC_ENABLED 1\n' + GATED.split("\n", 1)[1]
# the input that breaks the rule: the macro also comes from the build line (-DFP4_OK=1) or from a
# header the file does not include; the audit sees only the file's own unit and stays quiet


def ptx_lines(tmp_path: Path, config: str, source: str) -> list[int]:
    (tmp_path / "config.h").write_text(config)
    (tmp_path / "k.cu").write_text(source)
    found = audit_paths([tmp_path / "k.cu"], jobs=1).findings
    return sorted(f.line for f in found if f.rule == "inline-ptx")


def test_a_macro_zero_on_rocm_and_library_arch_switches_gate_their_branches(tmp_path: Path) -> None:
    assert ptx_lines(tmp_path, CONFIG, GATED) == []


def test_ifdef_of_a_macro_with_value_zero_is_compiled_on_rocm(tmp_path: Path) -> None:
    assert ptx_lines(tmp_path, CONFIG, DEFINED_TEST) == [3]


def test_a_value_rocm_may_make_true_keeps_the_finding(tmp_path: Path) -> None:
    assert ptx_lines(tmp_path, MAYBE, GATED) == [3]


def test_a_library_switch_the_project_defines_itself_keeps_its_findings(tmp_path: Path) -> None:
    assert ptx_lines(tmp_path, CONFIG, OWN_SWITCH) == [7, 15]  # CuTe's switch, not defined here, still gates line 10


def test_the_build_line_definition_is_the_known_miss(tmp_path: Path) -> None:
    (tmp_path / "other.h").write_text("#define FP4_OK 1\n")  # not included: the audit cannot see it
    assert ptx_lines(tmp_path, CONFIG, GATED) == []


# - A bitmap of 32-bit words set by one statement that splits the same value into a word and a bit
#   (``words[e / 32] |= 1u << (e % 32)``) indexes the same words at any wavefront width: no note,
#   even when ``e`` comes from a lane index. ``words_per_warp = (n + 31) / 32`` is an amount per
#   warp, not a number of warps. The 32-lane reduction beside them keeps its note.
BITMAP = """__global__ void route(const int* idx, unsigned* map, int n, int topk) {
  int lane = threadIdx.x % 32;
  const int words_per_warp = (n + 31) / 32;
  unsigned* words = map + (threadIdx.x / 32) * words_per_warp;
  for (int e = lane; e < topk; e += 32) {
    atomicOr(&words[e / 32], 1u << (e % 32));
  }
  for (int e = lane; e < n; e += 32) {
    float v = idx[e];
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o, 32);
    if (lane == 0) map[e] = (unsigned)v;
  }
}
"""
# the lane's own bit in a 32-bit word and the word of its warp: lane math (a 32-lane ballot by hand)
LANE_BITS = BITMAP.replace("atomicOr(&words[e / 32], 1u << (e % 32));",
                           "atomicOr(&words[e / 32], 1u << (lane % 32));")
# the input that breaks it: a ballot built by hand, `bits[tid / 32] |= 1u << (tid % 32)` per 32
# threads, read back as one warp's vote at 64 lanes: the statement alone is bit-packing (quiet)


def notes(tmp_path: Path, name: str, text: str) -> list[tuple[int, str]]:
    (tmp_path / name).write_text(text)
    found = audit_paths([tmp_path / name], jobs=1).findings
    return sorted((f.line, f.rule) for f in found if f.rule in ("warp32-logical", "warp-size-literal"))


def test_a_bitmap_word_and_bit_of_one_value_are_no_lane_math(tmp_path: Path) -> None:
    found = notes(tmp_path, "route.cu", BITMAP)
    assert not [f for f in found if f[0] in (3, 6)], found
    assert (2, "warp32-logical") in found  # the 32-lane lane id still gets its note


def test_a_lane_bit_beside_a_bitmap_word_stays_lane_math(tmp_path: Path) -> None:
    assert [f for f in notes(tmp_path, "lanes.cu", LANE_BITS) if f[0] == 6]


# - A function of a Hopper warpgroup pipeline (CuTe's elect_one_sync, warpgroup_arrive, SM90_TMA_*)
#   is mma code: no ROCm build exists for it (a library port), so its broadcast of the warp index
#   from lane 0 is no shfl-fixed-lane hazard of its own. The same broadcast in a plain kernel is one:
#   lanes 32-63 of a wavefront take lane 0's `tid / 32`, the index of the other half.
WARPGROUP = """#include <cute/tensor.hpp>
template <class Params>
__device__ void load(Params const& p, int* out) {
  int lane_predicate = cute::elect_one_sync();
  int warp_idx = __shfl_sync(0xffffffff, (threadIdx.x / 32) % 4, 0);
  if (warp_idx == 0 && lane_predicate) out[blockIdx.x] = p.n;
}
"""
PLAIN = WARPGROUP.replace("cute::elect_one_sync()", "threadIdx.x % 32 == 0")
# the input that breaks it: a hand-ported warp-specialized kernel that keeps a helper named
# elect_one_sync (its own, not CuTe's) is taken for library code and loses the finding


def test_a_warp_index_broadcast_in_a_warpgroup_pipeline_is_mma_code(tmp_path: Path) -> None:
    (tmp_path / "wg.cu").write_text(WARPGROUP)
    found = audit_paths([tmp_path / "wg.cu"], jobs=1).findings
    assert not [f for f in found if f.rule == "shfl-fixed-lane"]


def test_the_same_broadcast_in_a_plain_kernel_is_named(tmp_path: Path) -> None:
    (tmp_path / "plain.cu").write_text(PLAIN)
    found = audit_paths([tmp_path / "plain.cu"], jobs=1).findings
    assert (5, "shfl-fixed-lane") in [(f.line, f.rule) for f in found]


# - A shuffle helper whose source lane is a parameter, with no width, called in the same file with a
#   lane modulo 32 (`(lane + i) % THREADS_PER_WARP`, a named 32): the helper reads a logical lane of
#   a 32-lane warp, so on a 64-lane wavefront lanes 32-63 read the lower half's values.
ROTATE = """constexpr unsigned THREADS_PER_WARP = 32;
template <typename T>
__device__ void rotate(T& acc, T v, const int src_lane) {
  acc += __shfl_sync(0xffffffff, v, src_lane);
}
__global__ void bias(const float* in, float* out) {
  const unsigned lane = threadIdx.x % THREADS_PER_WARP;
  float acc = 0.f;
  for (int i = 0; i < 4; ++i) {
    rotate<float>(acc, in[threadIdx.x * 4 + i], (lane + i) % THREADS_PER_WARP);
  }
  out[threadIdx.x] = acc;
}
"""
# the callers take the lane modulo the hardware width: the absolute lane is right at 64
ROTATE_WARPSIZE = ROTATE.replace("(lane + i) % THREADS_PER_WARP", "(lane + i) % warpSize").replace(
    "threadIdx.x % THREADS_PER_WARP", "threadIdx.x % warpSize")
# the helper passes the logical width: each half reads its own lanes
ROTATE_WIDTH = ROTATE.replace("v, src_lane)", "v, src_lane, THREADS_PER_WARP)")
# the input that breaks it: the helper in a header and its callers in another file (the header's
# audit sees no caller; a file's findings depend only on the file and the headers it includes)


def fixed(tmp_path: Path, name: str, text: str) -> list[int]:
    (tmp_path / name).write_text(text)
    return [f.line for f in audit_paths([tmp_path / name], jobs=1).findings if f.rule == "shfl-fixed-lane"]


def test_a_widthless_shuffle_whose_callers_pass_a_lane_mod_32_is_named(tmp_path: Path) -> None:
    # the helper's shuffle (4) and, since round 7 (a call of a shuffle wrapper is judged like the
    # shuffle), the call that passes the lane modulo 32 (10)
    assert fixed(tmp_path, "rot.cu", ROTATE) == [4, 10]


def test_a_lane_mod_warpsize_or_a_shuffle_with_width_is_quiet(tmp_path: Path) -> None:
    assert fixed(tmp_path, "rot_ws.cu", ROTATE_WARPSIZE) == []
    assert fixed(tmp_path, "rot_w.cu", ROTATE_WIDTH) == []


def test_callers_in_another_file_are_named_at_the_call(tmp_path: Path) -> None:
    # round 5's known miss: the header's own audit still sees no caller, but since round 7 the
    # kernel's file follows the wrapper in the header it includes and names the call (line 6)
    helper, kernel = ROTATE.split("__global__")
    (tmp_path / "rot.cuh").write_text(helper)
    (tmp_path / "k.cu").write_text('#include "rot.cuh"\n__global__' + kernel.replace(
        "constexpr unsigned THREADS_PER_WARP = 32;\n", ""))
    found = audit_paths([tmp_path / "rot.cuh", tmp_path / "k.cu"], jobs=1).findings
    assert [(Path(f.path).name, f.line) for f in found if f.rule == "shfl-fixed-lane"] == [("k.cu", 6)]
