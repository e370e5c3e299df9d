// __CUDA_ARCH__ is the emulated device's (8.0): the sm_80 path of a kernel is taken, as
// cuda-samples' reduction selects __reduce_add_sync with `#if __CUDA_ARCH__ >= 800`, and a
// __host__ __device__ helper's `#ifdef __CUDA_ARCH__` side is compiled.
#include <cstdio>

__host__ __device__ int side() {
#ifdef __CUDA_ARCH__
  return 1;
#else
  return 0;
#endif
}

__global__ void total(const int* x, int* out) {
  int v = x[threadIdx.x];
#if __CUDA_ARCH__ >= 800
  v = __reduce_add_sync(__activemask(), v);
  const int path = 800;
#else
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(__activemask(), v, o);
  const int path = 0;
#endif
  if (threadIdx.x % warpSize == 0) atomicAdd(out, v);
  if (threadIdx.x == 0) out[1] = path + side();
}

int main() {
  int *x, *out;
  cudaMallocManaged(&x, 128 * sizeof(int));
  cudaMallocManaged(&out, 2 * sizeof(int));
  for (int i = 0; i < 128; ++i) x[i] = i;
  out[0] = out[1] = 0;
  total<<<1, 128>>>(x, out);
  cudaDeviceSynchronize();
  printf("sum %d path %d arch %d\n", out[0], out[1], __CUDA_ARCH__);
  return 0;
}
