#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void run_saxpy(int n, float a, const float* x, float* y, cudaStream_t stream) {
    saxpy<<<(n + 255) / 256, 256, 0, stream>>>(n, a, x, y);
}
