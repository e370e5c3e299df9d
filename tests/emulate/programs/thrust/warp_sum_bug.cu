// A Thrust program whose own kernel assumes 32-lane warps: each warp sums its lanes with a
// shuffle reduction that starts at offset 16, so at 64 lanes lane 0 holds the sum of 32 of its
// 64 lanes and the total over the warps' partial sums (thrust::reduce) loses half the input.
// -DFIXED starts at warpSize / 2 and records one partial per warpSize lanes.
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <cstdio>

__global__ void warp_sums(const float* in, float* partial, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = i < n ? in[i] : 0.0f;
#ifdef FIXED
  for (int o = warpSize / 2; o > 0; o /= 2) x += __shfl_down_sync(__activemask(), x, o);
#else
  for (int o = 16; o > 0; o /= 2) x += __shfl_down_sync(__activemask(), x, o);
#endif
  if (threadIdx.x % warpSize == 0) partial[i / warpSize] = x;
}

int main() {
  const int n = 256;
  thrust::device_vector<float> in(n);
  thrust::sequence(in.begin(), in.end());
  thrust::device_vector<float> partial(n / 32, 0.0f);  // room for 32-lane warps' partials
  warp_sums<<<2, 128>>>(thrust::raw_pointer_cast(in.data()), thrust::raw_pointer_cast(partial.data()), n);
  cudaDeviceSynchronize();
  printf("total %.1f (expected %.1f)\n", thrust::reduce(partial.begin(), partial.end()), n * (n - 1) / 2.0);
  return 0;
}
