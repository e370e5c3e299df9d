#include <cstdio>
#include <cuda_runtime.h>
int main() {
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, nullptr);
  return 0;
}
