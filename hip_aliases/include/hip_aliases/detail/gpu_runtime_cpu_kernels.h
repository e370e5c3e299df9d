// hip_aliases/detail/gpu_runtime_cpu_kernels.h: kernel launch on the CPU backend: GPU_LAUNCH_KERNEL
// runs the kernel serially over the grid on the calling thread. Included by gpu_runtime_cpu.h only.
#pragma once

#include <cstddef>

// ---- kernels --------------------------------------------------------------------------------

#ifndef GPU_RUNTIME_CPU_NO_KERNEL_MACROS
#ifndef __global__
#define __global__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __host__
#define __host__
#endif
#ifndef __forceinline__
#define __forceinline__ inline
#endif
#endif

namespace gpu_runtime_cpu {
struct LaunchIndex {
  dim3 thread_idx, block_idx, block_dim, grid_dim;
};
inline LaunchIndex& launch_index() {
  static thread_local LaunchIndex index;
  return index;
}
// Runs kernel(args...) once per (block, thread) of the grid, serially, on the calling thread.
template <typename... Params, typename... Args>
gpuError_t launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes,
                         gpuStream_t stream, Args&&... args) {
  (void)stream;
  if (shared_bytes != 0 || grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 ||
      block.z == 0)
    return fail(gpuErrorInvalidValue);
  LaunchIndex& ix = launch_index();
  ix.grid_dim = grid;
  ix.block_dim = block;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx)
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx) {
              ix.block_idx = dim3(bx, by, bz);
              ix.thread_idx = dim3(tx, ty, tz);
              kernel(args...);
            }
  return gpuSuccess;
}
}  // namespace gpu_runtime_cpu

#ifndef GPU_RUNTIME_CPU_NO_KERNEL_MACROS
#define threadIdx (::gpu_runtime_cpu::launch_index().thread_idx)
#define blockIdx (::gpu_runtime_cpu::launch_index().block_idx)
#define blockDim (::gpu_runtime_cpu::launch_index().block_dim)
#define gridDim (::gpu_runtime_cpu::launch_index().grid_dim)
#endif

// The runtime launch takes an untyped argument array: not possible on the host.
inline gpuError_t gpuLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared_bytes,
                                  gpuStream_t stream) {
  (void)func; (void)grid; (void)block; (void)args; (void)shared_bytes; (void)stream;
  return gpu_runtime_cpu::fail(gpuErrorNotSupported);
}
