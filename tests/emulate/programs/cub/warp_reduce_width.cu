// cub::WarpReduce's logical warp is the hardware warp unless given: code that assumes 32 lanes
// (one result per 32 threads, slot threadIdx.x / 32) is right on NVIDIA and wrong on a 64-lane
// wavefront, as with hipCUB on AMD. -DFIXED names the 32-lane logical warp and is right at both.
#include <cstdio>
#include <cub/cub.cuh>

#ifdef FIXED
typedef cub::WarpReduce<int, 32> WarpReduce;
#else
typedef cub::WarpReduce<int> WarpReduce;
#endif

__global__ void per32(const int* in, int* out) {
  __shared__ typename WarpReduce::TempStorage temp[4];
  int sum = WarpReduce(temp[threadIdx.x / 32]).Sum(in[threadIdx.x]);
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = sum;
}

int main() {
  int *in, *out;
  cudaMallocManaged(&in, 128 * sizeof(int));
  cudaMallocManaged(&out, 4 * sizeof(int));
  for (int i = 0; i < 128; ++i) in[i] = i;
  for (int i = 0; i < 4; ++i) out[i] = -1;
  per32<<<1, 128>>>(in, out);
  cudaDeviceSynchronize();
  printf("groups of 32: %d %d %d %d\n", out[0], out[1], out[2], out[3]);
  return 0;
}
