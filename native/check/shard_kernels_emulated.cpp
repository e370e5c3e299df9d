// The GPU shard kernels (src/shard_kernels.cuh), launched through the CPU backend of
// hip_aliases/gpu_runtime.h, which runs every (block, thread) of the grid serially on the
// host. Linked with the host units and runtime_cpu.cpp into a test-only library, so the
// kernels' index math, grid-stride loops and dtype handling are checked against torch on a
// machine without a GPU (tests/native). Not part of any `port build` path.
#define GPU_RUNTIME_FORCE_CPU 1
#include "hip_aliases/gpu_runtime.h"

#include "../src/shard_kernels.cuh"

namespace {

struct EmulatedLaunch {
  template <typename... Params, typename... Args>
  void operator()(void (*kernel)(Params...), int grid, int block, Args... args) const {
    GPU_LAUNCH_KERNEL(kernel, dim3(grid), dim3(block), 0, nullptr, args...);
  }
};

}  // namespace

extern "C" {

PN_API pn_status pn_gather_shard(const void* src, int32_t ndim, const int64_t* sizes, const int64_t* strides,
                                 int32_t elem_size, int32_t dim, int64_t start, int64_t length, void* staging,
                                 void*) {
  pn::ShardView v;
  pn_status st = pn::make_shard_view(src, staging, ndim, sizes, strides, elem_size, dim, start, length, &v);
  if (st != PN_OK) return st;
  pn_kernels::launch_copy<true>(EmulatedLaunch{}, static_cast<char*>(const_cast<void*>(src)), v, elem_size,
                                static_cast<char*>(staging));
  return PN_OK;
}

PN_API pn_status pn_scatter_shard(void* dst, int32_t ndim, const int64_t* sizes, const int64_t* strides,
                                  int32_t elem_size, int32_t dim, int64_t start, int64_t length,
                                  const void* staging, void*) {
  pn::ShardView v;
  pn_status st = pn::make_shard_view(dst, staging, ndim, sizes, strides, elem_size, dim, start, length, &v);
  if (st != PN_OK) return st;
  pn_kernels::launch_copy<false>(EmulatedLaunch{}, static_cast<char*>(dst), v, elem_size,
                                 static_cast<char*>(const_cast<void*>(staging)));
  return PN_OK;
}

PN_API pn_status pn_reduce(const void* const* bufs, int32_t k, int64_t n, int32_t dtype, int32_t op, void* out,
                           void*) {
  bool launched = false;
  return pn_kernels::launch_reduce(EmulatedLaunch{}, bufs, k, n, dtype, op, out, &launched);
}

PN_API pn_status pn_stream_synchronize(void*) { return PN_OK; }

}  // extern "C"
