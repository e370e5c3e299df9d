// rocm-port `port emulate`: the commonly used subset of cuBLAS (v2 API), computed on the CPU.
//
// Reached through the <cublas_v2.h> / <cublas_api.h> shims. Device memory is host memory here,
// so every routine reads its operands in place, column-major as cuBLAS does, and accumulates in
// a fixed order: the results are the same at every warp width (cuBLAS on a GPU may sum in
// another order, so the last bits of a float result can differ from a GPU's; a program is
// compared with itself at 32 and 64 lanes, not with a GPU). Scalars are read through their
// pointers whatever the pointer mode, since host and device pointers are the same memory.
// Routines beyond this subset fail the compile, named (porting.emulate.build.explain_compile_error).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include "emu_fp16.h"
// the toolkit's include guard: cuda-samples' helper_cuda.h names cublasStatus_t values #ifdef CUBLAS_API_H_
#define CUBLAS_API_H_

enum cublasStatus_t {
  CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_ARCH_MISMATCH = 8, CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13, CUBLAS_STATUS_INTERNAL_ERROR = 14, CUBLAS_STATUS_NOT_SUPPORTED = 15,
  CUBLAS_STATUS_LICENSE_ERROR = 16
};
enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 };
enum cublasPointerMode_t { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 };
enum cublasAtomicsMode_t { CUBLAS_ATOMICS_NOT_ALLOWED = 0, CUBLAS_ATOMICS_ALLOWED = 1 };
enum cublasMath_t {
  CUBLAS_DEFAULT_MATH = 0, CUBLAS_TENSOR_OP_MATH = 1, CUBLAS_PEDANTIC_MATH = 2, CUBLAS_TF32_TENSOR_OP_MATH = 3,
  CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16
};
enum cublasFillMode_t { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1, CUBLAS_FILL_MODE_FULL = 2 };
enum cublasDiagType_t { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 };
enum cublasSideMode_t { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 };
enum cublasGemmAlgo_t { CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_DFALT = -1, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99,
                        CUBLAS_GEMM_DFALT_TENSOR_OP = 99 };
enum cublasComputeType_t {
  CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_16F_PEDANTIC = 65, CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_PEDANTIC = 69,
  CUBLAS_COMPUTE_32F_FAST_16F = 74, CUBLAS_COMPUTE_32F_FAST_16BF = 75, CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
  CUBLAS_COMPUTE_64F = 70, CUBLAS_COMPUTE_64F_PEDANTIC = 71, CUBLAS_COMPUTE_32I = 72, CUBLAS_COMPUTE_32I_PEDANTIC = 73
};
#ifndef EMU_CUDA_DATA_TYPE
#define EMU_CUDA_DATA_TYPE
enum cudaDataType_t {
  CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_8I = 3, CUDA_C_32F = 4, CUDA_C_64F = 5, CUDA_C_16F = 6,
  CUDA_R_32I = 10, CUDA_R_16BF = 14
};
typedef cudaDataType_t cudaDataType;
#endif
#define CUBLAS_VER_MAJOR 12
#define CUBLAS_VER_MINOR 0
#define CUBLAS_VERSION 12000

struct emu_cublas { cudaStream_t stream; cublasPointerMode_t pointer_mode; cublasMath_t math; };
typedef emu_cublas* cublasHandle_t;

inline cublasStatus_t cublasCreate(cublasHandle_t* h) {
  *h = new emu_cublas{nullptr, CUBLAS_POINTER_MODE_HOST, CUBLAS_DEFAULT_MATH};
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasDestroy(cublasHandle_t h) { delete h; return CUBLAS_STATUS_SUCCESS; }
inline cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s) { h->stream = s; return CUBLAS_STATUS_SUCCESS; }
inline cublasStatus_t cublasGetStream(cublasHandle_t h, cudaStream_t* s) { *s = h->stream; return CUBLAS_STATUS_SUCCESS; }
inline cublasStatus_t cublasSetPointerMode(cublasHandle_t h, cublasPointerMode_t m) { h->pointer_mode = m; return CUBLAS_STATUS_SUCCESS; }
inline cublasStatus_t cublasGetPointerMode(cublasHandle_t h, cublasPointerMode_t* m) { *m = h->pointer_mode; return CUBLAS_STATUS_SUCCESS; }
inline cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t m) { h->math = m; return CUBLAS_STATUS_SUCCESS; }
inline cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t* m) { *m = h->math; return CUBLAS_STATUS_SUCCESS; }
inline cublasStatus_t cublasSetAtomicsMode(cublasHandle_t, cublasAtomicsMode_t) { return CUBLAS_STATUS_SUCCESS; }
inline cublasStatus_t cublasSetWorkspace(cublasHandle_t, void*, size_t) { return CUBLAS_STATUS_SUCCESS; }
inline cublasStatus_t cublasGetVersion(cublasHandle_t, int* v) { *v = CUBLAS_VERSION; return CUBLAS_STATUS_SUCCESS; }
inline const char* cublasGetStatusName(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_INTERNAL_ERROR";
  }
}
inline const char* cublasGetStatusString(cublasStatus_t s) { return cublasGetStatusName(s); }

