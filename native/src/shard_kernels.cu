// Shard gather/scatter/reduce kernels in plain CUDA (the hipified-cuda TU: `port hipify`
// converts this file for ROCm). Launch configuration never assumes a 32-wide warp: blocks
// are a multiple of 64 threads (one AMD wavefront, two NVIDIA warps) and no kernel uses
// warp intrinsics or warp-synchronous code.
#include <cuda_runtime.h>

#include "half_bits.h"
#include "shard_view.h"

namespace {

constexpr int kBlock = 256;
constexpr int kMaxGrid = 65535;
constexpr int kMaxReduceBuffers = 64;

struct Bytes16 {
  uint64_t lo, hi;
};

struct ViewArg {  // passed by value: the collapsed view
  int32_t ndim;
  int64_t size[PN_MAX_DIMS];
  int64_t stride[PN_MAX_DIMS];
};

struct ReduceArg {
  const void* bufs[kMaxReduceBuffers];
};

template <typename T, bool kGather>
__global__ void strided_copy_kernel(T* base, ViewArg v, T* flat, int64_t numel) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < numel;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rem = i, off = 0;
    for (int32_t d = v.ndim - 1; d >= 0; --d) {
      off += (rem % v.size[d]) * v.stride[d];
      rem /= v.size[d];
    }
    if (kGather)
      flat[i] = base[off];
    else
      base[off] = flat[i];
  }
}

struct F16 {
  using Storage = uint16_t;
  __device__ static float load(uint16_t x) { return pn::f16_to_float(x); }
  __device__ static uint16_t store(float x) { return pn::float_to_f16(x); }
  using Acc = float;
};
struct BF16 {
  using Storage = uint16_t;
  __device__ static float load(uint16_t x) { return pn::bf16_to_float(x); }
  __device__ static uint16_t store(float x) { return pn::float_to_bf16(x); }
  using Acc = float;
};
template <typename T, typename A>
struct Plain {
  using Storage = T;
  using Acc = A;
  __device__ static A load(T x) { return static_cast<A>(x); }
  __device__ static T store(A x) { return static_cast<T>(x); }
};

template <typename Ops>
__global__ void reduce_kernel(ReduceArg in, int32_t k, int64_t n, int32_t op, typename Ops::Storage* out) {
  using Acc = typename Ops::Acc;
  using S = typename Ops::Storage;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Acc acc = Ops::load(static_cast<const S*>(in.bufs[0])[i]);
    for (int32_t j = 1; j < k; ++j) {
      const Acc x = Ops::load(static_cast<const S*>(in.bufs[j])[i]);
      if (op == PN_OP_MAX)
        acc = ((x > acc || x != x) && acc == acc) ? x : acc;
      else
        acc = static_cast<Acc>(acc + x);
    }
    if (op == PN_OP_AVG) acc = static_cast<Acc>(acc / static_cast<Acc>(k));
    out[i] = Ops::store(acc);
  }
}

int grid_for(int64_t n) {
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  return static_cast<int>(blocks < kMaxGrid ? (blocks > 0 ? blocks : 1) : kMaxGrid);
}

pn_status check_launch(const char* what) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) return PN_OK;
  const pn_status st =
      (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) ? PN_ERR_NO_DEVICE : PN_ERR_RUNTIME;
  return pn::fail(st, "%s: %s", what, cudaGetErrorString(err));
}

template <bool kGather>
pn_status launch_copy(char* base, const pn::ShardView& v, int32_t elem_size, char* flat, cudaStream_t stream) {
  if (v.numel == 0) return PN_OK;
  ViewArg arg{};
  arg.ndim = v.ndim;
  for (int32_t d = 0; d < v.ndim; ++d) {
    arg.size[d] = v.size[d];
    arg.stride[d] = v.stride[d];
  }
  const int grid = grid_for(v.numel);
  switch (elem_size) {
    case 1:
      strided_copy_kernel<uint8_t, kGather><<<grid, kBlock, 0, stream>>>(
          reinterpret_cast<uint8_t*>(base) + v.offset, arg, reinterpret_cast<uint8_t*>(flat), v.numel);
      break;
    case 2:
      strided_copy_kernel<uint16_t, kGather><<<grid, kBlock, 0, stream>>>(
          reinterpret_cast<uint16_t*>(base) + v.offset, arg, reinterpret_cast<uint16_t*>(flat), v.numel);
      break;
    case 4:
      strided_copy_kernel<uint32_t, kGather><<<grid, kBlock, 0, stream>>>(
          reinterpret_cast<uint32_t*>(base) + v.offset, arg, reinterpret_cast<uint32_t*>(flat), v.numel);
      break;
    case 8:
      strided_copy_kernel<uint64_t, kGather><<<grid, kBlock, 0, stream>>>(
          reinterpret_cast<uint64_t*>(base) + v.offset, arg, reinterpret_cast<uint64_t*>(flat), v.numel);
      break;
    default:
      strided_copy_kernel<Bytes16, kGather><<<grid, kBlock, 0, stream>>>(
          reinterpret_cast<Bytes16*>(base) + v.offset, arg, reinterpret_cast<Bytes16*>(flat), v.numel);
      break;
  }
  return check_launch(kGather ? "gather kernel launch" : "scatter kernel launch");
}

