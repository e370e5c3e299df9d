// The C99 classification functions unqualified in device code, as CUDA's math API declares
// them (HeCBench's hellinger calls signbit).
#include <cstdio>

__global__ void classify(const float* x, int* out) {
  int i = threadIdx.x;
  out[i] = (signbit(x[i]) ? 1 : 0) + (isnan(x[i]) ? 2 : 0) + (isinf(x[i]) ? 4 : 0) + (isfinite(x[i]) ? 8 : 0);
}

int main() {
  float* x;
  int* out;
  cudaMallocManaged(&x, 4 * sizeof(float));
  cudaMallocManaged(&out, 4 * sizeof(int));
  x[0] = -1.5f;
  x[1] = 2.0f;
  x[2] = -INFINITY;
  x[3] = NAN;
  classify<<<1, 4>>>(x, out);
  cudaDeviceSynchronize();
  printf("%d %d %d %d\n", out[0], out[1], out[2], out[3]);
  return 0;
}
