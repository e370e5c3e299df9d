// Timing tables as benchmark programs print them: bare numbers under a header that names the
// unit once, a result column beside the timing columns, and a table captioned "all ... in ms".
// Each timing adds warpSize / 1000 to the elapsed time so the two widths' timings always differ
// (two runs of a real program differ there anyway; here the test cannot pass by luck).
// -D ASSUME_32: the result column counts a ballot with __popc (32 bits), a real 32-lane
// assumption that loses lanes 32-63 at 64 lanes; without it __popcll counts either width.
#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void count_positive(const int* x, int n, int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? x[i] : 0;
#ifdef ASSUME_32
  int c = __popc(__ballot_sync(__activemask(), v > 0));
#else
  int c = __popcll(__ballot_sync(__activemask(), v > 0));
#endif
  if (threadIdx.x % warpSize == 0) atomicAdd(count, c);
}

static double elapsed_ms(std::chrono::steady_clock::time_point t0, int warp) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() + warp / 1000.0;
}

int main() {
  int warp = 0;
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0);
  printf("size\tpositive\ttime(ms)\tGB/s\n");
  for (int n = 512; n <= 2048; n *= 2) {
    int *h = new int[n], *x, *count;
    for (int i = 0; i < n; ++i) h[i] = (i % 3 == 0) ? 1 : -1;
    cudaMalloc(&x, n * sizeof(int));
    cudaMalloc(&count, sizeof(int));
    cudaMemcpy(x, h, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(count, 0, sizeof(int));
    auto t0 = std::chrono::steady_clock::now();
    count_positive<<<n / 256, 256>>>(x, n, count);
    cudaDeviceSynchronize();
    double ms = elapsed_ms(t0, warp);
    int c = 0;
    cudaMemcpy(&c, count, sizeof c, cudaMemcpyDeviceToHost);
    printf("%d\t%d\t%.4f\t%.3f\n", n, c, ms, n * sizeof(int) / ms / 1e6);
    cudaFree(x);
    cudaFree(count);
    delete[] h;
  }
  printf("\nCopies (all times in ms)\n");
  printf("%8s  %8s  %8s\n", "bytes", "HtoD", "DtoH");
  for (int bytes = 1024; bytes <= 4096; bytes *= 4) {
    char *h = new char[bytes](), *d;
    cudaMalloc(&d, bytes);
    auto t0 = std::chrono::steady_clock::now();
    cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    double up = elapsed_ms(t0, warp);
    t0 = std::chrono::steady_clock::now();
    cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
    printf("%8d  %8.4f  %8.4f\n", bytes, up, elapsed_ms(t0, warp));
    cudaFree(d);
    delete[] h;
  }
  printf("done\n");
  return 0;
}
