// Includes one header it reads (kept 0600 in the test's copy) and one only inside `#if 0`, which
// uses cuFFT: the dead include is neither read, nor refused, nor copied into OUT.
#include <cstdio>
#include "used.h"
#if 0
#include "dead.h"
#endif

__global__ void k(int* x) { x[threadIdx.x] = USED_VALUE; }

int main() {
  int* x;
  cudaMallocManaged(&x, 4 * sizeof(int));
  k<<<1, 4>>>(x);
  cudaDeviceSynchronize();
  printf("%d\n", x[3]);
  return 0;
}