// ---- moving vectors and matrices (memcpy with strides) ----------------------------------------
inline cublasStatus_t cublasSetVector(int n, int elem, const void* x, int incx, void* y, int incy) {
  if (n < 0 || elem <= 0 || incx == 0 || incy == 0) return CUBLAS_STATUS_INVALID_VALUE;
  for (int i = 0; i < n; ++i)
    std::memcpy(static_cast<char*>(y) + size_t(i) * incy * elem, static_cast<const char*>(x) + size_t(i) * incx * elem, elem);
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasGetVector(int n, int elem, const void* x, int incx, void* y, int incy) {
  return cublasSetVector(n, elem, x, incx, y, incy);
}
inline cublasStatus_t cublasSetMatrix(int rows, int cols, int elem, const void* a, int lda, void* b, int ldb) {
  if (rows < 0 || cols < 0 || elem <= 0 || lda < rows || ldb < rows) return CUBLAS_STATUS_INVALID_VALUE;
  for (int c = 0; c < cols; ++c)
    std::memcpy(static_cast<char*>(b) + size_t(c) * ldb * elem, static_cast<const char*>(a) + size_t(c) * lda * elem, size_t(rows) * elem);
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasGetMatrix(int rows, int cols, int elem, const void* a, int lda, void* b, int ldb) {
  return cublasSetMatrix(rows, cols, elem, a, lda, b, ldb);
}
inline cublasStatus_t cublasSetVectorAsync(int n, int e, const void* x, int ix, void* y, int iy, cudaStream_t) { return cublasSetVector(n, e, x, ix, y, iy); }
inline cublasStatus_t cublasGetVectorAsync(int n, int e, const void* x, int ix, void* y, int iy, cudaStream_t) { return cublasGetVector(n, e, x, ix, y, iy); }
inline cublasStatus_t cublasSetMatrixAsync(int r, int c, int e, const void* a, int la, void* b, int lb, cudaStream_t) { return cublasSetMatrix(r, c, e, a, la, b, lb); }
inline cublasStatus_t cublasGetMatrixAsync(int r, int c, int e, const void* a, int la, void* b, int lb, cudaStream_t) { return cublasGetMatrix(r, c, e, a, la, b, lb); }

namespace emu::blas {
// cuBLAS computes at the call here; a call on a stream that captures a graph would run now
// instead of at each replay, so it stops the run instead (exit 2, named)
inline void not_captured(cublasHandle_t h) {
  if (h != nullptr && capturing(h->stream)) emu::unsupported("a cuBLAS call on a stream that captures a CUDA graph");
}
// element i of a strided vector (a negative stride starts from the far end, as BLAS does)
template <class T> EMU_INL T& at(T* x, int64_t n, int64_t inc, int64_t i) { return inc > 0 ? x[i * inc] : x[(n - 1 - i) * -inc]; }
template <class T> inline void axpy(int64_t n, T a, const T* x, int64_t ix, T* y, int64_t iy) {
  for (int64_t i = 0; i < n; ++i) at(y, n, iy, i) += a * at(const_cast<T*>(x), n, ix, i);
}
template <class T> inline T dot(int64_t n, const T* x, int64_t ix, const T* y, int64_t iy) {
  T s = 0;
  for (int64_t i = 0; i < n; ++i) s += at(const_cast<T*>(x), n, ix, i) * at(const_cast<T*>(y), n, iy, i);
  return s;
}
template <class T> inline T nrm2(int64_t n, const T* x, int64_t ix) {
  // scaled as the reference BLAS does, so that large and small entries neither overflow nor vanish
  T scale = 0, ssq = 1;
  for (int64_t i = 0; i < n && ix > 0; ++i) {
    T v = std::fabs(x[i * ix]);
    if (v == 0) continue;
    if (scale < v) { ssq = 1 + ssq * (scale / v) * (scale / v); scale = v; }
    else ssq += (v / scale) * (v / scale);
  }
  return scale * std::sqrt(ssq);
}
// op(A)[i][l] of a column-major matrix
template <class T> EMU_INL T op_at(const T* a, int64_t ld, cublasOperation_t op, int64_t i, int64_t l) {
  return op == CUBLAS_OP_N ? a[i + l * ld] : a[l + i * ld];
}
template <class T, class S>
inline void gemm(cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k, S alpha, const T* a,
                 int64_t lda, const T* b, int64_t ldb, S beta, T* c, int64_t ldc) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      S s = 0;
      for (int64_t l = 0; l < k; ++l) s += S(op_at(a, lda, ta, i, l)) * S(op_at(b, ldb, tb, l, j));
      S prior = beta == S(0) ? S(0) : beta * S(c[i + j * ldc]);  // beta 0: C is not read (may hold NaN)
      c[i + j * ldc] = T(alpha * s + prior);
    }
}
template <class T> inline void gemv(cublasOperation_t t, int64_t m, int64_t n, T alpha, const T* a, int64_t lda,
                                    const T* x, int64_t ix, T beta, T* y, int64_t iy) {
  int64_t rows = t == CUBLAS_OP_N ? m : n, cols = t == CUBLAS_OP_N ? n : m;
  for (int64_t i = 0; i < rows; ++i) {
    T s = 0;
    for (int64_t l = 0; l < cols; ++l) s += op_at(a, lda, t, i, l) * at(const_cast<T*>(x), cols, ix, l);
    T& out = at(y, rows, iy, i);
    out = alpha * s + (beta == T(0) ? T(0) : beta * out);
  }
}
}  // namespace emu::blas

