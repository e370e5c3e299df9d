// --confirm per line: the shuffle lives in a helper and the call computes the source lane with
// `% 32`. At 64 lanes the helper's shuffle has width 64, so lane 40 asks for lane 9 and reads the
// other 32-lane half (a 32-lane warp gives it lane 41): the finding on the call is confirmed
// through the helper's line.
#include <cstdio>
__device__ int from_lane(int v, int src) {
  return __shfl_sync(__activemask(), v, src);
}
__global__ void pairs(const int* in, int* out) {
  int partner = from_lane(in[threadIdx.x], (threadIdx.x % 32) ^ 1);
  out[threadIdx.x] = partner;
}
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
