// port emulate: half (binary16) and bfloat16 on the CPU, for <cuda_fp16.h>, <cuda_bf16.h>,
// <hip/hip_fp16.h> and <hip/hip_bf16.h>.
//
// __half holds a _Float16 (IEEE binary16, g++ on x86-64): conversions round to nearest even,
// and each arithmetic intrinsic computes in float and rounds once to half, as the hardware's
// half instructions do for a single operation. __nv_bfloat16 holds the top 16 bits of a float,
// rounded to nearest even (a NaN stays a quiet NaN); its arithmetic is float arithmetic rounded
// back, as on GPUs without native bf16 ALUs. Neither depends on the warp width: what differs
// between the widths is only how many lanes a shuffle or reduction of them spans.
#pragma once
#include "emu_runtime.h"

namespace emu {
EMU_INL unsigned short float_to_bf16_bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}
EMU_INL float bf16_bits_to_float(unsigned short h) {
  unsigned u = (unsigned)h << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace emu

struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x, y; };
struct __half {
  _Float16 v;
  __half() = default;
  EMU_INL __half(float f) : v((_Float16)f) {}
  EMU_INL __half(double d) : v((_Float16)d) {}
  EMU_INL __half(int i) : v((_Float16)i) {}
  EMU_INL __half(unsigned i) : v((_Float16)i) {}
  EMU_INL __half(long long i) : v((_Float16)i) {}
  EMU_INL __half(unsigned long long i) : v((_Float16)i) {}
  EMU_INL __half(short i) : v((_Float16)i) {}
  EMU_INL __half(unsigned short i) : v((_Float16)i) {}
  EMU_INL __half(__half_raw r) { std::memcpy(&v, &r.x, 2); }
  EMU_INL operator float() const { return (float)v; }
  EMU_INL operator __half_raw() const { __half_raw r; std::memcpy(&r.x, &v, 2); return r; }
};
struct __nv_bfloat16 {
  unsigned short bits;
  __nv_bfloat16() = default;
  EMU_INL __nv_bfloat16(float f) : bits(emu::float_to_bf16_bits(f)) {}
  EMU_INL __nv_bfloat16(double d) : bits(emu::float_to_bf16_bits((float)d)) {}
  EMU_INL __nv_bfloat16(int i) : bits(emu::float_to_bf16_bits((float)i)) {}
  EMU_INL __nv_bfloat16(unsigned i) : bits(emu::float_to_bf16_bits((float)i)) {}
  EMU_INL __nv_bfloat16(long long i) : bits(emu::float_to_bf16_bits((float)i)) {}
  EMU_INL __nv_bfloat16(unsigned long long i) : bits(emu::float_to_bf16_bits((float)i)) {}
  EMU_INL __nv_bfloat16(short i) : bits(emu::float_to_bf16_bits((float)i)) {}
  EMU_INL __nv_bfloat16(unsigned short i) : bits(emu::float_to_bf16_bits((float)i)) {}
  EMU_INL operator float() const { return emu::bf16_bits_to_float(bits); }
};
// CUDA's pairs construct from two values (`half2 value(0.f, 0.f)`, cuda-samples' fp16ScalarProduct):
// C++17 has no parenthesized aggregate initialization, so they declare the constructor; the
// defaulted ones keep them trivial (trivially copyable through warp shuffles, zero when {}).
struct alignas(4) __half2 {
  __half x, y;
  __half2() = default;
  EMU_INL __half2(const __half& a, const __half& b) : x(a), y(b) {}
};
struct alignas(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  EMU_INL __nv_bfloat162(const __nv_bfloat16& a, const __nv_bfloat16& b) : x(a), y(b) {}
};
typedef __half half;
typedef __half2 half2;
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
typedef __nv_bfloat16 __hip_bfloat16;
typedef __nv_bfloat162 __hip_bfloat162;

