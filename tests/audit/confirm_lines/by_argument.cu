// --confirm per line: the ballot kept in 32 bits runs only when the first argument is 1. Without
// arguments nothing reaches it (not reproduced, never reached); with --confirm-args 1 it runs and
// the count differs at 64 lanes (confirmed).
#include <cstdio>
#include <cstdlib>
__global__ void count(const int* in, int* out, int mode) {
  if (mode == 1) {
    unsigned int bits = __ballot_sync(__activemask(), in[threadIdx.x] > 0);
    if (threadIdx.x % warpSize == 0) atomicAdd(out, __popc(bits));
  }
}
int main(int argc, char** argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  int host[128];
  for (int i = 0; i < 128; ++i) host[i] = 1;
  int *in, *out;
  cudaMalloc(&in, sizeof host);
  cudaMalloc(&out, sizeof(int));
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, sizeof(int));
  count<<<1, 128>>>(in, out, mode);
  int result = 0;
  cudaMemcpy(&result, out, sizeof result, cudaMemcpyDeviceToHost);
  printf("positive %d\n", result);
  return 0;
}
