// `port emulate` program for port_warp.cuh: each kernel's per-warp results checked on the host
// against the warp width the device reports; prints one "ok"/"WRONG" line per kernel (the same
// text at 32 and 64 lanes when the kernels are right) and exits 1 on a wrong result.
#include <cstdio>
#include <cuda_runtime.h>

#include "port_warp.cuh"

static const int N = 1000;  // not a multiple of 64: the last warp is partial
static const int BLOCK = 256;

static int grid() { return (N + BLOCK - 1) / BLOCK; }

int main() {
  static float xf[N];
  static int xi[N];
  for (int i = 0; i < N; ++i) {
    xf[i] = (i * 37 % 11) - 5.0f;  // signs mixed across both halves of every wavefront
    xi[i] = (i * 53) % 97;
  }
  int width = 0, *d_width;
  cudaMalloc(&d_width, sizeof(int));
  port_warp_size_kernel<<<1, BLOCK>>>(d_width);
  cudaMemcpy(&width, d_width, sizeof(int), cudaMemcpyDeviceToHost);
  const int warps = grid() * BLOCK / width;

  float *df, *dsum;
  int *di, *dmax, *dscan, *dcount;
  cudaMalloc(&df, sizeof xf);
  cudaMalloc(&di, sizeof xi);
  cudaMalloc(&dsum, warps * sizeof(float));
  cudaMalloc(&dmax, warps * sizeof(int));
  cudaMalloc(&dcount, warps * sizeof(int));
  cudaMalloc(&dscan, sizeof xi);
  cudaMemcpy(df, xf, sizeof xf, cudaMemcpyHostToDevice);
  cudaMemcpy(di, xi, sizeof xi, cudaMemcpyHostToDevice);
  port_warp_sum_kernel<<<grid(), BLOCK>>>(df, N, dsum);
  port_warp_max_kernel<<<grid(), BLOCK>>>(di, N, dmax);
  port_warp_scan_kernel<<<grid(), BLOCK>>>(di, N, dscan);
  port_warp_ballot_kernel<<<grid(), BLOCK>>>(df, N, dcount);

  static float sum[N];
  static int mx[N], scan[N], count[N];
  cudaMemcpy(sum, dsum, warps * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(mx, dmax, warps * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(count, dcount, warps * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(scan, dscan, sizeof xi, cudaMemcpyDeviceToHost);

  bool ok_sum = true, ok_max = true, ok_scan = true, ok_count = true;
  for (int w = 0; w < warps; ++w) {
    float s = 0;
    int m = -2147483647 - 1, c = 0, run = 0;
    for (int l = 0; l < width; ++l) {
      int i = w * width + l;
      if (i >= N) continue;
      s += xf[i];
      m = xi[i] > m ? xi[i] : m;
      c += xf[i] > 0.0f;
      run += xi[i];
      if (scan[i] != run) ok_scan = false;
    }
    if (sum[w] != s) ok_sum = false;
    if (w * width < N && mx[w] != m) ok_max = false;
    if (count[w] != c) ok_count = false;
  }
  printf("warp sum: %s\n", ok_sum ? "ok" : "WRONG");
  printf("warp max: %s\n", ok_max ? "ok" : "WRONG");
  printf("warp inclusive scan: %s\n", ok_scan ? "ok" : "WRONG");
  printf("warp ballot count: %s\n", ok_count ? "ok" : "WRONG");
  return ok_sum && ok_max && ok_scan && ok_count ? 0 : 1;
}
