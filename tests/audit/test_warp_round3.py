"""Issue 26, round 3 (tuned on the tune half of tests/audit/fresh/labels_fourth.toml): two classes,
each with a program written here and the variant that must keep its finding or stay quiet.

- mma.sync written as PTX inside a macro (``#define HMMA16816(...) asm volatile("mma.sync...")``)
  that a kernel uses: the kernel is warp matrix code (fragments belong to the hardware warp, a
  library port on ROCm), so its ``#define WARP_SIZE 32`` is no "consistent at 64" note (LeetCUDA's
  hgemm files). A macro of other PTX (cp.async, add) changes nothing.
- ATen's ``WARP_SHFL(value, srcLane)``: its width defaults to warpSize, so a source lane counted
  in 32 (``(threadIdx.x + k) & 31``) reads the lower half from lanes 32-63 (apex's layer norm,
  launched with 32 x 4 threads). With a width of 32 it is right, and WARP_SHFL_XOR is not it."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths

MMA_MACRO = r"""#include <cuda_fp16.h>
#define WARP_SIZE 32
#define MMA16816(RD0, RD1, RA0, RA1, RA2, RA3, RB0, RB1, RC0, RC1)               \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "           \
               "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};\n"              \
               : "=r"(RD0), "=r"(RD1)                                         \
               : "r"(RA0), "r"(RA1), "r"(RA2), "r"(RA3), "r"(RB0), "r"(RB1),  \
                 "r"(RC0), "r"(RC1))
#define MMA_TWICE(D, A, B) MMA16816(D[0], D[1], A[0], A[1], A[2], A[3], B[0], B[1], D[0], D[1]); \
  MMA16816(D[2], D[3], A[0], A[1], A[2], A[3], B[2], B[3], D[2], D[3])
__global__ void gemm_tile(const unsigned* a, const unsigned* b, unsigned* c) {
  int warp_id = threadIdx.x / WARP_SIZE;
  int lane_id = threadIdx.x % WARP_SIZE;
  unsigned A[4], B[4], D[4] = {0, 0, 0, 0};
  for (int i = 0; i < 4; ++i) { A[i] = a[warp_id * 128 + lane_id * 4 + i]; B[i] = b[lane_id * 4 + i]; }
  MMA_TWICE(D, A, B);
  D[0] += __shfl_sync(0xffffffff, D[0], lane_id + 1);
  for (int i = 0; i < 4; ++i) c[warp_id * 128 + lane_id * 4 + i] = D[i];
}
"""
# the same kernel with a macro of plain PTX arithmetic and a 32-lane reduction: still 32-lane
# logical code, so the note stays (the rule is about matrix instructions, not any asm macro)
NOT_MMA = MMA_MACRO.replace("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", "add.u32").replace(
    "D[0] += __shfl_sync(0xffffffff, D[0], lane_id + 1);",
    "for (int o = 16; o > 0; o >>= 1) D[0] += __shfl_xor_sync(0xffffffff, D[0], o);")

WELFORD = """__device__ void chan_sum(float muB, float sB, float nB, float& mu, float& s, float& n) {
  float t = n + nB; float d = muB - mu;
  mu += d * nB / t; s += sB + d * d * n * nB / t; n = t;
}
__global__ void row_stats(const float* x, float* out, int cols) {
  float mu = 0.f, s = 0.f, n = 0.f;
  for (int c = threadIdx.y * blockDim.x + threadIdx.x; c < cols; c += blockDim.x * blockDim.y) {
    n += 1.f; float d = x[blockIdx.x * cols + c] - mu; mu += d / n; s += d * (x[blockIdx.x * cols + c] - mu);
  }
  for (int l = 0; l <= 4; ++l) {
    int srcLaneB = (threadIdx.x + (1 << l)) & 31;
    float sB = WARP_SHFL(s, srcLaneB);
    float muB = WARP_SHFL(mu, srcLaneB);
    float nB = WARP_SHFL(n, srcLaneB);
    chan_sum(muB, sB, nB, mu, s, n);
  }
  if (threadIdx.x == 0) out[blockIdx.x * blockDim.y + threadIdx.y] = mu;
}
"""
WELFORD_WIDTH = WELFORD.replace("srcLaneB);", "srcLaneB, 32);")
WELFORD_XOR = WELFORD.replace("WARP_SHFL(", "WARP_SHFL_XOR(").replace("srcLaneB);", "1 << l);")


def rules(tmp_path: Path, name: str, text: str) -> list[tuple[int, str]]:
    (tmp_path / name).write_text(text)
    return sorted((f.line, f.rule) for f in audit_paths([tmp_path / name], jobs=1).findings)


def test_mma_ptx_in_a_macro_makes_its_users_matrix_code(tmp_path: Path) -> None:
    found = rules(tmp_path, "hgemm.cu", MMA_MACRO)
    assert found == [(4, "inline-ptx"), (17, "warp-mask-32bit")]  # no note, no fixed-lane hazard


def test_a_macro_of_other_ptx_keeps_the_32_lane_note(tmp_path: Path) -> None:
    found = rules(tmp_path, "plain.cu", NOT_MMA)
    assert (2, "warp32-logical") in found and (17, "warp32-logical") in found


def test_aten_warp_shfl_from_a_lane_counted_in_32_reads_the_other_half(tmp_path: Path) -> None:
    found = rules(tmp_path, "welford.cu", WELFORD)
    assert [line for line, rule in found if rule == "shfl-fixed-lane"] == [12, 13, 14]
    assert not any(rule == "warp32-logical" for _, rule in found)  # not consistent at 64


def test_aten_warp_shfl_with_a_width_or_xor_is_quiet(tmp_path: Path) -> None:
    for name, text in (("width.cu", WELFORD_WIDTH), ("xor.cu", WELFORD_XOR)):
        assert not any(rule == "shfl-fixed-lane" for _, rule in rules(tmp_path, name, text)), name


# PTX %laneid is the hardware lane (0-63 once ported as __lane_id()): a block reduction whose
# leaders test it against warps counted by tid / 32 loses the odd warps' partials at 64, so it is
# not "consistent at 64" (FasterTransformer's xlnet softmax). With lane = tid % 32 it is.
LANEID = r"""__device__ unsigned lane_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %laneid;" : "=r"(r));
  return r;
}
__global__ void row_max(const float* x, float* out) {
  __shared__ float part[32];
  int lid = lane_id();
  int wid = threadIdx.x / 32;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o, 32));
  if (lid == 0) part[wid] = v;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}
