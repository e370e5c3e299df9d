// Hazard: a ballot stored in 32 bits. At 64 lanes __ballot_sync returns 64 bits (as HIP does);
// `unsigned int` keeps lanes 0-31 only, so negatives in lanes 32-63 go unseen.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void flag_negative_blocks(const int* x, int n, int* flags) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? x[i] : 0;
  unsigned int votes = __ballot_sync(__activemask(), v < 0);  // BUG: truncates a 64-lane ballot
  if (threadIdx.x % warpSize == 0 && votes != 0) atomicOr(&flags[blockIdx.x], 1);
}

int main() {
  const int n = 1024, blocks = n / 256;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i + 1;
  h[40] = -5;    // lane 40 of a 64-lane wavefront, lane 8 of a 32-lane warp
  h[1000] = -1;
  int *x, *flags;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&flags, blocks * sizeof(int));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(flags, 0, blocks * sizeof(int));
  flag_negative_blocks<<<blocks, 256>>>(x, n, flags);
  int f[blocks];
  cudaMemcpy(f, flags, sizeof f, cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; ++b) printf("block %d has a negative: %s\n", b, f[b] ? "yes" : "no");
  cudaFree(x);
  cudaFree(flags);
  return 0;
}
