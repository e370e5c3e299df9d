// Class "ballot": a ballot kept in 32 bits and counted with __popc. At 64 lanes the ballot has
// 64 bits; `unsigned` drops lanes 32-63, so the count of positive values per wavefront is short.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void count_positive(const int* x, int* count) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  unsigned votes = __ballot_sync(__activemask(), v > 0);
  if (threadIdx.x % warpSize == 0) atomicAdd(count, __popc(votes));
}

int main() {
  const int n = 256;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i % 3 == 0) ? -i : i;
  int *x, *count;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&count, sizeof(int));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(count, 0, sizeof(int));
  count_positive<<<2, n / 2>>>(x, count);
  int r = 0;
  cudaMemcpy(&r, count, sizeof r, cudaMemcpyDeviceToHost);
  printf("positive values: %d\n", r);
  return 0;
}
