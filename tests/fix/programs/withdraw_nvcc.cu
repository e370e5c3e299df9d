// Built to break a repair: the ballot's address goes to a helper taking `unsigned*`, so widening
// the ballot to 64 bits no longer compiles (nvcc). That repair must be withdrawn alone; the mask
// repair in the same file stays offered.
#include <cstdio>
#include <cuda_runtime.h>

__device__ int count_bits(const unsigned* m) { return __popc(*m); }

__global__ void votes(const int* x, int* count) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  unsigned b = __ballot_sync(0xffffffff, v > 3);
  if (threadIdx.x % warpSize == 0) atomicAdd(count, count_bits(&b));
}

int main() {
  const int n = 128;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i % 7;
  int *x, *count;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&count, sizeof(int));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(count, 0, sizeof(int));
  votes<<<1, n>>>(x, count);
  int r = 0;
  cudaMemcpy(&r, count, sizeof r, cudaMemcpyDeviceToHost);
  printf("votes %d\n", r);
  return 0;
}
