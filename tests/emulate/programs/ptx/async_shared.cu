// The shared window, cp.async, .f16 math, video instructions, comma-less operands and #if
// branches inside a template, each
// against a C++ reference written here; prints "mismatches 0" when all agree (same at 32 and 64).
#include <cstdio>
#include <cmath>
#include <cuda_fp16.h>

__device__ int bad;

__device__ void expect(bool ok) { if (!ok) atomicAdd(&bad, 1); }

__global__ void window(const int* in) {
  __shared__ int4 tile[64];
  __shared__ unsigned copied[64 * 4];
  const int t = threadIdx.x;
  unsigned base;
  asm("{.reg .u64 a64;\n cvta.to.shared.u64 a64, %1;\n cvt.u32.u64 %0, a64;}\n" : "=r"(base) : "l"(tile));
  // a window address plus the program's own offset, stored and loaded as v4
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" :: "r"(base + t * (unsigned)sizeof(int4))
               "r"(in[t]), "r"(in[t] + 1), "r"(in[t] + 2), "r"(in[t] + 3) : "memory");
  __syncthreads();
  const int peer = (t + 5) % blockDim.x;
  int x, y, z, w;
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
               : "r"(base + peer * 16));
  expect(x == in[peer] && y == in[peer] + 1 && z == in[peer] + 2 && w == in[peer] + 3);
  expect(tile[peer].w == in[peer] + 3);
  // back to a generic pointer
  unsigned long long g;
  asm("cvta.shared.u64 %0, %1;" : "=l"(g) : "l"((unsigned long long)base));
  expect((int4*)g == tile);
  // cp.async: 16 bytes, 16 with 8 read (the rest zero-filled), 4 bytes; then the group waits
  unsigned dst = (unsigned)__cvta_generic_to_shared(copied + 4 * t);
  const unsigned* src = (const unsigned*)in + 4 * (t % 16);
  if (t % 3 == 0) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(dst), "l"(src));
  } else if (t % 3 == 1) {
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" :: "r"(dst), "l"(src), "r"(8));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"(dst), "l"(src));
  }
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::);
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();
  const int n = t % 3 == 0 ? 4 : t % 3 == 1 ? 2 : 1;
  for (int i = 0; i < n; ++i) expect(copied[4 * t + i] == src[i]);
  if (t % 3 == 1) expect(copied[4 * t + 2] == 0u && copied[4 * t + 3] == 0u);
  // a template whose literals an #if chooses (the compiler's preprocessor picks the branch)
  int v = -1;
  asm volatile("{.reg .pred p;\n"
               " setp.ne.b32 p, %2, 0;\n"
#if __CUDACC_VER_MAJOR__ >= 11 && \
    __CUDA_ARCH__ >= 750
               " @p ld.global.nc.L2::128B.u32 %0, [%1];}\n"
#else
               " @p ld.global.nc.u32 %0, [%1];}\n"
#endif
               : "+r"(v) : "l"(in + t), "r"(t % 2));
  expect(v == (t % 2 ? in[t] : -1));
}

__global__ void half_and_video(unsigned seed) {
  const unsigned t = threadIdx.x + seed;
  const float f = (float)(t % 17) / 8.0f - 1.0f;
  __half h = __float2half(f);
  unsigned short hb = __half_as_ushort(h), r16;
  asm("ex2.approx.f16 %0, %1;" : "=h"(r16) : "h"(hb));
  expect(std::fabs(__half2float(__ushort_as_half(r16)) - std::exp2(f)) < 2e-3f * std::exp2(f));
  unsigned pair = (unsigned)hb | ((unsigned)__half_as_ushort(__float2half(-f)) << 16), r32;
  asm("tanh.approx.f16x2 %0, %1;" : "=r"(r32) : "r"(pair));
  expect(std::fabs(__half2float(__ushort_as_half((unsigned short)r32)) - std::tanh(f)) < 2e-3f);
  expect(std::fabs(__half2float(__ushort_as_half((unsigned short)(r32 >> 16))) + std::tanh(f)) < 2e-3f);
  const unsigned a = t * 2654435761u, b = t * 40503u + 77u, c = t;
  unsigned d;
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  unsigned ref = c;
  for (int i = 0; i < 4; ++i) {
    int x = (a >> (8 * i)) & 255, y = (b >> (8 * i)) & 255;
    ref += x > y ? x - y : y - x;
  }
  expect(d == ref);
  const unsigned s = t % 40;
  asm("vshr.u32.u32.u32.clamp.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(s), "r"(c));
  expect(d == (s >= 32 ? 0u : a >> s) + c);
  asm("vshr.u32.u32.u32.wrap.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(s), "r"(c));
  expect(d == (a >> (s % 32)) + c);
}

int main() {
  int* in;
  cudaMallocManaged(&in, 64 * sizeof(int4));
  for (int i = 0; i < 64 * 4; ++i) in[i] = i * 37 % 1000 - 300;
  window<<<2, 64>>>(in);
  half_and_video<<<4, 128>>>(3u);
  cudaDeviceSynchronize();
  int b = -1;
  cudaMemcpyFromSymbol(&b, bad, sizeof b);
  printf("mismatches %d of the checks\n", b);
  return b != 0;
}