// ---- conversions --------------------------------------------------------------------------
EMU_INL __half __float2half(float f) { return __half(f); }
EMU_INL __half __float2half_rn(float f) { return __half(f); }
EMU_INL __half __double2half(double d) { return __half(d); }
EMU_INL float __half2float(__half h) { return (float)h; }
EMU_INL __half __int2half_rn(int i) { return __half(i); }
EMU_INL __half __uint2half_rn(unsigned i) { return __half(i); }
EMU_INL int __half2int_rn(__half h) { return (int)std::nearbyint((float)h); }
EMU_INL int __half2int_rz(__half h) { return (int)(float)h; }
EMU_INL int __half2int_rd(__half h) { return (int)std::floor((float)h); }
EMU_INL int __half2int_ru(__half h) { return (int)std::ceil((float)h); }
EMU_INL unsigned short __half_as_ushort(__half h) { unsigned short u; std::memcpy(&u, &h, 2); return u; }
EMU_INL short __half_as_short(__half h) { short u; std::memcpy(&u, &h, 2); return u; }
EMU_INL __half __ushort_as_half(unsigned short u) { __half h; std::memcpy(&h, &u, 2); return h; }
EMU_INL __half __short_as_half(short u) { __half h; std::memcpy(&h, &u, 2); return h; }
EMU_INL __half2 __halves2half2(__half a, __half b) { return __half2{a, b}; }
EMU_INL __half2 __half2half2(__half a) { return __half2{a, a}; }
EMU_INL __half2 __float2half2_rn(float f) { return __half2{__half(f), __half(f)}; }
EMU_INL __half2 __floats2half2_rn(float a, float b) { return __half2{__half(a), __half(b)}; }
EMU_INL __half2 __float22half2_rn(float2 f) { return __half2{__half(f.x), __half(f.y)}; }
EMU_INL float2 __half22float2(__half2 h) { return float2{(float)h.x, (float)h.y}; }
EMU_INL __half __low2half(__half2 h) { return h.x; }
EMU_INL __half __high2half(__half2 h) { return h.y; }
EMU_INL float __low2float(__half2 h) { return (float)h.x; }
EMU_INL float __high2float(__half2 h) { return (float)h.y; }
EMU_INL __half2 __lows2half2(__half2 a, __half2 b) { return __half2{a.x, b.x}; }
EMU_INL __half2 __highs2half2(__half2 a, __half2 b) { return __half2{a.y, b.y}; }
EMU_INL __half2 __lowhigh2highlow(__half2 h) { return __half2{h.y, h.x}; }
EMU_INL __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
EMU_INL __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
EMU_INL __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16(d); }
EMU_INL float __bfloat162float(__nv_bfloat16 h) { return (float)h; }
EMU_INL __nv_bfloat16 __int2bfloat16_rn(int i) { return __nv_bfloat16(i); }
EMU_INL unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.bits; }
EMU_INL __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) { __nv_bfloat16 h; h.bits = u; return h; }
EMU_INL __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162{a, b}; }
EMU_INL __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162{__nv_bfloat16(a), __nv_bfloat16(b)}; }
EMU_INL __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __nv_bfloat162{__nv_bfloat16(f.x), __nv_bfloat16(f.y)}; }
EMU_INL float2 __bfloat1622float2(__nv_bfloat162 h) { return float2{(float)h.x, (float)h.y}; }
EMU_INL float __low2float(__nv_bfloat162 h) { return (float)h.x; }
EMU_INL float __high2float(__nv_bfloat162 h) { return (float)h.y; }

