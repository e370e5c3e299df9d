// cudaEventElapsedTime reads the emulated device's clock, which advances with the work the
// program gives the device (1 ns per thread of a launched grid, 1 ns per 64 bytes copied or
// set), not with the host's time: a bare elapsed time prints the same at 32 and 64 lanes.
//   event_clock            the same grid at both widths: the same times
//   event_clock by_warp    a grid of warpSize threads: the time follows the width (a divergence)
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

int main(int argc, char** argv) {
  bool by_warp = argc > 1 && std::strcmp(argv[1], "by_warp") == 0;
  const int n = 1600;
  float* d = nullptr;
  static float h[n];
  cudaMalloc(&d, n * sizeof(float));
  cudaEvent_t start, copied, done;
  cudaEventCreate(&start);
  cudaEventCreate(&copied);
  cudaEventCreate(&done);
  cudaEventRecord(start);
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);  // 6,400 bytes: 100 ns
  cudaEventRecord(copied);
  int warp = 0;
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0);
  if (by_warp)
    scale<<<1, warp>>>(d, n);
  else
    scale<<<4, 256>>>(d, n);  // 1,024 threads: 1,024 ns
  cudaEventRecord(done);
  cudaEventSynchronize(done);
  float copy_ms = 0, kernel_ms = 0, none_ms = -1;
  cudaEventElapsedTime(&copy_ms, start, copied);
  cudaEventElapsedTime(&kernel_ms, copied, done);
  cudaEventElapsedTime(&none_ms, done, done);
  std::printf("%.6f\n%.6f\n%.6f\n", copy_ms, kernel_ms, none_ms);
  cudaFree(d);
  return 0;
}
