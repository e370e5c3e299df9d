// rocm-port `port emulate`: a subset of cuSPARSE's generic API, computed on the CPU.
//
// Reached through <cusparse.h> / <cusparse_v2.h>. Handles, CSR and COO sparse matrices, dense
// vectors and matrices (row- or column-major) with 32- or 64-bit indices and zero or one
// base, float or double values; SpMV and SpMM (y = alpha op(A) x + beta y, C = alpha op(A)
// op(B) + beta C) and SparseToDense. Device memory is host memory, so each routine reads its
// operands in place and sums each output in a fixed order (row by row, entries in storage
// order): the same result at every warp width, not necessarily cuSPARSE's last bits. The
// scan (porting/emulate/refuse.py, CUSPARSE_SUBSET) refuses a program calling any other
// cusparse function, by name.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>
#include "emu_cublas.h"   // cudaDataType_t

enum cusparseStatus_t {
  CUSPARSE_STATUS_SUCCESS = 0, CUSPARSE_STATUS_NOT_INITIALIZED = 1, CUSPARSE_STATUS_ALLOC_FAILED = 2,
  CUSPARSE_STATUS_INVALID_VALUE = 3, CUSPARSE_STATUS_ARCH_MISMATCH = 4, CUSPARSE_STATUS_EXECUTION_FAILED = 6,
  CUSPARSE_STATUS_INTERNAL_ERROR = 7, CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8, CUSPARSE_STATUS_NOT_SUPPORTED = 10
};
enum cusparseOperation_t { CUSPARSE_OPERATION_NON_TRANSPOSE = 0, CUSPARSE_OPERATION_TRANSPOSE = 1,
                           CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE = 2 };
enum cusparseIndexType_t { CUSPARSE_INDEX_16U = 1, CUSPARSE_INDEX_32I = 2, CUSPARSE_INDEX_64I = 3 };
enum cusparseIndexBase_t { CUSPARSE_INDEX_BASE_ZERO = 0, CUSPARSE_INDEX_BASE_ONE = 1 };
enum cusparseOrder_t { CUSPARSE_ORDER_COL = 1, CUSPARSE_ORDER_ROW = 2 };
enum cusparseSpMatAttribute_t { CUSPARSE_SPMAT_FILL_MODE = 0, CUSPARSE_SPMAT_DIAG_TYPE = 1 };
enum cusparseFillMode_t { CUSPARSE_FILL_MODE_LOWER = 0, CUSPARSE_FILL_MODE_UPPER = 1 };
enum cusparseDiagType_t { CUSPARSE_DIAG_TYPE_NON_UNIT = 0, CUSPARSE_DIAG_TYPE_UNIT = 1 };
enum cusparseSpMVAlg_t {
  CUSPARSE_SPMV_ALG_DEFAULT = 0, CUSPARSE_MV_ALG_DEFAULT = 0, CUSPARSE_SPMV_CSR_ALG1 = 2, CUSPARSE_SPMV_CSR_ALG2 = 3,
  CUSPARSE_SPMV_COO_ALG1 = 1, CUSPARSE_SPMV_COO_ALG2 = 4, CUSPARSE_CSRMV_ALG1 = 2, CUSPARSE_CSRMV_ALG2 = 3,
  CUSPARSE_COOMV_ALG = 1
};
enum cusparseSpMMAlg_t {
  CUSPARSE_SPMM_ALG_DEFAULT = 0, CUSPARSE_MM_ALG_DEFAULT = 0, CUSPARSE_SPMM_COO_ALG1 = 1, CUSPARSE_SPMM_COO_ALG2 = 2,
  CUSPARSE_SPMM_COO_ALG3 = 3, CUSPARSE_SPMM_COO_ALG4 = 5, CUSPARSE_SPMM_CSR_ALG1 = 4, CUSPARSE_SPMM_CSR_ALG2 = 6,
  CUSPARSE_SPMM_CSR_ALG3 = 12, CUSPARSE_CSRMM_ALG1 = 4, CUSPARSE_COOMM_ALG1 = 1, CUSPARSE_COOMM_ALG2 = 2,
  CUSPARSE_COOMM_ALG3 = 3
};
enum cusparseSparseToDenseAlg_t { CUSPARSE_SPARSETODENSE_ALG_DEFAULT = 0 };

