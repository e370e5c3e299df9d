// The lane within a 32-lane group, computed as such: the same at any warp width.
extern "C" __global__ void lanes(int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = threadIdx.x % 32;
}
