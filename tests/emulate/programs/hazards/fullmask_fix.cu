// Fix of fullmask_bug.cu: the mask is __activemask(), right at either width.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void block_max(const int* x, int* out) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1)
    v = max(v, __shfl_xor_sync(__activemask(), v, o));  // FIX: the lanes actually active
  if (threadIdx.x % warpSize == 0) atomicMax(&out[blockIdx.x], v);
}

int main() {
  const int n = 512, blocks = 2;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 37) % 301;
  int *x, *out;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&out, blocks * sizeof(int));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, blocks * sizeof(int));
  block_max<<<blocks, n / blocks>>>(x, out);
  int r[blocks];
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  cudaError_t err = cudaDeviceSynchronize();
  printf("max of block 0: %d, block 1: %d (%s)\n", r[0], r[1], cudaGetErrorString(err));
  return 0;
}
