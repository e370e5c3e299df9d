// rocm-port `port emulate`, part of emu_runtime.h (programs include that umbrella header):
// integer, bit and float intrinsics, cached loads and stores, atomics (header only).
#pragma once
#include "emu_device.h"

// ---- integer and bit intrinsics -------------------------------------------------------------
EMU_INL int __popc(unsigned int x) { return __builtin_popcount(x); }
EMU_INL int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
EMU_INL int __ffs(int x) { return __builtin_ffs(x); }
EMU_INL int __ffs(unsigned int x) { return __builtin_ffs((int)x); }
EMU_INL int __ffsll(long long x) { return __builtin_ffsll(x); }
EMU_INL int __ffsll(unsigned long long x) { return __builtin_ffsll((long long)x); }
EMU_INL int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
EMU_INL int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
EMU_INL unsigned int __brev(unsigned int x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
EMU_INL unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
EMU_INL unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}
EMU_INL unsigned int __funnelshift_l(unsigned lo, unsigned hi, unsigned s) { return (unsigned)(((((unsigned long long)hi << 32) | lo) << (s & 31)) >> 32); }
EMU_INL unsigned int __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) { return (unsigned)(((((unsigned long long)hi << 32) | lo) << std::min(s, 32u)) >> 32); }
EMU_INL unsigned int __funnelshift_r(unsigned lo, unsigned hi, unsigned s) { return (unsigned)((((unsigned long long)hi << 32) | lo) >> (s & 31)); }
EMU_INL unsigned int __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) { return (unsigned)((((unsigned long long)hi << 32) | lo) >> std::min(s, 32u)); }
EMU_INL int __mul24(int a, int b) { return (int)(((long long)(a << 8 >> 8)) * (b << 8 >> 8)); }
EMU_INL unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
EMU_INL int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
EMU_INL unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
EMU_INL long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
EMU_INL unsigned long long __umul64hi(unsigned long long a, unsigned long long b) { return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
EMU_INL unsigned __sad(int a, int b, unsigned c) { return (unsigned)(a > b ? a - b : b - a) + c; }
EMU_INL unsigned __usad(unsigned a, unsigned b, unsigned c) { return (a > b ? a - b : b - a) + c; }
EMU_INL int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
EMU_INL int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
EMU_INL unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
EMU_INL unsigned __urhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b + 1) >> 1); }
// sm_61's integer dot products: four 8-bit (or two 16-bit by two 8-bit) products summed into c.
EMU_INL int __dp4a(int a, int b, int c) {
  for (int i = 0; i < 4; ++i) c += (int)(signed char)(a >> (8 * i)) * (int)(signed char)(b >> (8 * i));
  return c;
}
EMU_INL unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
  for (int i = 0; i < 4; ++i) c += ((a >> (8 * i)) & 0xffu) * ((b >> (8 * i)) & 0xffu);
  return c;
}
EMU_INL int __dp2a_part(int a, int b, int c, int byte0) {
  for (int i = 0; i < 2; ++i) c += (int)(short)(a >> (16 * i)) * (int)(signed char)(b >> (8 * (byte0 + i)));
  return c;
}
EMU_INL unsigned __dp2a_part(unsigned a, unsigned b, unsigned c, int byte0) {
  for (int i = 0; i < 2; ++i) c += ((a >> (16 * i)) & 0xffffu) * ((b >> (8 * (byte0 + i))) & 0xffu);
  return c;
}
EMU_INL int __dp2a_lo(int a, int b, int c) { return __dp2a_part(a, b, c, 0); }
EMU_INL unsigned __dp2a_lo(unsigned a, unsigned b, unsigned c) { return __dp2a_part(a, b, c, 0); }
EMU_INL int __dp2a_hi(int a, int b, int c) { return __dp2a_part(a, b, c, 2); }
EMU_INL unsigned __dp2a_hi(unsigned a, unsigned b, unsigned c) { return __dp2a_part(a, b, c, 2); }
// CUDA's global min/max accept mixed operand types.
template <class A, class B> EMU_INL std::common_type_t<A, B> min(A a, B b) { return b < a ? b : a; }
template <class A, class B> EMU_INL std::common_type_t<A, B> max(A a, B b) { return a < b ? b : a; }
// Templates with a defaulted parameter: a host .cpp file that defines its own `uint umin(uint,
// uint)` (nvcc never shows it CUDA's) gets a non-template overload that wins, not a redefinition.
template <class = void> EMU_INL unsigned umin(unsigned a, unsigned b) { return b < a ? b : a; }
template <class = void> EMU_INL unsigned umax(unsigned a, unsigned b) { return a < b ? b : a; }
template <class = void> EMU_INL long long llmin(long long a, long long b) { return b < a ? b : a; }
template <class = void> EMU_INL long long llmax(long long a, long long b) { return a < b ? b : a; }
template <class = void> EMU_INL unsigned long long ullmin(unsigned long long a, unsigned long long b) { return b < a ? b : a; }
template <class = void> EMU_INL unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }

// ---- float intrinsics (round-to-nearest; the _rz/_ru/_rd arithmetic forms are not modelled) ----
EMU_INL float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
EMU_INL int __float_as_int(float f) { int x; std::memcpy(&x, &f, 4); return x; }
EMU_INL float __uint_as_float(unsigned x) { float f; std::memcpy(&f, &x, 4); return f; }
EMU_INL unsigned __float_as_uint(float f) { unsigned x; std::memcpy(&x, &f, 4); return x; }
EMU_INL double __longlong_as_double(long long x) { double d; std::memcpy(&d, &x, 8); return d; }
EMU_INL long long __double_as_longlong(double d) { long long x; std::memcpy(&x, &d, 8); return x; }
EMU_INL int __double2hiint(double d) { return (int)(__double_as_longlong(d) >> 32); }
EMU_INL int __double2loint(double d) { return (int)__double_as_longlong(d); }
EMU_INL double __hiloint2double(int hi, int lo) { return __longlong_as_double(((long long)hi << 32) | (unsigned)lo); }
EMU_INL float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
EMU_INL double rsqrt(double x) { return 1.0 / std::sqrt(x); }
EMU_INL float rcbrtf(float x) { return 1.0f / std::cbrt(x); }
EMU_INL float __saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }
EMU_INL float __expf(float x) { return std::exp(x); }
EMU_INL float __exp10f(float x) { return std::pow(10.0f, x); }
EMU_INL float __logf(float x) { return std::log(x); }
EMU_INL float __log2f(float x) { return std::log2(x); }
EMU_INL float __log10f(float x) { return std::log10(x); }
EMU_INL float __sinf(float x) { return std::sin(x); }
EMU_INL float __cosf(float x) { return std::cos(x); }
EMU_INL float __tanf(float x) { return std::tan(x); }
EMU_INL float __powf(float x, float y) { return std::pow(x, y); }
EMU_INL void __sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
EMU_INL float __fdividef(float a, float b) { return a / b; }
EMU_INL float fdividef(float a, float b) { return a / b; }
EMU_INL float sinpif(float x) { return std::sin((float)M_PI * x); }
EMU_INL float cospif(float x) { return std::cos((float)M_PI * x); }
EMU_INL void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
EMU_INL double sinpi(double x) { return std::sin(M_PI * x); }
EMU_INL double cospi(double x) { return std::cos(M_PI * x); }
EMU_INL float __fadd_rn(float a, float b) { return a + b; }
EMU_INL float __fsub_rn(float a, float b) { return a - b; }
EMU_INL float __fmul_rn(float a, float b) { return a * b; }
EMU_INL float __fdiv_rn(float a, float b) { return a / b; }
EMU_INL float __frcp_rn(float a) { return 1.0f / a; }
EMU_INL float __fsqrt_rn(float a) { return std::sqrt(a); }
EMU_INL float __frsqrt_rn(float a) { return 1.0f / std::sqrt(a); }
EMU_INL float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
EMU_INL double __dadd_rn(double a, double b) { return a + b; }
EMU_INL double __dsub_rn(double a, double b) { return a - b; }
EMU_INL double __dmul_rn(double a, double b) { return a * b; }
EMU_INL double __ddiv_rn(double a, double b) { return a / b; }
EMU_INL double __drcp_rn(double a) { return 1.0 / a; }
EMU_INL double __dsqrt_rn(double a) { return std::sqrt(a); }
EMU_INL double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
EMU_INL int __float2int_rn(float x) { return (int)std::nearbyint(x); }
EMU_INL int __float2int_rz(float x) { return (int)x; }
EMU_INL int __float2int_ru(float x) { return (int)std::ceil(x); }
EMU_INL int __float2int_rd(float x) { return (int)std::floor(x); }
EMU_INL unsigned __float2uint_rn(float x) { return (unsigned)std::nearbyint(x); }
EMU_INL unsigned __float2uint_rz(float x) { return (unsigned)x; }
EMU_INL long long __float2ll_rn(float x) { return (long long)std::nearbyint(x); }
EMU_INL long long __float2ll_rz(float x) { return (long long)x; }
EMU_INL int __double2int_rn(double x) { return (int)std::nearbyint(x); }
EMU_INL int __double2int_rz(double x) { return (int)x; }
EMU_INL unsigned __double2uint_rn(double x) { return (unsigned)std::nearbyint(x); }
EMU_INL long long __double2ll_rn(double x) { return (long long)std::nearbyint(x); }
EMU_INL float __double2float_rn(double x) { return (float)x; }
EMU_INL float __int2float_rn(int x) { return (float)x; }
EMU_INL float __uint2float_rn(unsigned x) { return (float)x; }
EMU_INL float __ll2float_rn(long long x) { return (float)x; }
EMU_INL double __int2double_rn(int x) { return (double)x; }
EMU_INL double __ll2double_rn(long long x) { return (double)x; }
EMU_INL float norm3df(float a, float b, float c) { return std::sqrt(a * a + b * b + c * c); }
EMU_INL float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
EMU_INL float norm4df(float a, float b, float c, float d) { return std::sqrt(a * a + b * b + c * c + d * d); }
EMU_INL float rhypotf(float a, float b) { return 1.0f / std::hypot(a, b); }
EMU_INL float normcdff(float x) { return 0.5f * std::erfc(-x / std::sqrt(2.0f)); }
EMU_INL double normcdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// ---- cached/streaming loads and stores: plain memory on the CPU -----------------------------
template <class T> EMU_INL T __ldg(const T* p) { return *p; }
template <class T> EMU_INL T __ldca(const T* p) { return *p; }
template <class T> EMU_INL T __ldcg(const T* p) { return *p; }
template <class T> EMU_INL T __ldcs(const T* p) { return *p; }
template <class T> EMU_INL T __ldlu(const T* p) { return *p; }
template <class T> EMU_INL T __ldcv(const T* p) { return *p; }
template <class T> EMU_INL void __stwb(T* p, T v) { *p = v; }
template <class T> EMU_INL void __stcg(T* p, T v) { *p = v; }
template <class T> EMU_INL void __stcs(T* p, T v) { *p = v; }
template <class T> EMU_INL void __stwt(T* p, T v) { *p = v; }

