// --confirm: a ballot kept in 32 bits, then counted: at 64 lanes the count loses lanes 32-63,
// so the emulated 64-lane run prints another count than the 32-lane run.
#include <cstdio>
__global__ void count_positive(const int* in, int* out) {
  unsigned int bits = __ballot_sync(~0ull, in[threadIdx.x] > 0);
  if (threadIdx.x % warpSize == 0) atomicAdd(out, __popc(bits));
}
int main() {
  int host[128];
  for (int i = 0; i < 128; ++i) host[i] = 1;
  int *in, *out;
  cudaMalloc(&in, sizeof host);
  cudaMalloc(&out, sizeof(int));
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, sizeof(int));
  count_positive<<<1, 128>>>(in, out);
  int result = 0;
  cudaMemcpy(&result, out, sizeof result, cudaMemcpyDeviceToHost);
  printf("positive %d\n", result);
  return 0;
}