struct emu_cusparse { cudaStream_t stream; };
typedef emu_cusparse* cusparseHandle_t;
struct emu_cusparse_spmat {
  bool coo;
  int64_t rows, cols, nnz;
  void *offsets_or_rows, *cols_idx, *values;
  cusparseIndexType_t offset_type, index_type;
  cusparseIndexBase_t base;
  cudaDataType_t type;
};
typedef emu_cusparse_spmat* cusparseSpMatDescr_t;
typedef const emu_cusparse_spmat* cusparseConstSpMatDescr_t;
struct emu_cusparse_dn { int64_t rows, cols, ld; void* values; cudaDataType_t type; cusparseOrder_t order; };
typedef emu_cusparse_dn* cusparseDnVecDescr_t;
typedef emu_cusparse_dn* cusparseDnMatDescr_t;
typedef const emu_cusparse_dn* cusparseConstDnVecDescr_t;
typedef const emu_cusparse_dn* cusparseConstDnMatDescr_t;

inline cusparseStatus_t cusparseCreate(cusparseHandle_t* h) { *h = new emu_cusparse{nullptr}; return CUSPARSE_STATUS_SUCCESS; }
inline cusparseStatus_t cusparseDestroy(cusparseHandle_t h) { delete h; return CUSPARSE_STATUS_SUCCESS; }
inline cusparseStatus_t cusparseSetStream(cusparseHandle_t h, cudaStream_t s) { h->stream = s; return CUSPARSE_STATUS_SUCCESS; }
inline cusparseStatus_t cusparseGetStream(cusparseHandle_t h, cudaStream_t* s) { *s = h->stream; return CUSPARSE_STATUS_SUCCESS; }
inline const char* cusparseGetErrorString(cusparseStatus_t s) {
  switch (s) {
    case CUSPARSE_STATUS_SUCCESS: return "success";
    case CUSPARSE_STATUS_INVALID_VALUE: return "invalid value";
    case CUSPARSE_STATUS_NOT_SUPPORTED: return "operation not supported";
    default: return "cuSPARSE error";
  }
}
inline const char* cusparseGetErrorName(cusparseStatus_t s) { return cusparseGetErrorString(s); }

inline cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t* m, int64_t rows, int64_t cols, int64_t nnz, void* offsets,
                                          void* col_ind, void* values, cusparseIndexType_t offset_type,
                                          cusparseIndexType_t index_type, cusparseIndexBase_t base, cudaDataType_t type) {
  *m = new emu_cusparse_spmat{false, rows, cols, nnz, offsets, col_ind, values, offset_type, index_type, base, type};
  return CUSPARSE_STATUS_SUCCESS;
}
inline cusparseStatus_t cusparseCreateCoo(cusparseSpMatDescr_t* m, int64_t rows, int64_t cols, int64_t nnz, void* row_ind,
                                          void* col_ind, void* values, cusparseIndexType_t index_type,
                                          cusparseIndexBase_t base, cudaDataType_t type) {
  *m = new emu_cusparse_spmat{true, rows, cols, nnz, row_ind, col_ind, values, index_type, index_type, base, type};
  return CUSPARSE_STATUS_SUCCESS;
}
inline cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t m) { delete m; return CUSPARSE_STATUS_SUCCESS; }
inline cusparseStatus_t cusparseSpMatGetSize(cusparseConstSpMatDescr_t m, int64_t* rows, int64_t* cols, int64_t* nnz) {
  *rows = m->rows; *cols = m->cols; *nnz = m->nnz;
  return CUSPARSE_STATUS_SUCCESS;
}
// fill mode and diagonal type matter to the triangular solvers only, which are not emulated
inline cusparseStatus_t cusparseSpMatSetAttribute(cusparseSpMatDescr_t, cusparseSpMatAttribute_t, void*, size_t) {
  return CUSPARSE_STATUS_SUCCESS;
}
inline cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t* v, int64_t size, void* values, cudaDataType_t type) {
  *v = new emu_cusparse_dn{size, 1, size, values, type, CUSPARSE_ORDER_COL};
  return CUSPARSE_STATUS_SUCCESS;
}
inline cusparseStatus_t cusparseDestroyDnVec(cusparseConstDnVecDescr_t v) { delete v; return CUSPARSE_STATUS_SUCCESS; }
inline cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t* d, int64_t rows, int64_t cols, int64_t ld, void* values,
                                            cudaDataType_t type, cusparseOrder_t order) {
  *d = new emu_cusparse_dn{rows, cols, ld, values, type, order};
  return CUSPARSE_STATUS_SUCCESS;
}
inline cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t d) { delete d; return CUSPARSE_STATUS_SUCCESS; }