"""
LANE_MOD32 = LANEID.replace("int lid = lane_id();", "int lid = threadIdx.x % 32;")

# a broadcast from lane 0 of a value every warp read from the same entries (red[lane], lane =
# tid % WARP_SIZE) and reduced by xor: lane 0 and lane 32 hold the same value (FasterTransformer's
# block_sum). Broadcasting the warp's own partial, or an entry picked by the warp, is the hazard.
BLOCK_SUM = """#define WARP_SIZE 32
template <int WARPS>
__device__ float block_sum(float* red, float sum) {
  int warp = threadIdx.x / WARP_SIZE;
  int lane = threadIdx.x % WARP_SIZE;
  for (int m = WARP_SIZE / 2; m >= 1; m /= 2) sum += __shfl_xor_sync(0xffffffff, sum, m);
  if (lane == 0) red[warp] = sum;
  __syncthreads();
  if (lane < WARPS) sum = red[lane];
  for (int m = WARPS / 2; m >= 1; m /= 2) sum += __shfl_xor_sync(0xffffffff, sum, m);
  return __shfl_sync(0xffffffff, sum, 0);
}
"""
OWN_PARTIAL = BLOCK_SUM.replace("  if (lane < WARPS) sum = red[lane];\n", "")
PICKED_BY_WARP = BLOCK_SUM.replace("sum = red[lane];", "sum = red[lane + warp * WARPS];")


def test_a_lane_from_ptx_laneid_is_not_consistent_at_64(tmp_path: Path) -> None:
    assert not any(rule == "warp32-logical" for _, rule in rules(tmp_path, "laneid.cu", LANEID))
    assert any(rule == "warp32-logical" for _, rule in rules(tmp_path, "mod32.cu", LANE_MOD32))


def test_a_broadcast_of_data_every_warp_shares_is_right_at_64(tmp_path: Path) -> None:
    assert not any(rule == "shfl-fixed-lane" for _, rule in rules(tmp_path, "block_sum.cu", BLOCK_SUM))
    for name, text in (("own.cu", OWN_PARTIAL), ("picked.cu", PICKED_BY_WARP)):
        assert (10 if name == "own.cu" else 11, "shfl-fixed-lane") in rules(tmp_path, name, text), name
