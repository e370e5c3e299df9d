// Fix of lane31_bug.cu: lane and warp ids come from warpSize.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void block_sum(const int* x, int* out) {
  int lane = threadIdx.x % warpSize;  // FIX: the real width
  int warp = threadIdx.x / warpSize;  // FIX: the real width
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(__activemask(), v, o);
  __shared__ int partial[1024 / 32];
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int w = 0; w < (int)blockDim.x / warpSize; ++w) s += partial[w];
    out[blockIdx.x] = s;
  }
}

int main() {
  const int n = 1024, threads = 256, blocks = n / threads;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i % 10;
  int *x, *out;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&out, blocks * sizeof(int));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  block_sum<<<blocks, threads>>>(x, out);
  int r[blocks];
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; ++b) printf("block %d sum %d\n", b, r[b]);
  return 0;
}
