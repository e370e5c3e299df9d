// The two-value constructors of the half and bfloat16 pairs, as cuda-samples' fp16ScalarProduct
// declares its accumulator (`half2 value(0.f, 0.f)`), with floats, halves and an initializer
// list; a value-initialized pair is zero. A per-warp dot product of half2s through __hfma2.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void dot(const half2* a, const half2* b, float* out, int n) {
  half2 value(0.f, 0.f);
  for (int i = threadIdx.x; i < n; i += blockDim.x) value = __hfma2(a[i], b[i], value);
  float v = __low2float(value) + __high2float(value);
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(__activemask(), v, o);
  if (threadIdx.x % warpSize == 0) atomicAdd(out, v);
}

int main() {
  const int n = 256;
  half2 *a, *b;
  float* out;
  cudaMallocManaged(&a, n * sizeof(half2));
  cudaMallocManaged(&b, n * sizeof(half2));
  cudaMallocManaged(&out, sizeof(float));
  for (int i = 0; i < n; ++i) {
    a[i] = half2(__float2half(0.25f * (i % 4)), __float2half(1.0f));
    b[i] = {2.0f, 0.5f * (i % 2)};
  }
  *out = 0;
  dot<<<1, 64>>>(a, b, out, n);
  cudaDeviceSynchronize();
  __nv_bfloat162 bf(1.5f, -2.0f);
  __half2 zero{};
  printf("dot %.1f bf16 %.1f %.1f zero %.1f %.1f\n", *out, __low2float(bf), __high2float(bf),
         __low2float(zero), __high2float(zero));
  return 0;
}
