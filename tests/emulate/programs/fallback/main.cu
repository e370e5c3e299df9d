// The program's CUDA file: a warp-width-consistent block sum checked against host.cpp's CPU sum.
#include <cstdio>
#include "book.h"

int cpu_sum(const int* v, int n);

__global__ void block_sum(const int* v, int* out) {
  __shared__ int s[256];
  s[threadIdx.x] = v[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

int main() {
  const int n = 1024;
  static int h[n];
  for (int i = 0; i < n; ++i) h[i] = i % 7;
  int *v, *out, got = 0;
  cudaMalloc(&v, sizeof h);
  cudaMalloc(&out, sizeof(int));
  cudaMemcpy(v, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, sizeof(int));
  block_sum<<<n / 256, 256>>>(v, out);
  cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost);
  printf("gpu %d cpu %d\n", got, cpu_sum(h, n));
  return 0;
}
