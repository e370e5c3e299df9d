#include <cstdio>
__global__ void k(unsigned* out) {
  unsigned lane;
  asm volatile("sad.u32 %0, %1, %1, %1;" : "=r"(lane) : "r"(threadIdx.x));
  out[threadIdx.x] = lane;
}
int main() { unsigned* d; cudaMalloc(&d, 128); k<<<1, 32>>>(d); return 0; }
