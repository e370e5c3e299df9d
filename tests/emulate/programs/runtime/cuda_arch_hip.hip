// A HIP source does not see __CUDA_ARCH__ (hipcc does not define it for AMD GPUs).
#include <hip/hip_runtime.h>
#include <cstdio>

int main() {
#ifdef __CUDA_ARCH__
  printf("cuda_arch %d\n", __CUDA_ARCH__);
#else
  printf("no cuda_arch\n");
#endif
  return 0;
}