// ---- arithmetic, comparisons, math: computed in float, rounded once to the type -----------
#define EMU_F16_OPS(T, T2)                                                                          \
  EMU_INL T __hadd(T a, T b) { return T((float)a + (float)b); }                                     \
  EMU_INL T __hsub(T a, T b) { return T((float)a - (float)b); }                                     \
  EMU_INL T __hmul(T a, T b) { return T((float)a * (float)b); }                                     \
  EMU_INL T __hdiv(T a, T b) { return T((float)a / (float)b); }                                     \
  EMU_INL T __hfma(T a, T b, T c) { return T(std::fma((float)a, (float)b, (float)c)); }             \
  EMU_INL T __hneg(T a) { return T(-(float)a); }                                                    \
  EMU_INL T __habs(T a) { return T(std::fabs((float)a)); }                                          \
  EMU_INL T __hmax(T a, T b) { return (float)a < (float)b ? b : a; }                                \
  EMU_INL T __hmin(T a, T b) { return (float)b < (float)a ? b : a; }                                \
  EMU_INL bool __heq(T a, T b) { return (float)a == (float)b; }                                     \
  EMU_INL bool __hne(T a, T b) { return (float)a != (float)b; }                                     \
  EMU_INL bool __hlt(T a, T b) { return (float)a < (float)b; }                                      \
  EMU_INL bool __hle(T a, T b) { return (float)a <= (float)b; }                                     \
  EMU_INL bool __hgt(T a, T b) { return (float)a > (float)b; }                                      \
  EMU_INL bool __hge(T a, T b) { return (float)a >= (float)b; }                                     \
  EMU_INL bool __hisnan(T a) { return std::isnan((float)a); }                                       \
  EMU_INL int __hisinf(T a) { float f = (float)a; return std::isinf(f) ? (f < 0 ? -1 : 1) : 0; }    \
  EMU_INL T hsqrt(T a) { return T(std::sqrt((float)a)); }                                           \
  EMU_INL T hrsqrt(T a) { return T(1.0f / std::sqrt((float)a)); }                                   \
  EMU_INL T hrcp(T a) { return T(1.0f / (float)a); }                                                \
  EMU_INL T hexp(T a) { return T(std::exp((float)a)); }                                            \
  EMU_INL T hexp2(T a) { return T(std::exp2((float)a)); }                                           \
  EMU_INL T hlog(T a) { return T(std::log((float)a)); }                                             \
  EMU_INL T hlog2(T a) { return T(std::log2((float)a)); }                                           \
  EMU_INL T hsin(T a) { return T(std::sin((float)a)); }                                             \
  EMU_INL T hcos(T a) { return T(std::cos((float)a)); }                                             \
  EMU_INL T hfloor(T a) { return T(std::floor((float)a)); }                                         \
  EMU_INL T hceil(T a) { return T(std::ceil((float)a)); }                                           \
  EMU_INL T htrunc(T a) { return T(std::trunc((float)a)); }                                         \
  EMU_INL T operator+(T a, T b) { return __hadd(a, b); }                                            \
  EMU_INL T operator-(T a, T b) { return __hsub(a, b); }                                            \
  EMU_INL T operator*(T a, T b) { return __hmul(a, b); }                                            \
  EMU_INL T operator/(T a, T b) { return __hdiv(a, b); }                                            \
  EMU_INL T operator-(T a) { return __hneg(a); }                                                    \
  EMU_INL T& operator+=(T& a, T b) { return a = __hadd(a, b); }                                     \
  EMU_INL T& operator-=(T& a, T b) { return a = __hsub(a, b); }                                     \
  EMU_INL T& operator*=(T& a, T b) { return a = __hmul(a, b); }                                     \
  EMU_INL T& operator/=(T& a, T b) { return a = __hdiv(a, b); }                                     \
  EMU_INL bool operator==(T a, T b) { return __heq(a, b); }                                         \
  EMU_INL bool operator!=(T a, T b) { return __hne(a, b); }                                         \
  EMU_INL bool operator<(T a, T b) { return __hlt(a, b); }                                          \
  EMU_INL bool operator<=(T a, T b) { return __hle(a, b); }                                         \
  EMU_INL bool operator>(T a, T b) { return __hgt(a, b); }                                          \
  EMU_INL bool operator>=(T a, T b) { return __hge(a, b); }                                         \
  EMU_INL T2 __hadd2(T2 a, T2 b) { return T2{__hadd(a.x, b.x), __hadd(a.y, b.y)}; }                 \
  EMU_INL T2 __hsub2(T2 a, T2 b) { return T2{__hsub(a.x, b.x), __hsub(a.y, b.y)}; }                 \
  EMU_INL T2 __hmul2(T2 a, T2 b) { return T2{__hmul(a.x, b.x), __hmul(a.y, b.y)}; }                 \
  EMU_INL T2 __h2div(T2 a, T2 b) { return T2{__hdiv(a.x, b.x), __hdiv(a.y, b.y)}; }                 \
  EMU_INL T2 __hfma2(T2 a, T2 b, T2 c) { return T2{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; } \
  EMU_INL T2 __hneg2(T2 a) { return T2{__hneg(a.x), __hneg(a.y)}; }                                 \
  EMU_INL T2 __hmax2(T2 a, T2 b) { return T2{__hmax(a.x, b.x), __hmax(a.y, b.y)}; }                 \
  EMU_INL T2 __hmin2(T2 a, T2 b) { return T2{__hmin(a.x, b.x), __hmin(a.y, b.y)}; }                 \
  EMU_INL T2 h2sqrt(T2 a) { return T2{hsqrt(a.x), hsqrt(a.y)}; }                                    \
  EMU_INL T2 h2exp(T2 a) { return T2{hexp(a.x), hexp(a.y)}; }                                       \
  EMU_INL T2 operator+(T2 a, T2 b) { return __hadd2(a, b); }                                        \
  EMU_INL T2 operator-(T2 a, T2 b) { return __hsub2(a, b); }                                        \
  EMU_INL T2 operator*(T2 a, T2 b) { return __hmul2(a, b); }                                        \
  EMU_INL T2 operator/(T2 a, T2 b) { return __h2div(a, b); }                                        \
  EMU_INL T2& operator+=(T2& a, T2 b) { return a = __hadd2(a, b); }                                 \
  EMU_INL T2& operator*=(T2& a, T2 b) { return a = __hmul2(a, b); }
EMU_F16_OPS(__half, __half2)
EMU_F16_OPS(__nv_bfloat16, __nv_bfloat162)
#undef EMU_F16_OPS

// ---- the rest of cuda_fp16.h / cuda_bf16.h that programs use --------------------------------
namespace emu {
// a conversion in a directed rounding mode: the nearest value, stepped one unit toward the mode
// when it lies on the wrong side of x (both formats are sign-magnitude, so a step is +-1 on the
// magnitude bits); mode 0 toward zero, -1 down, +1 up
template <class T> EMU_INL T round_dir(float x, int mode) {
  T r(x);
  unsigned short bits;
  std::memcpy(&bits, &r, 2);
  float got = (float)r;
  if (std::isnan(x) || got == x) return r;
  bool neg = (bits & 0x8000u) != 0;
  bool away = std::fabs(got) > std::fabs(x);  // rounded away from zero
  bool step = mode == 0 ? away : (mode < 0 ? got > x : got < x);
  if (!step) return r;
  bool toward_zero = mode == 0 || (mode < 0) != neg;
  if (toward_zero) bits = (unsigned short)(bits - 1u);
  else bits = (unsigned short)(bits + 1u);
  std::memcpy(&r, &bits, 2);
  return r;
}
}  // namespace emu
EMU_INL __half __float2half_rz(float f) { return emu::round_dir<__half>(f, 0); }
EMU_INL __half __float2half_rd(float f) { return emu::round_dir<__half>(f, -1); }
EMU_INL __half __float2half_ru(float f) { return emu::round_dir<__half>(f, 1); }
EMU_INL __nv_bfloat16 __float2bfloat16_rz(float f) { return emu::round_dir<__nv_bfloat16>(f, 0); }
EMU_INL __nv_bfloat16 __float2bfloat16_rd(float f) { return emu::round_dir<__nv_bfloat16>(f, -1); }
EMU_INL __nv_bfloat16 __float2bfloat16_ru(float f) { return emu::round_dir<__nv_bfloat16>(f, 1); }
EMU_INL __half2 make_half2(__half a, __half b) { return __half2{a, b}; }
EMU_INL __nv_bfloat162 make_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162{a, b}; }
EMU_INL __half __short2half_rn(short i) { return __half(i); }
EMU_INL __half __ushort2half_rn(unsigned short i) { return __half(i); }
EMU_INL __half __ll2half_rn(long long i) { return __half(i); }
EMU_INL __half __ull2half_rn(unsigned long long i) { return __half(i); }
EMU_INL short __half2short_rn(__half h) { return (short)std::nearbyint((float)h); }
EMU_INL short __half2short_rz(__half h) { return (short)(float)h; }
EMU_INL unsigned short __half2ushort_rn(__half h) { return (unsigned short)std::nearbyint((float)h); }
EMU_INL unsigned short __half2ushort_rz(__half h) { return (unsigned short)(float)h; }
EMU_INL unsigned __half2uint_rn(__half h) { return (unsigned)std::nearbyint((float)h); }
EMU_INL unsigned __half2uint_rz(__half h) { return (unsigned)(float)h; }
EMU_INL long long __half2ll_rn(__half h) { return (long long)std::nearbyint((float)h); }
EMU_INL long long __half2ll_rz(__half h) { return (long long)(float)h; }
EMU_INL __half2 __low2half2(__half2 h) { return __half2{h.x, h.x}; }
EMU_INL __half2 __high2half2(__half2 h) { return __half2{h.y, h.y}; }
EMU_INL __nv_bfloat16 __uint2bfloat16_rn(unsigned i) { return __nv_bfloat16(i); }
EMU_INL __nv_bfloat16 __short2bfloat16_rn(short i) { return __nv_bfloat16(i); }
EMU_INL __nv_bfloat16 __ll2bfloat16_rn(long long i) { return __nv_bfloat16(i); }
EMU_INL int __bfloat162int_rn(__nv_bfloat16 h) { return (int)std::nearbyint((float)h); }
EMU_INL int __bfloat162int_rz(__nv_bfloat16 h) { return (int)(float)h; }
EMU_INL int __bfloat162int_rd(__nv_bfloat16 h) { return (int)std::floor((float)h); }
EMU_INL int __bfloat162int_ru(__nv_bfloat16 h) { return (int)std::ceil((float)h); }
EMU_INL unsigned __bfloat162uint_rn(__nv_bfloat16 h) { return (unsigned)std::nearbyint((float)h); }
EMU_INL unsigned __bfloat162uint_rz(__nv_bfloat16 h) { return (unsigned)(float)h; }
EMU_INL short __bfloat162short_rn(__nv_bfloat16 h) { return (short)std::nearbyint((float)h); }
EMU_INL short __bfloat16_as_short(__nv_bfloat16 h) { return (short)h.bits; }
EMU_INL __nv_bfloat16 __short_as_bfloat16(short u) { __nv_bfloat16 h; h.bits = (unsigned short)u; return h; }
EMU_INL __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return __nv_bfloat162{a, a}; }
EMU_INL __nv_bfloat162 __float2bfloat162_rn(float f) { return __nv_bfloat162{__nv_bfloat16(f), __nv_bfloat16(f)}; }
EMU_INL __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
EMU_INL __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
EMU_INL __nv_bfloat162 __low2bfloat162(__nv_bfloat162 h) { return __nv_bfloat162{h.x, h.x}; }
EMU_INL __nv_bfloat162 __high2bfloat162(__nv_bfloat162 h) { return __nv_bfloat162{h.y, h.y}; }
EMU_INL __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162{a.x, b.x}; }
EMU_INL __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162{a.y, b.y}; }
EMU_INL __nv_bfloat162 __lowhigh2highlow(__nv_bfloat162 h) { return __nv_bfloat162{h.y, h.x}; }