// ---- atomics: fibers never preempt one another and blocks share one OS thread, so a plain
// read-modify-write is atomic (docs/emulate.md: sequential consistency) -----------------------
template <class T, class U> EMU_INL T atomicAdd(T* p, U v) { T o = *p; *p = (T)(o + (T)v); return o; }
template <class T, class U> EMU_INL T atomicSub(T* p, U v) { T o = *p; *p = (T)(o - (T)v); return o; }
template <class T, class U> EMU_INL T atomicExch(T* p, U v) { T o = *p; *p = (T)v; return o; }
template <class T, class U> EMU_INL T atomicMin(T* p, U v) { T o = *p; if ((T)v < o) *p = (T)v; return o; }
template <class T, class U> EMU_INL T atomicMax(T* p, U v) { T o = *p; if (o < (T)v) *p = (T)v; return o; }
template <class T, class U> EMU_INL T atomicAnd(T* p, U v) { T o = *p; *p = (T)(o & (T)v); return o; }
template <class T, class U> EMU_INL T atomicOr(T* p, U v) { T o = *p; *p = (T)(o | (T)v); return o; }
template <class T, class U> EMU_INL T atomicXor(T* p, U v) { T o = *p; *p = (T)(o ^ (T)v); return o; }
template <class T, class U, class V> EMU_INL T atomicCAS(T* p, U cmp, V v) { T o = *p; if (o == (T)cmp) *p = (T)v; return o; }
EMU_INL unsigned atomicInc(unsigned* p, unsigned v) { unsigned o = *p; *p = (o >= v) ? 0u : o + 1u; return o; }
EMU_INL unsigned atomicDec(unsigned* p, unsigned v) { unsigned o = *p; *p = (o == 0u || o > v) ? v : o - 1u; return o; }
#define EMU_SCOPED_ATOMIC(name)                                                                    \
  template <class T, class... U> EMU_INL T name##_block(T* p, U... v) { return name(p, v...); }   \
  template <class T, class... U> EMU_INL T name##_system(T* p, U... v) { return name(p, v...); }
EMU_SCOPED_ATOMIC(atomicAdd) EMU_SCOPED_ATOMIC(atomicSub) EMU_SCOPED_ATOMIC(atomicExch)
EMU_SCOPED_ATOMIC(atomicMin) EMU_SCOPED_ATOMIC(atomicMax) EMU_SCOPED_ATOMIC(atomicAnd)
EMU_SCOPED_ATOMIC(atomicOr) EMU_SCOPED_ATOMIC(atomicXor) EMU_SCOPED_ATOMIC(atomicCAS)
EMU_SCOPED_ATOMIC(atomicInc) EMU_SCOPED_ATOMIC(atomicDec)
#undef EMU_SCOPED_ATOMIC
template <class T, class U> EMU_INL T unsafeAtomicAdd(T* p, U v) { return atomicAdd(p, v); }
template <class T, class U> EMU_INL T safeAtomicAdd(T* p, U v) { return atomicAdd(p, v); }
template <class T, class U> EMU_INL void atomicAddNoRet(T* p, U v) { atomicAdd(p, v); }
