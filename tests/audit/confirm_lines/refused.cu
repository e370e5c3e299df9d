// --confirm: `sad` is outside the inline PTX subset port emulate translates, so it refuses the
// program: its findings are not-run, with the reason (here: its 32-bit shuffle mask).
#include <cstdio>
__global__ void lane_of(int* out) {
  unsigned lane;
  asm volatile("sad.u32 %0, %1, %1, %1;" : "=r"(lane) : "r"(threadIdx.x));
  out[threadIdx.x] = __shfl_xor_sync(0xffffffff, (int)lane, 1);
}
int main() {
  int* out;
  cudaMalloc(&out, 64 * sizeof(int));
  lane_of<<<1, 64>>>(out);
  int host[64];
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  printf("%d\n", host[40]);
  return 0;
}