namespace emu {
namespace sparse {
inline int64_t index(const void* p, cusparseIndexType_t t, int64_t i) {
  return t == CUSPARSE_INDEX_64I ? ((const int64_t*)p)[i] : (int64_t)((const int32_t*)p)[i];
}
// The entries of A as (row, col, value) in storage order, zero-based.
template <class T, class F> inline void entries(const emu_cusparse_spmat& a, F f) {
  const int64_t base = a.base == CUSPARSE_INDEX_BASE_ONE ? 1 : 0;
  const T* v = (const T*)a.values;
  if (a.coo) {
    for (int64_t k = 0; k < a.nnz; ++k) f(index(a.offsets_or_rows, a.index_type, k) - base, index(a.cols_idx, a.index_type, k) - base, v[k]);
    return;
  }
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t k = index(a.offsets_or_rows, a.offset_type, r) - base; k < index(a.offsets_or_rows, a.offset_type, r + 1) - base; ++k)
      f(r, index(a.cols_idx, a.index_type, k) - base, v[k]);
}
template <class T> inline T& at(const emu_cusparse_dn& d, int64_t r, int64_t c) {
  T* v = (T*)d.values;
  return d.order == CUSPARSE_ORDER_ROW ? v[r * d.ld + c] : v[c * d.ld + r];
}
template <class T> inline cusparseStatus_t spmv(cusparseOperation_t op, const void* alpha, const emu_cusparse_spmat& a,
                                                const emu_cusparse_dn& x, const void* beta, emu_cusparse_dn& y) {
  const T al = *(const T*)alpha, be = *(const T*)beta;
  const bool t = op != CUSPARSE_OPERATION_NON_TRANSPOSE;
  std::vector<T> acc(t ? a.cols : a.rows, T(0));
  const T* xv = (const T*)x.values;
  entries<T>(a, [&](int64_t r, int64_t c, T v) { if (t) acc[c] += v * xv[r]; else acc[r] += v * xv[c]; });
  T* yv = (T*)y.values;
  for (size_t i = 0; i < acc.size(); ++i) yv[i] = al * acc[i] + (be == T(0) ? T(0) : be * yv[i]);
  return CUSPARSE_STATUS_SUCCESS;
}
template <class T> inline cusparseStatus_t spmm(cusparseOperation_t opa, cusparseOperation_t opb, const void* alpha,
                                                const emu_cusparse_spmat& a, const emu_cusparse_dn& b, const void* beta,
                                                emu_cusparse_dn& c) {
  const T al = *(const T*)alpha, be = *(const T*)beta;
  const bool ta = opa != CUSPARSE_OPERATION_NON_TRANSPOSE, tb = opb != CUSPARSE_OPERATION_NON_TRANSPOSE;
  const int64_t m = c.rows, n = c.cols;
  std::vector<T> acc((size_t)(m * n), T(0));
  entries<T>(a, [&](int64_t r, int64_t col, T v) {
    const int64_t i = ta ? col : r, k = ta ? r : col;
    for (int64_t j = 0; j < n; ++j) acc[(size_t)(i * n + j)] += v * (tb ? at<T>(b, j, k) : at<T>(b, k, j));
  });
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T& out = at<T>(c, i, j);
      out = al * acc[(size_t)(i * n + j)] + (be == T(0) ? T(0) : be * out);
    }
  return CUSPARSE_STATUS_SUCCESS;
}
}  // namespace sparse
}  // namespace emu

