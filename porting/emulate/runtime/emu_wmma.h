// rocm-port `port emulate`: tensor-core WMMA (<mma.h>, nvcuda::wmma) on the CPU.
//
// A fragment is a warp collective object: CUDA leaves which lane holds which element of the tile
// opaque, and so does this emulation, with one fixed choice (docs/emulate.md): element i of lane
// l is the tile's element l + EMU_WARP * i in row-major order (rows x cols of the fragment's
// matrix: M x K for matrix_a, K x N for matrix_b, M x N for the accumulator), so a fragment
// holds ceil(rows * cols / EMU_WARP) elements per lane. At 64 lanes one tile is spread over the
// whole wavefront, as rocWMMA does with wave64 (one tile per wavefront), not one per 32 lanes.
//
// Every operation is a warp collective and checks what the hardware needs: all lanes of the
// warp take part (a block of 32 threads leaves half of a 64-lane wavefront out), and all pass
// the same pointer, ldm and layout (one tile per 32-lane warp at 64 lanes passes two). Either
// stops the run naming the call, instead of computing half a tile. mma_sync gathers the tiles
// through a per-warp scratch between two warp barriers and computes each lane's elements of D
// in a fixed order (products in float, double or int; NVIDIA's summation order is
// undocumented), so the result does not depend on the warp width.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include "emu_device.h"
#include "emu_fp16.h"

namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
namespace precision {
struct tf32 {};
}  // namespace precision

namespace detail {
template <class T> struct storage { using type = T; };
template <> struct storage<precision::tf32> { using type = float; };
// what products and sums are computed in
template <class T> struct compute { using type = float; };
template <> struct compute<double> { using type = double; };
template <> struct compute<signed char> { using type = int; };
template <> struct compute<unsigned char> { using type = int; };
template <> struct compute<int> { using type = int; };

template <class Use, int M, int N, int K> struct dims;
template <int M, int N, int K> struct dims<matrix_a, M, N, K> { static constexpr int rows = M, cols = K; };
template <int M, int N, int K> struct dims<matrix_b, M, N, K> { static constexpr int rows = K, cols = N; };
template <int M, int N, int K> struct dims<accumulator, M, N, K> { static constexpr int rows = M, cols = N; };

template <class Shape> constexpr bool supported_shape = false;
template <int M, int N, int K> struct shape {};
template <> constexpr bool supported_shape<shape<16, 16, 16>> = true;
template <> constexpr bool supported_shape<shape<32, 8, 16>> = true;
template <> constexpr bool supported_shape<shape<8, 32, 16>> = true;
template <> constexpr bool supported_shape<shape<16, 16, 8>> = true;   // tf32
template <> constexpr bool supported_shape<shape<8, 8, 4>> = true;     // double

inline uint32_t linear_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline int lane() { return (int)(linear_tid() % EMU_WARP); }
inline int warp() { return (int)(linear_tid() / EMU_WARP); }

[[noreturn]] inline void fail(const char* call, const char* why) {
  char buf[400];
  std::snprintf(buf, sizeof buf, "wmma::%s: %s", call, why);
  emu::fault(buf);
}

// The whole warp must take part: tensor-core operations are warp-wide on both vendors.
inline void require_full_warp(const char* call, const char* file, int line) {
  const unsigned long long active = emu::vote(call, emu::ACTIVEMASK, 0, 0, 1, file, line);
  if ((active & emu::kFull) != emu::kFull) {
    char why[300];
    std::snprintf(why, sizeof why,
                  "only %d of the %d lanes of the warp take part (a tile is spread over the whole %d-lane warp; "
                  "a block or branch of 32 threads per tile leaves lanes out at 64)",
                  __builtin_popcountll(active & emu::kFull), EMU_WARP, EMU_WARP);
    fail(call, why);
  }
}

struct Access {
  uintptr_t ptr;
  unsigned ldm;
  int layout;
};
// All lanes must name the same tile: compared with lane 0's through a shuffle.
inline void require_uniform(const char* call, const Access& mine, const char* file, int line) {
  const Access first = emu::exchange(call, emu::SHFL_IDX, 1, emu::kFull, mine, 0, EMU_WARP, file, line);
  if (first.ptr != mine.ptr || first.ldm != mine.ldm || first.layout != mine.layout) {
    char why[300];
    std::snprintf(why, sizeof why,
                  "lane %d passes a different pointer, ldm or layout than lane 0 (one tile per 32-lane warp "
                  "meets one %d-lane warp)", lane(), EMU_WARP);
    fail(call, why);
  }
}

inline size_t offset(int r, int c, unsigned ldm, bool row_major) {
  return row_major ? (size_t)r * ldm + (size_t)c : (size_t)c * ldm + (size_t)r;
}

}  // namespace detail

template <class Use, int M, int N, int K, class T, class Layout = void>
class fragment {
  static_assert(detail::supported_shape<detail::shape<M, N, K>>,
                "port emulate: this WMMA shape is not emulated (16x16x16, 32x8x16, 8x32x16, 16x16x8, 8x8x4)");

 public:
  using element_type = T;
  using storage_element_type = typename detail::storage<T>::type;
  static constexpr int rows = detail::dims<Use, M, N, K>::rows, cols = detail::dims<Use, M, N, K>::cols;
  enum { num_elements = (rows * cols + EMU_WARP - 1) / EMU_WARP, num_storage_elements = num_elements };
  storage_element_type x[num_elements];
};

