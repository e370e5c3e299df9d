// A warp-level matrix load in inline PTX: outside the emulated subset, refused naming ldmatrix.
#include <cstdio>

__global__ void load(const unsigned short* in, unsigned* out) {
  __shared__ unsigned short tile[256];
  unsigned smem = (unsigned)__cvta_generic_to_shared(tile + threadIdx.x % 16 * 16);
  unsigned r0, r1, r2, r3; asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(smem));
  out[threadIdx.x] = r0 ^ r1 ^ r2 ^ r3;
  (void)in;
}

int main() {
  unsigned short* in;
  unsigned* out;
  cudaMallocManaged(&in, 512); cudaMallocManaged(&out, 128);
  load<<<1, 32>>>(in, out);
  cudaDeviceSynchronize();
  printf("%u\n", out[0]);
  return 0;
}