template <typename Ops>
void launch_reduce(const ReduceArg& arg, int32_t k, int64_t n, int32_t op, void* out, cudaStream_t stream) {
  reduce_kernel<Ops><<<grid_for(n), kBlock, 0, stream>>>(arg, k, n, op, static_cast<typename Ops::Storage*>(out));
}

}  // namespace

extern "C" {

PN_API pn_status pn_gather_shard(const void* src, int32_t ndim, const int64_t* sizes, const int64_t* strides,
                                 int32_t elem_size, int32_t dim, int64_t start, int64_t length, void* staging,
                                 void* stream) {
  pn::ShardView v;
  pn_status st = pn::make_shard_view(src, staging, ndim, sizes, strides, elem_size, dim, start, length, &v);
  if (st != PN_OK) return st;
  return launch_copy<true>(static_cast<char*>(const_cast<void*>(src)), v, elem_size, static_cast<char*>(staging),
                           static_cast<cudaStream_t>(stream));
}

PN_API pn_status pn_scatter_shard(void* dst, int32_t ndim, const int64_t* sizes, const int64_t* strides,
                                  int32_t elem_size, int32_t dim, int64_t start, int64_t length,
                                  const void* staging, void* stream) {
  pn::ShardView v;
  pn_status st = pn::make_shard_view(dst, staging, ndim, sizes, strides, elem_size, dim, start, length, &v);
  if (st != PN_OK) return st;
  return launch_copy<false>(static_cast<char*>(dst), v, elem_size,
                            static_cast<char*>(const_cast<void*>(staging)), static_cast<cudaStream_t>(stream));
}

PN_API pn_status pn_reduce(const void* const* bufs, int32_t k, int64_t n, int32_t dtype, int32_t op, void* out,
                           void* stream) {
  if (bufs == nullptr) return pn::fail(PN_ERR_INVALID, "buffer list is NULL");
  if (k < 1) return pn::fail(PN_ERR_INVALID, "need at least one buffer, got %d", k);
  if (k > kMaxReduceBuffers)
    return pn::fail(PN_ERR_UNSUPPORTED, "%d buffers; the GPU reduce takes at most %d", k, kMaxReduceBuffers);
  if (n < 0) return pn::fail(PN_ERR_INVALID, "element count %lld is negative", (long long)n);
  if (op < PN_OP_SUM || op > PN_OP_MAX) return pn::fail(PN_ERR_INVALID, "unknown reduce op %d", op);
  const bool floating = dtype == PN_DT_F32 || dtype == PN_DT_F64 || dtype == PN_DT_F16 || dtype == PN_DT_BF16;
  if (op == PN_OP_AVG && !floating) return pn::fail(PN_ERR_INVALID, "avg needs a floating dtype (got dtype %d)", dtype);
  if (n == 0) return PN_OK;  // empty tensors may have NULL data pointers
  if (out == nullptr) return pn::fail(PN_ERR_INVALID, "out is NULL");
  ReduceArg arg{};
  for (int32_t j = 0; j < k; ++j) {
    if (bufs[j] == nullptr) return pn::fail(PN_ERR_INVALID, "buffer %d is NULL", j);
    arg.bufs[j] = bufs[j];
  }
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (dtype) {
    case PN_DT_F32: launch_reduce<Plain<float, float>>(arg, k, n, op, out, s); break;
    case PN_DT_F64: launch_reduce<Plain<double, double>>(arg, k, n, op, out, s); break;
    case PN_DT_F16: launch_reduce<F16>(arg, k, n, op, out, s); break;
    case PN_DT_BF16: launch_reduce<BF16>(arg, k, n, op, out, s); break;
    case PN_DT_I32: launch_reduce<Plain<int32_t, long long>>(arg, k, n, op, out, s); break;
    case PN_DT_I64:
      if (op == PN_OP_MAX)
        launch_reduce<Plain<int64_t, long long>>(arg, k, n, op, out, s);
      else
        launch_reduce<Plain<int64_t, unsigned long long>>(arg, k, n, op, out, s);
      break;
    case PN_DT_U8: launch_reduce<Plain<uint8_t, unsigned long long>>(arg, k, n, op, out, s); break;
    case PN_DT_I8: launch_reduce<Plain<int8_t, long long>>(arg, k, n, op, out, s); break;
    case PN_DT_I16: launch_reduce<Plain<int16_t, long long>>(arg, k, n, op, out, s); break;
    default: return pn::fail(PN_ERR_INVALID, "unknown dtype code %d", dtype);
  }
  return check_launch("reduce kernel launch");
}

PN_API pn_status pn_stream_synchronize(void* stream) {
  cudaError_t err = cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
  if (err == cudaSuccess) return PN_OK;
  const pn_status st =
      (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) ? PN_ERR_NO_DEVICE : PN_ERR_RUNTIME;
  return pn::fail(st, "stream synchronize: %s", cudaGetErrorString(err));
}

}  // extern "C"
