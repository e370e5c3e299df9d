// A kernel that waits for a later block (no forward progress between blocks here), after the
// host started a child process: the timeout must stop the run and the child with it.
#include <cstdio>
#include <signal.h>
#include <unistd.h>
#include <cuda_runtime.h>

__global__ void wait_for_last_block(volatile int* flag) {
  if (blockIdx.x == gridDim.x - 1) *flag = 1;
  while (*flag == 0) {
  }
}

int main() {
  pid_t child = fork();
  if (child == 0) {
    pause();
    return 0;
  }
  FILE* f = fopen("child.pid", "w");
  fprintf(f, "%d\n", (int)child);
  fclose(f);
  int* flag;
  cudaMallocManaged(&flag, sizeof(int));
  *flag = 0;
  wait_for_last_block<<<2, 32>>>(flag);
  cudaDeviceSynchronize();
  printf("unreachable here: block 0 spins before block 1 runs\n");
  return 0;
}
