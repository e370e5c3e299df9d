#include <cstdio>
#include <cuda_runtime.h>
int main() {
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMemRangeGetAttribute(nullptr, 4, 1, nullptr, 0);
  return 0;
}
