// Class "lane-math" (and "warp-array"): lane and warp ids computed with % 32 and / 32 in a kernel
// that works on the hardware warp (its shuffles use the active mask and warpSize). At 64 lanes two
// lanes of one wavefront both think they are lane 0 and the per-warp partials land in wrong slots.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void block_sum(const int* x, int* out) {
  __shared__ int partial[32];
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(__activemask(), v, o);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int w = 0; w < (int)blockDim.x / 32; ++w) s += partial[w];
    out[blockIdx.x] = s;
  }
}

int main() {
  const int n = 512, blocks = 2;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i % 17;
  int *x, *out;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&out, blocks * sizeof(int));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  block_sum<<<blocks, n / blocks>>>(x, out);
  int r[blocks];
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  printf("block sums: %d %d\n", r[0], r[1]);
  return 0;
}
