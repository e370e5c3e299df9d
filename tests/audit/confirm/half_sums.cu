// --confirm: self-consistent 32-lane code (offsets 16..1, leaders at lane % 32, / 32 slots): each
// half of a 64-lane wavefront reduces itself, so both widths print the same sums.
#include <cstdio>
__global__ void sums(const float* in, float* out) {
  int lane = threadIdx.x % 32;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(~0ull, v, o);
  if (lane == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
int main() {
  float host[256];
  for (int i = 0; i < 256; ++i) host[i] = static_cast<float>(i % 7);
  float *in, *out;
  cudaMalloc(&in, sizeof host);
  cudaMalloc(&out, 8 * sizeof(float));
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  sums<<<2, 128>>>(in, out);
  float result[8];
  cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 8; ++i) printf("%g\n", result[i]);
  return 0;
}
