#include <cuda_runtime.h>

// ggml's warp_reduce_sum (ggml/src/ggml-cuda/common.cuh)
static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) {
        x += __shfl_xor_sync(0xffffffff, x, mask, 32);
    }
    return x;
}

__global__ void row_sum(const float* x, float* out) {
    float v = warp_reduce_sum(x[threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}
