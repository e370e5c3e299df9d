// --confirm per line: the mask and the first offset are set on one line and used on another.
// At 64 lanes the 32-bit mask leaves out lanes 32-63 (the emulator widens it and goes on), and
// the reduction that starts at 16 adds only one 32-lane half: the total differs.
#include <cstdio>
#define FULL_MASK 0xffffffffu
__global__ void total(const float* x, float* sum) {
  const unsigned mask = FULL_MASK;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(mask, v, offset);
  if (threadIdx.x % warpSize == 0) atomicAdd(sum, v);
}
int main() {
  static float h[256];
  for (int i = 0; i < 256; ++i) h[i] = (float)(i % 5);
  float *x, *sum;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&sum, sizeof(float));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(sum, 0, sizeof(float));
  total<<<2, 128>>>(x, sum);
  float s = 0;
  cudaMemcpy(&s, sum, sizeof s, cudaMemcpyDeviceToHost);
  printf("total %.1f\n", s);
  return 0;
}
