// --confirm per line: a shared array sized for 32-lane warps and filled per warp through
// warpSize. At 64 lanes half of its slots stay 0 and the count differs, but no warp collective
// is on the way, so the difference cannot be tied to the array's line: untraced.
#include <cstdio>
__global__ void warps_seen(int* out) {
  __shared__ int seen[128 / 32];
  if (threadIdx.x < 128 / 32) seen[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x % warpSize == 0) seen[threadIdx.x / warpSize] = 1;
  __syncthreads();
  if (threadIdx.x == 0) *out = seen[0] + seen[1] + seen[2] + seen[3];
}
int main() {
  int* out;
  cudaMalloc(&out, sizeof(int));
  warps_seen<<<1, 128>>>(out);
  int n = 0;
  cudaMemcpy(&n, out, sizeof n, cudaMemcpyDeviceToHost);
  printf("warps seen %d\n", n);
  return 0;
}
