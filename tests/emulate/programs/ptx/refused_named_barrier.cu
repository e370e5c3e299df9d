// A named barrier with a thread count: not emulated, refused naming bar.sync.
#include <cstdio>

__global__ void half(int* out) {
  if (threadIdx.x < 64) {
    out[threadIdx.x] = threadIdx.x;
    asm volatile("bar.sync 1, 64;");
    out[threadIdx.x] += out[63 - threadIdx.x];
  }
}

int main() {
  int* out;
  cudaMallocManaged(&out, 128 * sizeof(int));
  half<<<1, 128>>>(out);
  cudaDeviceSynchronize();
  printf("%d\n", out[0]);
  return 0;
}
