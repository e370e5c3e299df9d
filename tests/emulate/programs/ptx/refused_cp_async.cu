// An asynchronous copy in inline PTX: outside the emulated subset, refused naming cp.async.
#include <cstdio>

__global__ void copy(const float* in, float* out) {
  __shared__ float tile[32];
  unsigned smem = (unsigned)__cvta_generic_to_shared(tile + threadIdx.x);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(smem), "l"(in + threadIdx.x));
  asm volatile("cp.async.wait_all;");
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];
}

int main() {
  float *in, *out;
  cudaMallocManaged(&in, 128); cudaMallocManaged(&out, 128);
  copy<<<1, 32>>>(in, out);
  cudaDeviceSynchronize();
  printf("%f\n", out[0]);
  return 0;
}
