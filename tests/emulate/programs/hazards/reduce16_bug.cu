// Hazard: a warp reduction whose first offset is 16. On a 64-lane wavefront lane 0 ends with
// the sum of lanes 0-31 only; lanes 32-63 are never added.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void sum(const float* x, int n, float* total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2)  // BUG: starts at 32 / 2
    v += __shfl_down_sync(__activemask(), v, offset);
  if (threadIdx.x % warpSize == 0) atomicAdd(total, v);
}

int main() {
  const int n = 4096;
  static float h[n];
  for (int i = 0; i < n; ++i) h[i] = (float)(i % 8);
  float *x, *total;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&total, sizeof(float));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(total, 0, sizeof(float));
  sum<<<(n + 255) / 256, 256>>>(x, n, total);
  float t;
  cudaMemcpy(&t, total, sizeof t, cudaMemcpyDeviceToHost);
  printf("total %.1f\n", t);
  return 0;
}