// ---- level 1 ------------------------------------------------------------------------------------
#define EMU_BLAS1(P, p, T)                                                                                             \
  inline cublasStatus_t cublas##P##axpy(cublasHandle_t h_, int n, const T* a, const T* x, int ix, T* y, int iy) { emu::blas::not_captured(h_);       \
    emu::blas::axpy<T>(n, *a, x, ix, y, iy); return CUBLAS_STATUS_SUCCESS; }                                          \
  inline cublasStatus_t cublas##P##scal(cublasHandle_t h_, int n, const T* a, T* x, int ix) { emu::blas::not_captured(h_);                           \
    for (int i = 0; i < n && ix > 0; ++i) x[size_t(i) * ix] *= *a;                                                    \
    return CUBLAS_STATUS_SUCCESS; }                                                                                   \
  inline cublasStatus_t cublas##P##copy(cublasHandle_t h_, int n, const T* x, int ix, T* y, int iy) { emu::blas::not_captured(h_);                   \
    for (int i = 0; i < n; ++i) emu::blas::at(y, n, iy, i) = emu::blas::at(const_cast<T*>(x), n, ix, i);            \
    return CUBLAS_STATUS_SUCCESS; }                                                                                   \
  inline cublasStatus_t cublas##P##swap(cublasHandle_t h_, int n, T* x, int ix, T* y, int iy) { emu::blas::not_captured(h_);                         \
    for (int i = 0; i < n; ++i) std::swap(emu::blas::at(x, n, ix, i), emu::blas::at(y, n, iy, i));                    \
    return CUBLAS_STATUS_SUCCESS; }                                                                                   \
  inline cublasStatus_t cublas##P##dot(cublasHandle_t h_, int n, const T* x, int ix, const T* y, int iy, T* r) { emu::blas::not_captured(h_);        \
    *r = emu::blas::dot<T>(n, x, ix, y, iy); return CUBLAS_STATUS_SUCCESS; }                                          \
  inline cublasStatus_t cublas##P##nrm2(cublasHandle_t h_, int n, const T* x, int ix, T* r) { emu::blas::not_captured(h_);                           \
    *r = emu::blas::nrm2<T>(n, x, ix); return CUBLAS_STATUS_SUCCESS; }                                                \
  inline cublasStatus_t cublas##P##nrm2_64(cublasHandle_t h_, int64_t n, const T* x, int64_t ix, T* r) { emu::blas::not_captured(h_);                \
    *r = emu::blas::nrm2<T>(n, x, ix); return CUBLAS_STATUS_SUCCESS; }                                                \
  inline cublasStatus_t cublas##P##asum(cublasHandle_t h_, int n, const T* x, int ix, T* r) { emu::blas::not_captured(h_);                           \
    T s = 0;                                                                                                          \
    for (int i = 0; i < n && ix > 0; ++i) s += std::fabs(x[size_t(i) * ix]);                                          \
    *r = s; return CUBLAS_STATUS_SUCCESS; }                                                                           \
  /* BLAS indices are 1-based; the first of equal magnitudes wins */                                                  \
  inline cublasStatus_t cublasI##p##amax(cublasHandle_t h_, int n, const T* x, int ix, int* r) { emu::blas::not_captured(h_);                        \
    int best = 0;                                                                                                     \
    for (int i = 1; i < n && ix > 0; ++i) if (std::fabs(x[size_t(i) * ix]) > std::fabs(x[size_t(best) * ix])) best = i; \
    *r = n > 0 && ix > 0 ? best + 1 : 0; return CUBLAS_STATUS_SUCCESS; }                                             \
  inline cublasStatus_t cublasI##p##amin(cublasHandle_t h_, int n, const T* x, int ix, int* r) { emu::blas::not_captured(h_);                        \
    int best = 0;                                                                                                     \
    for (int i = 1; i < n && ix > 0; ++i) if (std::fabs(x[size_t(i) * ix]) < std::fabs(x[size_t(best) * ix])) best = i; \
    *r = n > 0 && ix > 0 ? best + 1 : 0; return CUBLAS_STATUS_SUCCESS; }
