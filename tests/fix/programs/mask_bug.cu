// Class "mask": a 32-bit full mask in *_sync calls. On a 64-lane wavefront 0xffffffff leaves out
// lanes 32-63 (HIP traps; ROCm 7 does not even compile it: static_assert on a 64-bit mask).
// The kernel is written for the hardware warp (warpSize), so only the mask needs repairing.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void warp_max(const int* x, int* out) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffff, v, o));
  __syncwarp(0xFFFFFFFFu);
  if (threadIdx.x % warpSize == 0) atomicMax(out, v);
}

int main() {
  const int n = 256;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 53) % 211;
  int *x, *out;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&out, sizeof(int));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, sizeof(int));
  warp_max<<<2, n / 2>>>(x, out);
  int r = 0;
  cudaMemcpy(&r, out, sizeof r, cudaMemcpyDeviceToHost);
  printf("max %d (%s)\n", r, cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
