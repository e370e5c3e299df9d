// __ffs of a ballot: at 64 lanes the ballot is 64 bits and no __ffs overload takes it as is
// (HIP's headers reject the call the same way), so only the 32-lane build compiles.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void first_voter(const int* x, int* out) {
  int lane = __ffs(__ballot_sync(__activemask(), x[threadIdx.x] > 0)) - 1;
  if (threadIdx.x == 0) *out = lane;
}

int main() {
  int h[64] = {0};
  h[5] = 1;
  int *x, *out, r = -1;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&out, sizeof(int));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  first_voter<<<1, 64>>>(x, out);
  cudaMemcpy(&r, out, sizeof r, cudaMemcpyDeviceToHost);
  printf("first voter: lane %d\n", r);
  return 0;
}
