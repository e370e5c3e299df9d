#include <cstdio>
__global__ void k(unsigned* out) {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  out[threadIdx.x] = lane;
}
int main() { unsigned* d; cudaMalloc(&d, 128); k<<<1, 32>>>(d); return 0; }
