// The rest of cuda_fp16.h / cuda_bf16.h that real programs use (HeCBench's fp16 and bf16
// kernels): directed-rounding conversions, make_half2/make_bfloat162, half2 comparisons and
// masks, saturating and relu forms, the complex multiply-add, half2 math, ++ and compound
// operators, raw bits, and a warp reduction of half2 pairs through the shuffles.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void pair_sums(const half2* x, float2* out) {
  half2 v = x[threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v = __hadd2(v, __shfl_xor_sync(__activemask(), v, o));
  if (threadIdx.x % warpSize == 0) {  // every warp adds its pair: the total is the same at any width
    atomicAdd(&out->x, __low2float(v));
    atomicAdd(&out->y, __high2float(v));
  }
}

int main() {
  half2* x;
  float2* out;
  cudaMallocManaged(&x, 64 * sizeof(half2));
  cudaMallocManaged(&out, sizeof(float2));
  for (int i = 0; i < 64; ++i) x[i] = make_half2(__float2half(0.25f * (i % 4)), __float2half(1.0f));
  *out = float2{0.0f, 0.0f};
  pair_sums<<<1, 64>>>(x, out);
  cudaDeviceSynchronize();
  printf("pairs %.2f %.1f\n", out->x, out->y);

  // 1/3 in half: nearest 0x3555 (below 1/3), so rz and rd keep it and ru steps up; -1/3 mirrors
  float third = 1.0f / 3.0f;
  printf("round %04x %04x %04x %04x %04x\n", __half_as_ushort(__float2half_rn(third)),
         __half_as_ushort(__float2half_rz(third)), __half_as_ushort(__float2half_ru(third)),
         __half_as_ushort(__float2half_rd(-third)), __half_as_ushort(__float2half_rz(70000.0f)));
  printf("bf16 round %04x %04x %04x\n", __bfloat16_as_ushort(__float2bfloat16_rn(third)),
         __bfloat16_as_ushort(__float2bfloat16_rz(third)), __bfloat16_as_ushort(__float2bfloat16_rd(third)));

  half2 a = make_half2(__float2half(1.0f), __float2half(-2.0f));
  half2 b = __floats2half2_rn(1.0f, 3.0f);
  half2 lt = __hlt2(a, b), eq = __heq2(a, b);
  printf("cmp %.0f %.0f %.0f %.0f all %d %d\n", __low2float(lt), __high2float(lt), __low2float(eq), __high2float(eq),
         (int)__hbeq2(a, a), (int)__hblt2(a, b));
  half s = __hadd_sat(__float2half(0.75f), __float2half(0.5f));
  half r = __hfma_relu(__float2half(-2.0f), __float2half(3.0f), __float2half(1.0f));
  half2 c = __hcmadd(make_half2(__float2half(1.0f), __float2half(2.0f)), make_half2(__float2half(3.0f), __float2half(4.0f)),
                     make_half2(__float2half(0.5f), __float2half(0.5f)));  // (1+2i)(3+4i) + (0.5+0.5i) = -4.5+10.5i
  printf("sat %.2f relu %.1f cmadd %.1f %.1f\n", __half2float(s), __half2float(r), __low2float(c), __high2float(c));
  half2 m = h2exp2(make_half2(__float2half(3.0f), __float2half(-1.0f)));
  half h = __float2half(2.5f);
  h++;
  half2 d = b;
  d -= a;
  __half_raw raw = h;
  __nv_bfloat162 bb = make_bfloat162(__float2bfloat16(1.5f), __float2bfloat16(-0.5f));
  bb = __hmax2(bb, __bfloat162bfloat162(__float2bfloat16(0.0f)));
  printf("exp2 %.1f %.2f inc %.1f raw %04x sub %.1f %.1f bf2 %.1f %.1f int %d %d\n", __low2float(m), __high2float(m),
         __half2float(h), raw.x, __low2float(d), __high2float(d), __low2float(bb), __high2float(bb),
         __bfloat162int_rn(__float2bfloat16(2.5f)), __half2int_rd(__float2half(-1.5f)));
  return 0;
}
