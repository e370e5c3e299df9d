// Argument checks shared by the CPU and GPU shard kernels: validate a strided tensor view and
// the slice [start, start+length) of one dim, then collapse it to the fewest dims (dropping
// size-1 dims and merging dims that are contiguous with each other); validate a reduce.
#pragma once

#include <cstdint>

#include "internal.h"

namespace pn {

struct ShardView {
  int32_t ndim = 0;                // after collapsing; 0 means a single element
  int64_t size[PN_MAX_DIMS] = {};  // in elements
  int64_t stride[PN_MAX_DIMS] = {};
  int64_t offset = 0;              // element offset of the shard's first element
  int64_t numel = 0;
};

inline pn_status make_shard_view(const void* base, const void* staging, int32_t ndim, const int64_t* sizes,
                                 const int64_t* strides, int32_t elem_size, int32_t dim, int64_t start,
                                 int64_t length, ShardView* out) {
  if (sizes == nullptr || strides == nullptr) return fail(PN_ERR_INVALID, "sizes or strides is NULL");
  if (ndim < 1 || ndim > PN_MAX_DIMS) return fail(PN_ERR_INVALID, "ndim %d not in 1..%d", ndim, PN_MAX_DIMS);
  if (dim < 0 || dim >= ndim) return fail(PN_ERR_BOUNDS, "dim %d out of range for %d dims", dim, ndim);
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8 && elem_size != 16)
    return fail(PN_ERR_INVALID, "element size %d is not 1, 2, 4, 8 or 16", elem_size);
  for (int32_t i = 0; i < ndim; ++i) {
    if (sizes[i] < 0) return fail(PN_ERR_INVALID, "size[%d] = %lld is negative", i, (long long)sizes[i]);
    if (strides[i] < 0) return fail(PN_ERR_INVALID, "stride[%d] = %lld is negative", i, (long long)strides[i]);
  }
  if (start < 0 || length < 0 || start > sizes[dim] || length > sizes[dim] - start)
    return fail(PN_ERR_BOUNDS, "slice [%lld, %lld) outside dim %d of size %lld", (long long)start,
                (long long)(start + length), dim, (long long)sizes[dim]);
  int64_t numel = 1;
  for (int32_t i = 0; i < ndim; ++i) numel *= (i == dim ? length : sizes[i]);
  out->numel = numel;
  out->ndim = 0;
  out->offset = numel ? start * strides[dim] : 0;
  if (numel == 0) return PN_OK;
  if (base == nullptr || staging == nullptr) return fail(PN_ERR_INVALID, "tensor or staging pointer is NULL");
  if (reinterpret_cast<uintptr_t>(base) % elem_size != 0 || reinterpret_cast<uintptr_t>(staging) % elem_size != 0)
    return fail(PN_ERR_ALIGNMENT, "tensor %p or staging %p is not aligned to the element size %d", base, staging,
                elem_size);
  for (int32_t i = 0; i < ndim; ++i) {
    const int64_t n = (i == dim ? length : sizes[i]);
    if (n == 1) continue;
    if (out->ndim > 0 && out->stride[out->ndim - 1] == strides[i] * n) {
      out->size[out->ndim - 1] *= n;  // previous dim steps exactly over this one: merge
      out->stride[out->ndim - 1] = strides[i];
      continue;
    }
    out->size[out->ndim] = n;
    out->stride[out->ndim] = strides[i];
    ++out->ndim;
  }
  return PN_OK;
}

// The arguments of pn_reduce, on every backend. PN_OK with n == 0 means there is nothing to do
// (empty tensors may have NULL data pointers, so `out` and the buffers are checked only after).
inline pn_status check_reduce_args(const void* const* bufs, int32_t k, int64_t n, int32_t dtype, int32_t op,
                                   const void* out) {
  if (bufs == nullptr) return fail(PN_ERR_INVALID, "buffer list is NULL");
  if (k < 1) return fail(PN_ERR_INVALID, "need at least one buffer, got %d", k);
  if (n < 0) return fail(PN_ERR_INVALID, "element count %lld is negative", (long long)n);
  if (op < PN_OP_SUM || op > PN_OP_MAX) return fail(PN_ERR_INVALID, "unknown reduce op %d", op);
  if (dtype < PN_DT_F32 || dtype > PN_DT_I16) return fail(PN_ERR_INVALID, "unknown dtype code %d", dtype);
  const bool floating = dtype == PN_DT_F32 || dtype == PN_DT_F64 || dtype == PN_DT_F16 || dtype == PN_DT_BF16;
  if (op == PN_OP_AVG && !floating) return fail(PN_ERR_INVALID, "avg needs a floating dtype (got dtype %d)", dtype);
  if (n == 0) return PN_OK;
  if (out == nullptr) return fail(PN_ERR_INVALID, "out is NULL");
  for (int32_t j = 0; j < k; ++j)
    if (bufs[j] == nullptr) return fail(PN_ERR_INVALID, "buffer %d is NULL", j);
  return PN_OK;
}

}  // namespace pn
