// Class "shift": a lane bit built as `1 << lane` in a 32-bit int. For lanes 32-63 of a 64-lane
// wavefront the shift overflows, so each lane's rank among the voting lanes comes out wrong.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void compact(const int* x, int* out, int* slots) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int v = x[i];
  unsigned long long votes = __ballot_sync(__activemask(), v % 2 == 0);
  int rank = __popcll(votes & ((1 << lane) - 1));
  if (v % 2 == 0) slots[i] = rank;
  else slots[i] = -1;
  if (lane == 0) out[i / warpSize] = __popcll(votes);
}

int main() {
  const int n = 128;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 7) % 13;
  int *x, *out, *slots;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&out, sizeof h);
  cudaMalloc(&slots, sizeof h);
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  compact<<<1, n>>>(x, out, slots);
  int s[n];
  cudaMemcpy(s, slots, sizeof s, cudaMemcpyDeviceToHost);
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += (long)s[i] * (i % 5 + 1);
  printf("weighted ranks: %ld\n", sum);
  return 0;
}
