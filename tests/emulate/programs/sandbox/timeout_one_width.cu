// Finishes at 32 lanes and spins forever at 64 (a loop bounded by the lanes of a 32-wide warp):
// the 64-lane run hits the timeout, which is inconclusive, not a divergence.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void count(volatile int* flag) {
  if (threadIdx.x == 0) *flag = warpSize;
}

int main() {
  int* flag;
  cudaMallocManaged(&flag, sizeof(int));
  count<<<1, 64>>>(flag);
  cudaDeviceSynchronize();
  printf("started\n");
  fflush(stdout);
  while (*(volatile int*)flag == 64) {
  }
  printf("done\n");
  return 0;
}
