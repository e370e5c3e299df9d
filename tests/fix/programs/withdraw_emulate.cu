// Built to break a repair: the lane bit `1 << lane` goes into a signed 64-bit sum. At lane 31 the
// 32-bit int is negative and sign-extends; `1ull << lane` is positive: the 32-lane result would
// change, so port emulate must withdraw that repair (and only it: the mask repair stays).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void lane_bits(long long* total) {
  int lane = threadIdx.x % warpSize;
  unsigned long long seen = __ballot_sync(0xffffffff, 1);
  long long bit = 1 << lane;
  if (seen != 0) atomicAdd((unsigned long long*)total, (unsigned long long)bit);
}

int main() {
  long long* total;
  cudaMalloc(&total, sizeof(long long));
  cudaMemset(total, 0, sizeof(long long));
  lane_bits<<<1, 32>>>(total);
  long long r = 0;
  cudaMemcpy(&r, total, sizeof r, cudaMemcpyDeviceToHost);
  printf("sum of lane bits %lld\n", r);
  return 0;
}
