// --confirm per line: correct wave64 code. The reduction starts at warpSize / 2 and its mask is
// the active lanes, so at 64 lanes lanes 0-31 read lanes 32-63 by design: the emulator reports a
// site on the shuffle's line, yet both widths print the same total, so nothing is confirmed.
#include <cstdio>
__global__ void total(const int* x, int* sum) {
  int v = x[threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(__activemask(), v, offset);
  if (threadIdx.x % warpSize == 0) atomicAdd(sum, v);
}
int main() {
  int host[128];
  for (int i = 0; i < 128; ++i) host[i] = i;
  int *x, *sum;
  cudaMalloc(&x, sizeof host);
  cudaMalloc(&sum, sizeof(int));
  cudaMemcpy(x, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemset(sum, 0, sizeof(int));
  total<<<1, 128>>>(x, sum);
  int s = 0;
  cudaMemcpy(&s, sum, sizeof s, cudaMemcpyDeviceToHost);
  printf("total %d\n", s);
  return 0;
}
