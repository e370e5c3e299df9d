// device helpers only: no kernel, no launch, no runtime include
__device__ float lane_value(const float* x) {
    return x[threadIdx.x % 32];
}
