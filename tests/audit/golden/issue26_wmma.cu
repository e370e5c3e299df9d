// Issue 26: wmma fragments are spread over a hardware warp, not over 32-lane halves: neither the
// "consistent at 64" note nor a lane-math warning describes this code (nvcuda::wmma needs a
// library port, rocWMMA). The plain reduction below it is still judged.
#include <mma.h>
using namespace nvcuda;
#define WARP_SIZE 32
__global__ void gemm(const half* a, float* c) {
  unsigned int warpId = threadIdx.x / WARP_SIZE;
  unsigned int laneId = threadIdx.x % WARP_SIZE;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::load_matrix_sync(fa, a + warpId * 256, 16);
  if (laneId == 0) c[warpId] = 0.f;
}
__global__ void red(const float* x, float* out) {
  int lane = threadIdx.x % 32;  // expect: warp32-logical
  float v = x[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffull, v, o);  // expect: warp32-logical
  if (lane == 0) out[threadIdx.x / 32] = v;  // expect: warp32-logical
}
