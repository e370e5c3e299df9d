// Fix of warpsize_smem_bug.cu: the rows are sized for the widest warp.
#include <cstdio>
#include <cuda_runtime.h>

#define MAX_WARP_SIZE 64  // FIX: rows wide enough for any width
#define BLOCK 256

__global__ void staged_sum(const int* x, int* total) {
  __shared__ int stage[BLOCK / 32][MAX_WARP_SIZE];
  int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  stage[warp][lane] = x[blockIdx.x * BLOCK + threadIdx.x];
  __syncwarp();
  if (lane == 0) {
    int s = 0;
    for (int l = 0; l < warpSize; ++l) s += stage[warp][l];
    atomicAdd(total, s);
  }
}

int main() {
  const int n = 4 * BLOCK;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int *x, *total;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&total, sizeof(int));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(total, 0, sizeof(int));
  staged_sum<<<n / BLOCK, BLOCK>>>(x, total);
  int t;
  cudaMemcpy(&t, total, sizeof t, cudaMemcpyDeviceToHost);
  printf("total %d (expected %d)\n", t, n * (n - 1) / 2);
  return 0;
}
