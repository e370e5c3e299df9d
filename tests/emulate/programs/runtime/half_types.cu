// half and bfloat16 on the CPU: conversions round to nearest even, arithmetic rounds once per
// operation, half2 lanes, a warp reduction of halves through __shfl_down_sync.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void sums(const __half* x, float* out) {
  __half v = x[threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v = __hadd(v, __shfl_down_sync(__activemask(), v, o));
  if (threadIdx.x % warpSize == 0) atomicAdd(out, __half2float(v));
}

int main() {
  __half* x;
  float* out;
  cudaMallocManaged(&x, 128 * sizeof(__half));
  cudaMallocManaged(&out, sizeof(float));
  for (int i = 0; i < 128; ++i) x[i] = __float2half(0.5f * (i % 8));
  *out = 0;
  sums<<<1, 128>>>(x, out);
  cudaDeviceSynchronize();
  __half a = __float2half(1.0f / 3.0f);
  __half2 h2 = __hmul2(__floats2half2_rn(1.5f, 2.0f), __float2half2_rn(3.0f));
  __nv_bfloat16 b = __float2bfloat16(1.0f / 3.0f);
  printf("sum %.1f third 0x%04x %.8f h2 %.1f %.1f bf16 0x%04x %.8f big %.1f\n", *out, __half_as_ushort(a),
         __half2float(a), __low2float(h2), __high2float(h2), __bfloat16_as_ushort(b), __bfloat162float(b),
         __half2float(__hadd(__float2half(2048.0f), __float2half(1.0f))));
  return 0;
}
