// Class "shuffle-width": a consistent 32-lane logical warp (lane = tid & 31, a scan over 32
// lanes, a broadcast from lane 31). Repairing its masks alone is not enough at 64 lanes: the
// width-less __shfl_up_sync and __shfl_sync cross from lanes 32-63 into lanes 0-31. Width 32
// keeps each in its half; the 32s of its lane math are right and stay.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void segment_scan(const int* x, int* out, int* totals) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = x[i];
  for (int d = 1; d < 32; d *= 2) {
    int up = __shfl_up_sync(0xffffffff, v, d);
    if (lane >= d) v += up;
  }
  out[i] = v;
  int total = __shfl_sync(0xffffffff, v, 31);
  if (lane == 0) totals[i / 32] = total;
}

int main() {
  const int n = 128;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 5) % 9;
  int *x, *out, *totals;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&out, sizeof h);
  cudaMalloc(&totals, (n / 32) * sizeof(int));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  segment_scan<<<1, n>>>(x, out, totals);
  int o[n], t[n / 32];
  cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost);
  cudaMemcpy(t, totals, sizeof t, cudaMemcpyDeviceToHost);
  long check = 0;
  for (int i = 0; i < n; ++i) check += (long)o[i] * (i + 1);
  printf("scan check %ld, totals %d %d %d %d\n", check, t[0], t[1], t[2], t[3]);
  return 0;
}
