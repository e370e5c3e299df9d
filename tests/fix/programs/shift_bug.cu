// Class "shift": a lane bit built as `1 << lane` in a 32-bit int. For lanes 32-63 of a 64-lane
// wavefront the shift overflows, so a lane no longer finds its own vote in the 64-bit ballot.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void own_vote(const int* x, int* agree) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  bool even = x[i] % 2 == 0;
  unsigned long long votes = __ballot_sync(__activemask(), even);
  bool seen = (votes & (1 << lane)) != 0;
  if (seen == even) atomicAdd(agree, 1);
}

int main() {
  const int n = 256;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 7) % 13;
  int *x, *agree;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&agree, sizeof(int));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(agree, 0, sizeof(int));
  own_vote<<<2, n / 2>>>(x, agree);
  int r = 0;
  cudaMemcpy(&r, agree, sizeof r, cudaMemcpyDeviceToHost);
  printf("lanes that found their own vote: %d of %d\n", r, n);
  return 0;
}
