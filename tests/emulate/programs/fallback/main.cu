// The program's CUDA file: a warp-width-consistent block sum checked against host.cpp's CPU sum,
// and the lanes of each warp counted from a ballot. -D ASSUME_32: counted with __popc (32 bits),
// a real 32-lane assumption that loses lanes 32-63 at 64 lanes; else __popcll.
#include <cstdio>
#include "book.h"

int cpu_sum(const int* v, int n);

__global__ void block_sum(const int* v, int* out, int* lanes) {
#ifdef ASSUME_32
  int n = __popc(__ballot_sync(__activemask(), 1));
#else
  int n = __popcll(__ballot_sync(__activemask(), 1));
#endif
  if (threadIdx.x % warpSize == 0) atomicAdd(lanes, n);
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
  int *v, *out, *lanes, got = 0, counted = 0;
  cudaMalloc(&v, sizeof h);
  cudaMalloc(&out, sizeof(int));
  cudaMalloc(&lanes, sizeof(int));
  cudaMemcpy(v, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, sizeof(int));
  cudaMemset(lanes, 0, sizeof(int));
  block_sum<<<n / 256, 256>>>(v, out, lanes);
  cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost);
  cudaMemcpy(&counted, lanes, sizeof counted, cudaMemcpyDeviceToHost);
  printf("gpu %d cpu %d lanes %d\n", got, cpu_sum(h, n), counted);
  return 0;
}
