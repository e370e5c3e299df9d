// Clean: portable at any warp width (warpSize, the active mask, 64-bit ballots). `port fix`
// changes nothing here.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void count_and_max(const int* x, int* count, int* best) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  unsigned long long votes = __ballot_sync(__activemask(), v > 5);
  int m = v;
  for (int o = warpSize / 2; o > 0; o >>= 1) m = max(m, __shfl_xor_sync(__activemask(), m, o));
  if (threadIdx.x % warpSize == 0) {
    atomicAdd(count, __popcll(votes));
    atomicMax(best, m);
  }
}

int main() {
  const int n = 256;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 11) % 23;
  int *x, *count, *best;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&count, sizeof(int));
  cudaMalloc(&best, sizeof(int));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(count, 0, sizeof(int));
  cudaMemset(best, 0, sizeof(int));
  count_and_max<<<2, n / 2>>>(x, count, best);
  int c = 0, b = 0;
  cudaMemcpy(&c, count, sizeof c, cudaMemcpyDeviceToHost);
  cudaMemcpy(&b, best, sizeof b, cudaMemcpyDeviceToHost);
  printf("count %d max %d\n", c, b);
  return 0;
}