EMU_BLAS1(S, s, float)
EMU_BLAS1(D, d, double)
#undef EMU_BLAS1

// ---- level 2 and 3 ------------------------------------------------------------------------------
#define EMU_BLAS23(P, T)                                                                                              \
  inline cublasStatus_t cublas##P##gemv(cublasHandle_t h_, cublasOperation_t t, int m, int n, const T* alpha, const T* a, \
                                        int lda, const T* x, int ix, const T* beta, T* y, int iy) { emu::blas::not_captured(h_);                   \
    emu::blas::gemv<T>(t, m, n, *alpha, a, lda, x, ix, *beta, y, iy); return CUBLAS_STATUS_SUCCESS; }                 \
  inline cublasStatus_t cublas##P##ger(cublasHandle_t h_, int m, int n, const T* alpha, const T* x, int ix, const T* y, \
                                       int iy, T* a, int lda) { emu::blas::not_captured(h_);                                                       \
    for (int j = 0; j < n; ++j)                                                                                       \
      for (int i = 0; i < m; ++i)                                                                                     \
        a[i + size_t(j) * lda] += *alpha * emu::blas::at(const_cast<T*>(x), m, ix, i) * emu::blas::at(const_cast<T*>(y), n, iy, j); \
    return CUBLAS_STATUS_SUCCESS; }                                                                                   \
  inline cublasStatus_t cublas##P##gemm(cublasHandle_t h_, cublasOperation_t ta, cublasOperation_t tb, int m, int n,    \
                                        int k, const T* alpha, const T* a, int lda, const T* b, int ldb,             \
                                        const T* beta, T* c, int ldc) { emu::blas::not_captured(h_);                                               \
    emu::blas::gemm<T, T>(ta, tb, m, n, k, *alpha, a, lda, b, ldb, *beta, c, ldc); return CUBLAS_STATUS_SUCCESS; }    \
  inline cublasStatus_t cublas##P##gemmStridedBatched(cublasHandle_t h_, cublasOperation_t ta, cublasOperation_t tb,    \
      int m, int n, int k, const T* alpha, const T* a, int lda, long long sa, const T* b, int ldb, long long sb,    \
      const T* beta, T* c, int ldc, long long sc, int count) { emu::blas::not_captured(h_);                                                        \
    for (int i = 0; i < count; ++i)                                                                                   \
      emu::blas::gemm<T, T>(ta, tb, m, n, k, *alpha, a + i * sa, lda, b + i * sb, ldb, *beta, c + i * sc, ldc);       \
    return CUBLAS_STATUS_SUCCESS; }                                                                                   \
  inline cublasStatus_t cublas##P##gemmBatched(cublasHandle_t h_, cublasOperation_t ta, cublasOperation_t tb, int m,   \
      int n, int k, const T* alpha, const T* const a[], int lda, const T* const b[], int ldb, const T* beta,         \
      T* const c[], int ldc, int count) { emu::blas::not_captured(h_);                                                                             \
    for (int i = 0; i < count; ++i) emu::blas::gemm<T, T>(ta, tb, m, n, k, *alpha, a[i], lda, b[i], ldb, *beta, c[i], ldc); \
    return CUBLAS_STATUS_SUCCESS; }
