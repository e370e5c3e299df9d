#include <cstdio>
#include <cuda_runtime.h>
int main() {
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaStreamAttachMemAsync(s, nullptr);
  return 0;
}
