// --confirm per line: a 32-bit mask on a shuffle that stays in its half. HIP traps on the mask (a
// mask finding is confirmed), but with the mask widened both widths print the same pairs, so the
// widening alone confirms no other rule on the line.
#include <cstdio>
__global__ void pairs(const int* in, int* out) { out[threadIdx.x] = __shfl_xor_sync(0xffffffff, in[threadIdx.x], 1); }
int main() {
  int host[64];
  for (int i = 0; i < 64; ++i) host[i] = i;
  int *in, *out;
  cudaMalloc(&in, sizeof host);
  cudaMalloc(&out, sizeof host);
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  pairs<<<1, 64>>>(in, out);
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  printf("lane 40 got %d\n", host[40]);
  return 0;
}
