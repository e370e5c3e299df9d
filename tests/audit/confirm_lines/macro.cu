// --confirm per line: the reduction is a macro. The emulator names the line where the macro is
// used (line 9); the finding on the #define (line 5) reaches it through the macro's name.
#include <cstdio>
#define WARP_REDUCE(v) \
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(__activemask(), v, o)
__global__ void total(const int* x, int* sum) {
  int v = x[threadIdx.x];
  int unused = 0;
  WARP_REDUCE(v);
  if (threadIdx.x % warpSize == 0) atomicAdd(sum, v + unused);
}
int main() {
  int host[128];
  for (int i = 0; i < 128; ++i) host[i] = i % 5;
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
