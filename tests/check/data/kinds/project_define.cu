#include <cuda_runtime.h>

#if defined(USE_ROCM)
#define WARP_SIZE 64
#else
#error "this file is built for ROCm only with USE_ROCM defined (the build passes -DUSE_ROCM=1)"
#endif

__global__ void fill(int* x) { x[threadIdx.x] = WARP_SIZE; }
