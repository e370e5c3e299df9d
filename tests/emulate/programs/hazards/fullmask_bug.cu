// Hazard: the 32-bit full mask 0xffffffff. On a 64-lane wavefront it leaves out lanes 32-63;
// HIP's *_sync intrinsics check the mask and trap (the emulator faults the same way).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void block_max(const int* x, int* out) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1)
    v = max(v, __shfl_xor_sync(0xffffffff, v, o));  // BUG: a 32-lane mask
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