template <class Use, int M, int N, int K, class T, class L, class V>
inline void fill_fragment(fragment<Use, M, N, K, T, L>& f, const V& v) {
  for (int i = 0; i < f.num_elements; ++i) f.x[i] = (typename fragment<Use, M, N, K, T, L>::storage_element_type)v;
}

namespace detail {
template <class F, class P>
inline void load(const char* call, F& f, const P* p, unsigned ldm, bool row_major, const char* file, int line) {
  require_full_warp(call, file, line);
  require_uniform(call, Access{(uintptr_t)p, ldm, row_major}, file, line);
  for (int i = 0; i < F::num_elements; ++i) {
    const int e = lane() + EMU_WARP * i;
    if (e >= F::rows * F::cols) break;
    f.x[i] = (typename F::storage_element_type)p[offset(e / F::cols, e % F::cols, ldm, row_major)];
  }
}
template <class L> constexpr bool is_row = std::is_same<L, row_major>::value;
}  // namespace detail

template <class Use, int M, int N, int K, class T, class L, class P>
inline void load_matrix_sync(fragment<Use, M, N, K, T, L>& f, const P* p, unsigned ldm, EMU_SITE) {
  static_assert(!std::is_same<Use, accumulator>::value, "an accumulator's load_matrix_sync takes a layout_t");
  detail::load("load_matrix_sync", f, p, ldm, detail::is_row<L>, EMU_SITE_ARGS);
}
template <int M, int N, int K, class T, class P>
inline void load_matrix_sync(fragment<accumulator, M, N, K, T>& f, const P* p, unsigned ldm, layout_t layout, EMU_SITE) {
  detail::load("load_matrix_sync", f, p, ldm, layout == mem_row_major, EMU_SITE_ARGS);
}
template <int M, int N, int K, class T, class P>
inline void store_matrix_sync(P* p, const fragment<accumulator, M, N, K, T>& f, unsigned ldm, layout_t layout, EMU_SITE) {
  using F = fragment<accumulator, M, N, K, T>;
  detail::require_full_warp("store_matrix_sync", EMU_SITE_ARGS);
  detail::require_uniform("store_matrix_sync", detail::Access{(uintptr_t)p, ldm, layout == mem_row_major}, EMU_SITE_ARGS);
  for (int i = 0; i < F::num_elements; ++i) {
    const int e = detail::lane() + EMU_WARP * i;
    if (e >= F::rows * F::cols) break;
    p[detail::offset(e / F::cols, e % F::cols, ldm, layout == mem_row_major)] = (P)f.x[i];
  }
}

namespace detail {
constexpr int kMaxWarps = 1024 / EMU_WARP;
// One warp's tiles while mma_sync runs (the fibers of a block share one host thread).
template <class S, int Size> inline S* scratch(int which) {
  thread_local S tiles[3][kMaxWarps][Size];
  return tiles[which][warp() % kMaxWarps];
}
template <class F, class S> inline void publish(const F& f, S* tile) {
  for (int i = 0; i < F::num_elements; ++i) {
    const int e = lane() + EMU_WARP * i;
    if (e < F::rows * F::cols) tile[e] = (S)f.x[i];
  }
}
template <class C, class D> inline D finish(C sum, bool satf) {
  if constexpr (std::is_floating_point<C>::value) {
    if (satf) {
      if (std::isnan(sum)) sum = 0;
      const C top = (C)std::numeric_limits<float>::max();
      sum = sum > top ? top : sum < -top ? -top : sum;
    }
  }
  return (D)sum;
}
}  // namespace detail

template <int M, int N, int K, class TA, class LA, class TB, class LB, class TC, class TD>
inline void mma_sync(fragment<accumulator, M, N, K, TD>& d, const fragment<matrix_a, M, N, K, TA, LA>& a,
                     const fragment<matrix_b, M, N, K, TB, LB>& b, const fragment<accumulator, M, N, K, TC>& c,
                     bool satf = false, EMU_SITE) {
  using C = typename detail::compute<TD>::type;
  constexpr int Size = (M * K > K * N ? (M * K > M * N ? M * K : M * N) : (K * N > M * N ? K * N : M * N));
  detail::require_full_warp("mma_sync", EMU_SITE_ARGS);
  C* ta = detail::scratch<C, Size>(0);
  C* tb = detail::scratch<C, Size>(1);
  C* tc = detail::scratch<C, Size>(2);
  detail::publish(a, ta);
  detail::publish(b, tb);
  detail::publish(c, tc);
  emu::vote("mma_sync", emu::SYNCWARP, 1, emu::kFull, 1, EMU_SITE_ARGS);   // every lane's part is in
  using D = fragment<accumulator, M, N, K, TD>;
  for (int i = 0; i < D::num_elements; ++i) {
    const int e = detail::lane() + EMU_WARP * i;
    if (e >= M * N) break;
    const int r = e / N, col = e % N;
    C sum = 0;
    for (int k = 0; k < K; ++k) sum += ta[r * K + k] * tb[k * N + col];
    d.x[i] = detail::finish<C, typename D::storage_element_type>(sum + tc[e], satf);
  }
  emu::vote("mma_sync", emu::SYNCWARP, 1, emu::kFull, 1, EMU_SITE_ARGS);   // no lane reuses the scratch early
}

// Rounds to tf32 (10 mantissa bits, to nearest, ties away from zero as cvt.rna.tf32.f32 does);
// the value stays a float.
inline float __float_to_tf32(float f) {
  if (!std::isfinite(f)) return f;
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u = (u + 0x1000u) & ~0x1fffu;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace wmma
}  // namespace nvcuda
