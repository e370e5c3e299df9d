// Prints a width-dependent count, then spins forever (a block waits for a later one): every
// run hits the timeout. No fflush: the runtime's stdout keeps complete lines (line-buffered). -DSAME prints the same line at both widths; -DCUT leaves the
// width-dependent line without its newline (cut off, as a timed-out run's last line may be).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void count_lanes(int* n) {
  if (threadIdx.x % warpSize == 0) atomicAdd(n, 1);
}

__global__ void wait_for_last_block(volatile int* flag) {
  if (blockIdx.x == gridDim.x - 1) *flag = 1;
  while (*flag == 0) {
  }
}

int main() {
  int* n;
  cudaMallocManaged(&n, sizeof(int));
  *n = 0;
  count_lanes<<<1, 128>>>(n);
  cudaDeviceSynchronize();
  printf("start\n");
#if defined(SAME)
  printf("warps counted\n");
#elif defined(CUT)
  printf("warps %d", *n);
#else
  printf("warps %d\n", *n);
#endif
  *n = 0;
  wait_for_last_block<<<2, 32>>>(n);
  cudaDeviceSynchronize();
  return 0;
}
