__global__ void k(float* x) {
  float v = __shfl_down_sync(0xffffffff, x[0], 1);  // expect: warp-mask-32bit
  int lane = threadIdx.x & 31;  // expect: warp32-logical
}
#define FULL 0xffffffff  // expect: warp-mask-32bit
__device__ void g() { __syncwarp(FULL); }
