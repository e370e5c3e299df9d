// rocm-port `port emulate`, part of emu_runtime.h: the helpers that inline PTX is translated to
// (porting/emulate/ptx.py writes each recognised instruction as a call on these). Semantics
// follow the PTX ISA's pseudocode; warp instructions go through the emulator's collectives.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include "emu_device.h"

namespace emu {
namespace ptx {
// A register read or written at another type: same-size int<->float moves the bits (PTX's
// untyped .b registers), anything else converts as C++ does (truncating wider integers).
template <class T, class S> EMU_INL T rd(const S& s) {
  if constexpr (std::is_pointer<S>::value) {
    return (T)(uintptr_t)s;
  } else if constexpr (sizeof(T) == sizeof(S) && std::is_floating_point<T>::value != std::is_floating_point<S>::value) {
    T t;
    std::memcpy(&t, &s, sizeof t);
    return t;
  } else {
    return (T)s;
  }
}
template <class D, class T> EMU_INL void wr(D& d, const T& v) {
  if constexpr (std::is_pointer<D>::value) {
    d = (D)(uintptr_t)v;
  } else {
    d = rd<D>(v);
  }
}
template <class A> EMU_INL void* addr(const A& a) {
  if constexpr (std::is_pointer<A>::value) return (void*)a;
  else return (void*)(uintptr_t)a;
}

EMU_INL uint32_t linear_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
EMU_INL uint32_t laneid() { return linear_tid() % EMU_WARP; }
EMU_INL uint32_t warpid() { return linear_tid() / EMU_WARP; }
EMU_INL uint32_t nwarpid() { return (blockDim.x * blockDim.y * blockDim.z + EMU_WARP - 1) / EMU_WARP; }
// %lanemask_*: eq, lt, le, gt, ge over the emulated warp; a 32-bit register keeps the low half
EMU_INL uint64_t lanemask(int which) {
  const uint64_t bit = 1ull << laneid(), below = bit - 1, full = emu::kFull;
  switch (which) {
    case 0: return bit;
    case 1: return below;
    case 2: return below | bit;
    case 3: return full & ~(below | bit);
    default: return full & ~below;
  }
}

template <class T> constexpr int bits = 8 * sizeof(T);
template <class T> EMU_INL T bfe(T a, uint32_t b, uint32_t c) {
  using U = std::make_unsigned_t<T>;
  const uint32_t msb = bits<T> - 1, pos = b & 0xff, len = c & 0xff;
  const U ua = (U)a;
  U sbit = 0;
  if (std::is_signed<T>::value && len != 0) sbit = (ua >> std::min(pos + len - 1, msb)) & 1;
  U d = 0;
  for (uint32_t i = 0; i <= msb; ++i) {
    const U bit = (i < len && pos + i <= msb) ? (ua >> (pos + i)) & 1 : sbit;
    d |= bit << i;
  }
  return (T)d;
}
template <class T> EMU_INL T bfi(T f, T b, uint32_t c, uint32_t e) {
  const uint32_t msb = bits<T> - 1, pos = c & 0xff, len = e & 0xff;
  T d = b;
  for (uint32_t i = 0; i < len && pos + i <= msb; ++i) {
    const T one = 1;
    d = (T)((d & ~(one << (pos + i))) | (((f >> i) & one) << (pos + i)));
  }
  return d;
}
// prmt.b32 default mode: selector nibble bits 0-2 pick a byte of {b, a}, bit 3 replicates its sign
EMU_INL uint32_t prmt(uint32_t a, uint32_t b, uint32_t c) {
  const uint64_t v = ((uint64_t)b << 32) | a;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    const uint32_t sel = (c >> (4 * i)) & 0xf;
    uint32_t byte = (uint32_t)(v >> (8 * (sel & 7))) & 0xff;
    if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
    r |= byte << (8 * i);
  }
  return r;
}
template <class T> EMU_INL T brev(T a) {
  using U = std::make_unsigned_t<T>;
  U r = 0;
  for (int i = 0; i < bits<T>; ++i) r |= (U)(((U)a >> i) & 1) << (bits<T> - 1 - i);
  return (T)r;
}
template <class T> EMU_INL uint32_t popc(T a) { return (uint32_t)__builtin_popcountll((std::make_unsigned_t<T>)a); }
template <class T> EMU_INL uint32_t clz(T a) {
  const uint64_t u = (std::make_unsigned_t<T>)a;
  return u == 0 ? bits<T> : (uint32_t)(__builtin_clzll(u) - (64 - bits<T>));
}
// bfind: the position of the most significant non-sign bit; 0xffffffff when there is none
template <class T> EMU_INL uint32_t bfind(T a, bool shiftamt) {
  using U = std::make_unsigned_t<T>;
  U u = (U)a;
  if (std::is_signed<T>::value && a < 0) u = ~u;
  if (u == 0) return 0xffffffffu;
  const uint32_t pos = 63 - __builtin_clzll((uint64_t)u);
  return shiftamt ? bits<T> - 1 - pos : pos;
}
template <class T> EMU_INL T lop3(T a, T b, T c, uint32_t lut) {
  using U = std::make_unsigned_t<T>;
  U r = 0;
  for (int i = 0; i < 8; ++i)
    if (lut & (1u << i)) r |= ((i & 4) ? (U)a : (U)~(U)a) & ((i & 2) ? (U)b : (U)~(U)b) & ((i & 1) ? (U)c : (U)~(U)c);
  return (T)r;
}
template <class T> EMU_INL T mul_lo(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return (T)(U)((U)a * (U)b);
}
template <class T> EMU_INL T mul_hi(T a, T b) {
  using W = std::conditional_t<std::is_signed<T>::value, __int128, unsigned __int128>;
  return (T)(((W)a * (W)b) >> bits<T>);
}
// add.cc/addc and sub.cc/subc: the carry (borrow) flag lives in the asm block's emu_cc
template <class U> EMU_INL U add_cc(U a, U b, uint32_t cin, uint32_t& cc, bool sets) {
  const unsigned __int128 s = (unsigned __int128)a + b + cin;
  if (sets) cc = (uint32_t)(s >> bits<U>) & 1;
  return (U)s;
}
template <class U> EMU_INL U sub_cc(U a, U b, uint32_t cin, uint32_t& cc, bool sets) {
  const unsigned __int128 sub = (unsigned __int128)b + cin;
  if (sets) cc = (unsigned __int128)a < sub ? 1 : 0;
  return (U)(a - b - cin);
}
template <class T> EMU_INL T shl(T a, uint32_t n) {
  using U = std::make_unsigned_t<T>;
  return n >= (uint32_t)bits<T> ? (T)0 : (T)((U)a << n);
}
template <class T> EMU_INL T shr(T a, uint32_t n) {
  if (n >= (uint32_t)bits<T>) return std::is_signed<T>::value && a < 0 ? (T)-1 : (T)0;
  return (T)(a >> n);
}
EMU_INL uint32_t shf(uint32_t a, uint32_t b, uint32_t c, bool left, bool clamp) {
  const uint32_t n = clamp ? (c > 32 ? 32 : c) : (c & 31);
  const uint64_t v = ((uint64_t)b << 32) | a;
  return left ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
}
template <class T> EMU_INL T iabs(T a) {
  using U = std::make_unsigned_t<T>;
  return a < 0 ? (T)(U)(0 - (U)a) : a;
}
// float to integer: PTX saturates out-of-range values and maps NaN to 0
template <class D, class F> EMU_INL D f2i(F f) {
  if (std::isnan(f)) return 0;
  if (f <= (F)std::numeric_limits<D>::min()) return std::numeric_limits<D>::min();
  if (f >= (F)std::numeric_limits<D>::max()) return std::numeric_limits<D>::max();
  return (D)f;
}
template <class F> EMU_INL F sat01(F f) { return std::isnan(f) ? (F)0 : f < 0 ? (F)0 : f > 1 ? (F)1 : f; }

// warp instructions: c of shfl packs the segment mask (bits 8-12) and the clamp (bits 0-4)
EMU_INL uint32_t shfl(int synced, int op, uint64_t mask, uint32_t a, uint32_t b, uint32_t c, EMU_SITE) {
  const uint32_t seg = (c >> 8) & 0x1f;
  const int width = seg == 0 ? EMU_WARP : 32 - (int)seg;
  return emu::exchange(synced ? "shfl.sync" : "shfl", op, synced, mask, a, (int)b, width, EMU_SITE_ARGS);
}
EMU_INL uint64_t ballot(int synced, uint64_t mask, bool p, EMU_SITE) {
  return emu::vote(synced ? "vote.sync.ballot" : "vote.ballot", emu::BALLOT, synced, mask, p, EMU_SITE_ARGS);
}
EMU_INL bool vote_any(int synced, uint64_t mask, bool p, EMU_SITE) {
  return emu::vote(synced ? "vote.sync.any" : "vote.any", emu::ANY, synced, mask, p, EMU_SITE_ARGS) != 0;
}
EMU_INL bool vote_all(int synced, uint64_t mask, bool p, EMU_SITE) {
  return emu::vote(synced ? "vote.sync.all" : "vote.all", emu::ALL, synced, mask, p, EMU_SITE_ARGS) != 0;
}
EMU_INL bool vote_uni(int synced, uint64_t mask, bool p, EMU_SITE) {
  const bool all = vote_all(synced, mask, p, EMU_SITE_ARGS);
  return all || !vote_any(synced, mask, p, EMU_SITE_ARGS);
}

// ---- the shared window --------------------------------------------------------------------------
// PTX's .shared addresses are offsets in a 32-bit window (cvta.to.shared, __cvta_generic_to_shared).
// Here every block's shared memory is a static of the program (and the runtime's dynamic_shared
// buffer), all in one executable image, so a window address is the signed distance from
// dynamic_shared: it fits in 32 bits, survives the program's own offset arithmetic, and maps
// back exactly. A .shared access whose address is 2^32 or more is a generic pointer used as is
// (the form `"l"(smem_ptr)` that compiles to the same access on NVIDIA's toolchain).
EMU_INL uint64_t to_shared(const void* p) {
  const int64_t d = (const unsigned char*)p - ::emu::dynamic_shared;
  if (d < INT32_MIN || d > INT32_MAX) ::emu::fault("cvta.to.shared: the address is not in shared memory");
  return (uint64_t)(uint32_t)(int32_t)d;
}
template <class A> EMU_INL void* saddr(const A& a) {
  if constexpr (std::is_pointer<A>::value) {
    return (void*)a;
  } else {
    const uint64_t v = (uint64_t)a;
    if (v >> 32) return (void*)(uintptr_t)v;
    return (void*)(::emu::dynamic_shared + (int32_t)(uint32_t)v);
  }
}
// cp.async as a synchronous copy: the data is in place when the instruction returns, so
// commit_group / wait_group / wait_all have nothing left to wait for. A source size below the
// copy size zero-fills the rest, as the ISA says.
EMU_INL void cp_async(void* dst, const void* src, uint32_t size, uint32_t src_size) {
  const uint32_t n = src_size < size ? src_size : size;
  std::memcpy(dst, src, n);
  std::memset((char*)dst + n, 0, size - n);
}

// ---- .f16 / .f16x2 math (ex2, tanh, ...: computed in float, rounded to half) ---------------------
template <class Fn> EMU_INL uint16_t f16(uint16_t h, Fn fn) {
  _Float16 x;
  std::memcpy(&x, &h, 2);
  const _Float16 r = (_Float16)fn((float)x);
  uint16_t out;
  std::memcpy(&out, &r, 2);
  return out;
}
template <class Fn> EMU_INL uint32_t f16x2(uint32_t v, Fn fn) {
  return (uint32_t)f16((uint16_t)(v & 0xffff), fn) | ((uint32_t)f16((uint16_t)(v >> 16), fn) << 16);
}

// ---- video instructions (the forms met in real programs) ----------------------------------------
// vabsdiff4.u32.u32.u32.add d, a, b, c: the four byte-wise |a - b| summed, plus c
EMU_INL uint32_t vabsdiff4_add(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t sum = c;
  for (int i = 0; i < 32; i += 8) {
    const int x = (int)((a >> i) & 0xff), y = (int)((b >> i) & 0xff);
    sum += (uint32_t)(x > y ? x - y : y - x);
  }
  return sum;
}
// vshr.u32.u32.u32.{clamp,wrap}.add d, a, b, c: (a >> b) + c, the shift clamped to 32 or wrapped mod 32
EMU_INL uint32_t vshr_add(uint32_t a, uint32_t b, uint32_t c, bool clamp) {
  const uint32_t n = clamp ? (b > 32 ? 32 : b) : (b & 31);
  return (n >= 32 ? 0u : a >> n) + c;
}
}  // namespace ptx
}  // namespace emu

// CUDA's address-space conversions, on the window above
EMU_INL size_t __cvta_generic_to_shared(const void* p) { return (size_t)::emu::ptx::to_shared(p); }
EMU_INL void* __cvta_shared_to_generic(size_t a) { return ::emu::ptx::saddr((uint64_t)a); }
