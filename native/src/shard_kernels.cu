// Shard gather/scatter/reduce entry points in plain CUDA: this is the translation unit that
// `port hipify` converts for ROCm (cudaStream_t, cudaGetLastError, <<<>>> launches). The
// kernels themselves live in shard_kernels.cuh.
#include <cuda_runtime.h>

#include "shard_kernels.cuh"

namespace {

struct CudaLaunch {
  cudaStream_t stream;
  template <typename... Params, typename... Args>
  void operator()(void (*kernel)(Params...), int grid, int block, Args... args) const {
    kernel<<<grid, block, 0, stream>>>(args...);
  }
};

pn_status check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return PN_OK;
  (void)cudaGetLastError();  // clear the sticky error we are reporting (ROCm 7: hipError_t is [[nodiscard]])
  const pn_status st =
      (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) ? PN_ERR_NO_DEVICE : PN_ERR_RUNTIME;
  return pn::fail(st, "%s: %s", what, cudaGetErrorString(err));
}

}  // namespace

extern "C" {

PN_API pn_status pn_gather_shard(const void* src, int32_t ndim, const int64_t* sizes, const int64_t* strides,
                                 int32_t elem_size, int32_t dim, int64_t start, int64_t length, void* staging,
                                 void* stream) {
  pn::ShardView v;
  pn_status st = pn::make_shard_view(src, staging, ndim, sizes, strides, elem_size, dim, start, length, &v);
  if (st != PN_OK || v.numel == 0) return st;
  pn_kernels::launch_copy<true>(CudaLaunch{static_cast<cudaStream_t>(stream)},
                                static_cast<char*>(const_cast<void*>(src)), v, elem_size, static_cast<char*>(staging));
  return check(cudaGetLastError(), "gather kernel launch");
}

PN_API pn_status pn_scatter_shard(void* dst, int32_t ndim, const int64_t* sizes, const int64_t* strides,
                                  int32_t elem_size, int32_t dim, int64_t start, int64_t length,
                                  const void* staging, void* stream) {
  pn::ShardView v;
  pn_status st = pn::make_shard_view(dst, staging, ndim, sizes, strides, elem_size, dim, start, length, &v);
  if (st != PN_OK || v.numel == 0) return st;
  pn_kernels::launch_copy<false>(CudaLaunch{static_cast<cudaStream_t>(stream)}, static_cast<char*>(dst), v,
                                 elem_size, static_cast<char*>(const_cast<void*>(staging)));
  return check(cudaGetLastError(), "scatter kernel launch");
}

PN_API pn_status pn_reduce(const void* const* bufs, int32_t k, int64_t n, int32_t dtype, int32_t op, void* out,
                           void* stream) {
  bool launched = false;
  pn_status st = pn_kernels::launch_reduce(CudaLaunch{static_cast<cudaStream_t>(stream)}, bufs, k, n, dtype, op,
                                           out, &launched);
  if (st != PN_OK || !launched) return st;
  return check(cudaGetLastError(), "reduce kernel launch");
}

PN_API pn_status pn_stream_synchronize(void* stream) {
  return check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "stream synchronize");
}

}  // extern "C"
