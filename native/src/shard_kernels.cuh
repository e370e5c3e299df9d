// Shard gather/scatter/reduce kernels and their host-side dispatch, independent of the runtime
// API: a launcher functor supplies the launch (CUDA/HIP `<<<>>>` in shard_kernels.cu, or the
// portable header's CPU emulation in native/check/, which runs these same kernels on the host
// so their index math and dtype handling are tested on machines without a GPU).
//
// Launch configuration never assumes a 32-wide warp: blocks are a multiple of 64 threads (one
// AMD wavefront, two NVIDIA warps) and no kernel uses warp intrinsics or warp-synchronous code.
#pragma once

#include <cstdint>

#include "half_bits.h"
#include "shard_view.h"

namespace pn_kernels {

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
  using Acc = float;
  __device__ static float load(uint16_t x) { return pn::f16_to_float(x); }
  __device__ static uint16_t store(float x) { return pn::float_to_f16(x); }
};
struct BF16 {
  using Storage = uint16_t;
  using Acc = float;
  __device__ static float load(uint16_t x) { return pn::bf16_to_float(x); }
  __device__ static uint16_t store(float x) { return pn::float_to_bf16(x); }
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
        acc = (acc != acc) ? acc : ((x != x || x > acc) ? x : acc);  // NaN propagates, like torch.max
      else
        acc = static_cast<Acc>(acc + x);
    }
    if (op == PN_OP_AVG) acc = static_cast<Acc>(acc / static_cast<Acc>(k));
    out[i] = Ops::store(acc);
  }
}

inline int grid_for(int64_t n) {
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  return static_cast<int>(blocks < kMaxGrid ? (blocks > 0 ? blocks : 1) : kMaxGrid);
}

template <typename T, bool kGather, typename Launch>
void launch_copy_typed(const Launch& launch, char* base, const pn::ShardView& v, char* flat) {
  ViewArg arg{};
  arg.ndim = v.ndim;
  for (int32_t d = 0; d < v.ndim; ++d) {
    arg.size[d] = v.size[d];
    arg.stride[d] = v.stride[d];
  }
  launch(strided_copy_kernel<T, kGather>, grid_for(v.numel), kBlock, reinterpret_cast<T*>(base) + v.offset, arg,
         reinterpret_cast<T*>(flat), v.numel);
}

// Launch a gather (kGather) or scatter of an already validated view; nothing for empty shards.
template <bool kGather, typename Launch>
void launch_copy(const Launch& launch, char* base, const pn::ShardView& v, int32_t elem_size, char* flat) {
  if (v.numel == 0) return;
  switch (elem_size) {
    case 1: launch_copy_typed<uint8_t, kGather>(launch, base, v, flat); break;
    case 2: launch_copy_typed<uint16_t, kGather>(launch, base, v, flat); break;
    case 4: launch_copy_typed<uint32_t, kGather>(launch, base, v, flat); break;
    case 8: launch_copy_typed<uint64_t, kGather>(launch, base, v, flat); break;
    default: launch_copy_typed<Bytes16, kGather>(launch, base, v, flat); break;
  }
}

template <typename Ops, typename Launch>
void launch_reduce_typed(const Launch& launch, const ReduceArg& arg, int32_t k, int64_t n, int32_t op, void* out) {
  launch(reduce_kernel<Ops>, grid_for(n), kBlock, arg, k, n, op, static_cast<typename Ops::Storage*>(out));
}

// Validate and launch a reduce; *launched is false when there was nothing to do.
template <typename Launch>
pn_status launch_reduce(const Launch& launch, const void* const* bufs, int32_t k, int64_t n, int32_t dtype,
                        int32_t op, void* out, bool* launched) {
  *launched = false;
  pn_status st = pn::check_reduce_args(bufs, k, n, dtype, op, out);
  if (st != PN_OK) return st;
  if (k > kMaxReduceBuffers)
    return pn::fail(PN_ERR_UNSUPPORTED, "%d buffers; the GPU reduce takes at most %d", k, kMaxReduceBuffers);
  if (n == 0) return PN_OK;
  ReduceArg arg{};
  for (int32_t j = 0; j < k; ++j) arg.bufs[j] = bufs[j];
  switch (dtype) {
    case PN_DT_F32: launch_reduce_typed<Plain<float, float>>(launch, arg, k, n, op, out); break;
    case PN_DT_F64: launch_reduce_typed<Plain<double, double>>(launch, arg, k, n, op, out); break;
    case PN_DT_F16: launch_reduce_typed<F16>(launch, arg, k, n, op, out); break;
    case PN_DT_BF16: launch_reduce_typed<BF16>(launch, arg, k, n, op, out); break;
    case PN_DT_I32: launch_reduce_typed<Plain<int32_t, long long>>(launch, arg, k, n, op, out); break;
    case PN_DT_I64:
      if (op == PN_OP_MAX)
        launch_reduce_typed<Plain<int64_t, long long>>(launch, arg, k, n, op, out);
      else  // unsigned accumulation wraps like torch instead of signed-overflow UB
        launch_reduce_typed<Plain<int64_t, unsigned long long>>(launch, arg, k, n, op, out);
      break;
    case PN_DT_U8: launch_reduce_typed<Plain<uint8_t, unsigned long long>>(launch, arg, k, n, op, out); break;
    case PN_DT_I8: launch_reduce_typed<Plain<int8_t, long long>>(launch, arg, k, n, op, out); break;
    default: launch_reduce_typed<Plain<int16_t, long long>>(launch, arg, k, n, op, out); break;
  }
  *launched = true;
  return PN_OK;
}

}  // namespace pn_kernels
