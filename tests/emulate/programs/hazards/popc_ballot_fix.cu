// Fix of popc_ballot_bug.cu: __popcll counts a ballot of either width.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void count_positive(const int* x, int n, int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? x[i] : 0;
  int c = __popcll(__ballot_sync(__activemask(), v > 0));  // FIX: count 64 bits
  if (threadIdx.x % warpSize == 0) atomicAdd(count, c);
}

int main() {
  const int n = 2048;
  static int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i % 3 == 0) ? 1 : -1;
  int *x, *count;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&count, sizeof(int));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(count, 0, sizeof(int));
  count_positive<<<n / 256, 256>>>(x, n, count);
  int c;
  cudaMemcpy(&c, count, sizeof c, cudaMemcpyDeviceToHost);
  printf("positive values: %d\n", c);
  return 0;
}
