// --confirm per line: two hazards, only the first runs. The ballot kept in 32 bits loses lanes
// 32-63 at 64 lanes (the count differs: confirmed); the 32-bit mask of the shuffle sits in a
// branch this input never takes (mode 0), so nothing ties to it: not reproduced.
#include <cstdio>
__global__ void count(const int* in, int* out, int mode) {
  unsigned int bits = __ballot_sync(__activemask(), in[threadIdx.x] > 0);
  if (threadIdx.x % warpSize == 0) atomicAdd(out, __popc(bits));
  if (mode == 1) {
    int v = __shfl_xor_sync(0xffffffff, in[threadIdx.x], 1);
    atomicAdd(out + 1, v);
  }
}
int main() {
  int host[128];
  for (int i = 0; i < 128; ++i) host[i] = 1;
  int *in, *out;
  cudaMalloc(&in, sizeof host);
  cudaMalloc(&out, 2 * sizeof(int));
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, 2 * sizeof(int));
  count<<<1, 128>>>(in, out, 0);
  int result[2] = {0, 0};
  cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost);
  printf("positive %d, shuffled %d\n", result[0], result[1]);
  return 0;
}