EMU_BLAS23(S, float)
EMU_BLAS23(D, double)
#undef EMU_BLAS23

inline cublasStatus_t cublasHgemm(cublasHandle_t h_, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                  const __half* alpha, const __half* a, int lda, const __half* b, int ldb,
                                  const __half* beta, __half* c, int ldc) { emu::blas::not_captured(h_);
  emu::blas::gemm<__half, float>(ta, tb, m, n, k, __half2float(*alpha), a, lda, b, ldb, __half2float(*beta), c, ldc);
  return CUBLAS_STATUS_SUCCESS;
}

// ---- the typed-pointer forms (GemmEx, DotEx): 32- and 64-bit floats and halves --------------------
namespace emu::blas {
template <class T, class S>
inline void gemm_typed(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const void* alpha, const void* a,
                       int lda, const void* b, int ldb, const void* beta, void* c, int ldc, bool scale_is_s) {
  S al = scale_is_s ? *static_cast<const S*>(alpha) : S(*static_cast<const T*>(alpha));
  S be = scale_is_s ? *static_cast<const S*>(beta) : S(*static_cast<const T*>(beta));
  gemm<T, S>(ta, tb, m, n, k, al, static_cast<const T*>(a), lda, static_cast<const T*>(b), ldb, be, static_cast<T*>(c), ldc);
}
// the operand type T and compute type of an Ex call; false: a combination not emulated
inline bool gemm_ex(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const void* alpha, const void* a,
                    cudaDataType_t at, int lda, const void* b, cudaDataType_t bt, int ldb, const void* beta, void* c,
                    cudaDataType_t ct, int ldc, int compute) {
  if (at != bt || at != ct) return false;
  bool c16 = compute == CUBLAS_COMPUTE_16F || compute == CUBLAS_COMPUTE_16F_PEDANTIC || compute == CUDA_R_16F;
  if (at == CUDA_R_32F) gemm_typed<float, float>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, true);
  else if (at == CUDA_R_64F) gemm_typed<double, double>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, true);
  else if (at == CUDA_R_16F && c16) gemm_typed<__half, float>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, false);
  else if (at == CUDA_R_16F) gemm_typed<__half, float>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, true);
  else return false;
  return true;
}
}  // namespace emu::blas

inline cublasStatus_t cublasGemmEx(cublasHandle_t h_, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                   const void* alpha, const void* a, cudaDataType_t at, int lda, const void* b,
                                   cudaDataType_t bt, int ldb, const void* beta, void* c, cudaDataType_t ct, int ldc,
                                   int compute, cublasGemmAlgo_t = CUBLAS_GEMM_DEFAULT) { emu::blas::not_captured(h_);
  return emu::blas::gemm_ex(ta, tb, m, n, k, alpha, a, at, lda, b, bt, ldb, beta, c, ct, ldc, compute)
             ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED;
}
inline cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
    int n, int k, const void* alpha, const void* a, cudaDataType_t at, int lda, long long sa, const void* b,
    cudaDataType_t bt, int ldb, long long sb, const void* beta, void* c, cudaDataType_t ct, int ldc, long long sc,
    int count, int compute, cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT) { emu::blas::not_captured(h);
  size_t size = at == CUDA_R_64F ? 8 : at == CUDA_R_32F ? 4 : 2;
  for (int i = 0; i < count; ++i) {
    cublasStatus_t s = cublasGemmEx(h, ta, tb, m, n, k, alpha, static_cast<const char*>(a) + i * sa * size, at, lda,
                                    static_cast<const char*>(b) + i * sb * size, bt, ldb, beta,
                                    static_cast<char*>(c) + i * sc * size, ct, ldc, compute, algo);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
  }
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasDotEx(cublasHandle_t h_, int n, const void* x, cudaDataType_t xt, int ix, const void* y,
                                  cudaDataType_t yt, int iy, void* r, cudaDataType_t rt, cudaDataType_t) { emu::blas::not_captured(h_);
  if (xt != yt || xt != rt) return CUBLAS_STATUS_NOT_SUPPORTED;
  if (xt == CUDA_R_32F) *static_cast<float*>(r) = emu::blas::dot<float>(n, static_cast<const float*>(x), ix, static_cast<const float*>(y), iy);
  else if (xt == CUDA_R_64F) *static_cast<double*>(r) = emu::blas::dot<double>(n, static_cast<const double*>(x), ix, static_cast<const double*>(y), iy);
  else return CUBLAS_STATUS_NOT_SUPPORTED;
  return CUBLAS_STATUS_SUCCESS;
}