inline cusparseStatus_t cusparseSpMV_bufferSize(cusparseHandle_t, cusparseOperation_t, const void*, cusparseConstSpMatDescr_t,
                                                cusparseConstDnVecDescr_t, const void*, cusparseDnVecDescr_t, cudaDataType_t,
                                                cusparseSpMVAlg_t, size_t* size) {
  *size = 0;
  return CUSPARSE_STATUS_SUCCESS;
}
inline cusparseStatus_t cusparseSpMV(cusparseHandle_t, cusparseOperation_t op, const void* alpha, cusparseConstSpMatDescr_t a,
                                     cusparseConstDnVecDescr_t x, const void* beta, cusparseDnVecDescr_t y,
                                     cudaDataType_t type, cusparseSpMVAlg_t, void*) {
  if (type == CUDA_R_32F) return emu::sparse::spmv<float>(op, alpha, *a, *x, beta, *y);
  if (type == CUDA_R_64F) return emu::sparse::spmv<double>(op, alpha, *a, *x, beta, *y);
  return CUSPARSE_STATUS_NOT_SUPPORTED;
}
inline cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void*,
                                                cusparseConstSpMatDescr_t, cusparseConstDnMatDescr_t, const void*,
                                                cusparseDnMatDescr_t, cudaDataType_t, cusparseSpMMAlg_t, size_t* size) {
  *size = 0;
  return CUSPARSE_STATUS_SUCCESS;
}
inline cusparseStatus_t cusparseSpMM(cusparseHandle_t, cusparseOperation_t opa, cusparseOperation_t opb, const void* alpha,
                                     cusparseConstSpMatDescr_t a, cusparseConstDnMatDescr_t b, const void* beta,
                                     cusparseDnMatDescr_t c, cudaDataType_t type, cusparseSpMMAlg_t, void*) {
  if (type == CUDA_R_32F) return emu::sparse::spmm<float>(opa, opb, alpha, *a, *b, beta, *c);
  if (type == CUDA_R_64F) return emu::sparse::spmm<double>(opa, opb, alpha, *a, *b, beta, *c);
  return CUSPARSE_STATUS_NOT_SUPPORTED;
}
inline cusparseStatus_t cusparseSparseToDense_bufferSize(cusparseHandle_t, cusparseConstSpMatDescr_t, cusparseDnMatDescr_t,
                                                         cusparseSparseToDenseAlg_t, size_t* size) {
  *size = 0;
  return CUSPARSE_STATUS_SUCCESS;
}
inline cusparseStatus_t cusparseSparseToDense(cusparseHandle_t, cusparseConstSpMatDescr_t a, cusparseDnMatDescr_t d,
                                              cusparseSparseToDenseAlg_t, void*) {
  auto fill = [&](auto zero) {
    using T = decltype(zero);
    for (int64_t r = 0; r < d->rows; ++r)
      for (int64_t c = 0; c < d->cols; ++c) emu::sparse::at<T>(*d, r, c) = zero;
    emu::sparse::entries<T>(*a, [&](int64_t r, int64_t c, T v) { emu::sparse::at<T>(*d, r, c) += v; });
    return CUSPARSE_STATUS_SUCCESS;
  };
  if (a->type == CUDA_R_32F) return fill(0.0f);
  if (a->type == CUDA_R_64F) return fill(0.0);
  return CUSPARSE_STATUS_NOT_SUPPORTED;
}
