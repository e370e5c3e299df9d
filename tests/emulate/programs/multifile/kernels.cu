#include "scale.cuh"

__global__ void iota(int* data, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) data[i] = i + OFFSET;
}

void run_kernels(int* data, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  iota<<<4, 64, 0, s>>>(data, n);
  launch_scale(data, 3, n, s);
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
}
