#include <cuda_runtime.h>
#include <cuda_fp8.h>

__global__ void to_fp8(const float* x, __nv_fp8_e4m3* y) {
    y[threadIdx.x] = __nv_fp8_e4m3(x[threadIdx.x]);
}