// saturation to [0, 1] (NaN to 0), the _sat forms; fused/unrounded _rn forms round once as the rest
#define EMU_F16_MORE(T, T2)                                                                         \
  EMU_INL T emu_sat(T a) { float f = (float)a; return T(f > 0.0f ? (f < 1.0f ? f : 1.0f) : 0.0f); } \
  EMU_INL T __hadd_sat(T a, T b) { return emu_sat(__hadd(a, b)); }                                  \
  EMU_INL T __hsub_sat(T a, T b) { return emu_sat(__hsub(a, b)); }                                  \
  EMU_INL T __hmul_sat(T a, T b) { return emu_sat(__hmul(a, b)); }                                  \
  EMU_INL T __hfma_sat(T a, T b, T c) { return emu_sat(__hfma(a, b, c)); }                          \
  EMU_INL T __hfma_relu(T a, T b, T c) { T r = __hfma(a, b, c); return (float)r < 0.0f ? T(0.0f) : r; } \
  EMU_INL T __hadd_rn(T a, T b) { return __hadd(a, b); }                                            \
  EMU_INL T __hsub_rn(T a, T b) { return __hsub(a, b); }                                            \
  EMU_INL T __hmul_rn(T a, T b) { return __hmul(a, b); }                                            \
  EMU_INL T __hmax_nan(T a, T b) { return __hisnan(a) ? a : (__hisnan(b) ? b : __hmax(a, b)); }     \
  EMU_INL T __hmin_nan(T a, T b) { return __hisnan(a) ? a : (__hisnan(b) ? b : __hmin(a, b)); }     \
  EMU_INL bool __hequ(T a, T b) { return __hisnan(a) || __hisnan(b) || __heq(a, b); }              \
  EMU_INL bool __hneu(T a, T b) { return !((float)a == (float)b); }                                 \
  EMU_INL bool __hltu(T a, T b) { return !((float)a >= (float)b); }                                 \
  EMU_INL bool __hleu(T a, T b) { return !((float)a > (float)b); }                                  \
  EMU_INL bool __hgtu(T a, T b) { return !((float)a <= (float)b); }                                 \
  EMU_INL bool __hgeu(T a, T b) { return !((float)a < (float)b); }                                  \
  EMU_INL T hlog10(T a) { return T(std::log10((float)a)); }                                         \
  EMU_INL T hexp10(T a) { return T(std::pow(10.0f, (float)a)); }                                    \
  EMU_INL T hrint(T a) { return T(std::nearbyint((float)a)); }                                      \
  EMU_INL T htanh(T a) { return T(std::tanh((float)a)); }                                           \
  EMU_INL T htanh_approx(T a) { return htanh(a); }                                                  \
  EMU_INL T& operator++(T& a) { return a = __hadd(a, T(1.0f)); }                                    \
  EMU_INL T& operator--(T& a) { return a = __hsub(a, T(1.0f)); }                                    \
  EMU_INL T operator++(T& a, int) { T o = a; ++a; return o; }                                       \
  EMU_INL T operator--(T& a, int) { T o = a; --a; return o; }                                       \
  EMU_INL T operator+(T a) { return a; }                                                            \
  EMU_INL T2 emu_lanes(T2 a, T (*f)(T)) { return T2{f(a.x), f(a.y)}; }                              \
  EMU_INL T2 emu_lanes(T2 a, T2 b, T (*f)(T, T)) { return T2{f(a.x, b.x), f(a.y, b.y)}; }           \
  EMU_INL T2 emu_cmp(T2 a, T2 b, bool (*f)(T, T)) {                                                 \
    return T2{T(f(a.x, b.x) ? 1.0f : 0.0f), T(f(a.y, b.y) ? 1.0f : 0.0f)};                          \
  }                                                                                                 \
  EMU_INL T2 __habs2(T2 a) { return emu_lanes(a, __habs); }                                         \
  EMU_INL T2 __hadd2_sat(T2 a, T2 b) { return emu_lanes(a, b, __hadd_sat); }                        \
  EMU_INL T2 __hsub2_sat(T2 a, T2 b) { return emu_lanes(a, b, __hsub_sat); }                        \
  EMU_INL T2 __hmul2_sat(T2 a, T2 b) { return emu_lanes(a, b, __hmul_sat); }                        \
  EMU_INL T2 __hadd2_rn(T2 a, T2 b) { return __hadd2(a, b); }                                       \
  EMU_INL T2 __hmul2_rn(T2 a, T2 b) { return __hmul2(a, b); }                                       \
  EMU_INL T2 __hfma2_sat(T2 a, T2 b, T2 c) { return T2{__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y)}; } \
  EMU_INL T2 __hfma2_relu(T2 a, T2 b, T2 c) { return T2{__hfma_relu(a.x, b.x, c.x), __hfma_relu(a.y, b.y, c.y)}; } \
  EMU_INL T2 __hmax2_nan(T2 a, T2 b) { return emu_lanes(a, b, __hmax_nan); }                        \
  EMU_INL T2 __hmin2_nan(T2 a, T2 b) { return emu_lanes(a, b, __hmin_nan); }                        \
  EMU_INL T2 __hcmadd(T2 a, T2 b, T2 c) {  /* complex a*b + c, (x real, y imaginary) */              \
    return T2{T(std::fma(-(float)a.y, (float)b.y, std::fma((float)a.x, (float)b.x, (float)c.x))),    \
              T(std::fma((float)a.y, (float)b.x, std::fma((float)a.x, (float)b.y, (float)c.y)))};   \
  }                                                                                                 \
  EMU_INL T2 __heq2(T2 a, T2 b) { return emu_cmp(a, b, __heq); }                                    \
  EMU_INL T2 __hne2(T2 a, T2 b) { return emu_cmp(a, b, __hne); }                                    \
  EMU_INL T2 __hlt2(T2 a, T2 b) { return emu_cmp(a, b, __hlt); }                                    \
  EMU_INL T2 __hle2(T2 a, T2 b) { return emu_cmp(a, b, __hle); }                                    \
  EMU_INL T2 __hgt2(T2 a, T2 b) { return emu_cmp(a, b, __hgt); }                                    \
  EMU_INL T2 __hge2(T2 a, T2 b) { return emu_cmp(a, b, __hge); }                                    \
  EMU_INL bool __hbeq2(T2 a, T2 b) { return __heq(a.x, b.x) && __heq(a.y, b.y); }                  \
  EMU_INL bool __hbne2(T2 a, T2 b) { return __hne(a.x, b.x) && __hne(a.y, b.y); }                  \
  EMU_INL bool __hblt2(T2 a, T2 b) { return __hlt(a.x, b.x) && __hlt(a.y, b.y); }                  \
  EMU_INL bool __hble2(T2 a, T2 b) { return __hle(a.x, b.x) && __hle(a.y, b.y); }                  \
  EMU_INL bool __hbgt2(T2 a, T2 b) { return __hgt(a.x, b.x) && __hgt(a.y, b.y); }                  \
  EMU_INL bool __hbge2(T2 a, T2 b) { return __hge(a.x, b.x) && __hge(a.y, b.y); }                  \
  EMU_INL T2 __hisnan2(T2 a) { return T2{T(__hisnan(a.x) ? 1.0f : 0.0f), T(__hisnan(a.y) ? 1.0f : 0.0f)}; } \
  EMU_INL T2 h2rsqrt(T2 a) { return emu_lanes(a, hrsqrt); }                                         \
  EMU_INL T2 h2rcp(T2 a) { return emu_lanes(a, hrcp); }                                             \
  EMU_INL T2 h2exp2(T2 a) { return emu_lanes(a, hexp2); }                                           \
  EMU_INL T2 h2exp10(T2 a) { return emu_lanes(a, hexp10); }                                         \
  EMU_INL T2 h2log(T2 a) { return emu_lanes(a, hlog); }                                             \
  EMU_INL T2 h2log2(T2 a) { return emu_lanes(a, hlog2); }                                           \
  EMU_INL T2 h2log10(T2 a) { return emu_lanes(a, hlog10); }                                         \
  EMU_INL T2 h2sin(T2 a) { return emu_lanes(a, hsin); }                                             \
  EMU_INL T2 h2cos(T2 a) { return emu_lanes(a, hcos); }                                             \
  EMU_INL T2 h2floor(T2 a) { return emu_lanes(a, hfloor); }                                         \
  EMU_INL T2 h2ceil(T2 a) { return emu_lanes(a, hceil); }                                           \
  EMU_INL T2 h2trunc(T2 a) { return emu_lanes(a, htrunc); }                                         \
  EMU_INL T2 h2rint(T2 a) { return emu_lanes(a, hrint); }                                           \
  EMU_INL T2 h2tanh(T2 a) { return emu_lanes(a, htanh); }                                           \
  EMU_INL T2 h2tanh_approx(T2 a) { return emu_lanes(a, htanh); }                                    \
  EMU_INL T2 operator-(T2 a) { return __hneg2(a); }                                                 \
  EMU_INL T2 operator+(T2 a) { return a; }                                                          \
  EMU_INL T2& operator-=(T2& a, T2 b) { return a = __hsub2(a, b); }                                 \
  EMU_INL T2& operator/=(T2& a, T2 b) { return a = __h2div(a, b); }                                 \
  EMU_INL bool operator==(T2 a, T2 b) { return __hbeq2(a, b); }                                     \
  EMU_INL bool operator!=(T2 a, T2 b) { return __hbne2(a, b); }
EMU_F16_MORE(__half, __half2)
EMU_F16_MORE(__nv_bfloat16, __nv_bfloat162)
#undef EMU_F16_MORE
