#include <cstdio>
#include <cuda_runtime.h>

void run_kernels(int* data, int n);

int main() {
  const int n = 1000;
  int* d;
  cudaMalloc(&d, n * sizeof(int));
  run_kernels(d, n);
  int h[n];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += h[i];
  printf("sum %ld first %d last %d\n", sum, h[0], h[n - 1]);
  return 0;
}
