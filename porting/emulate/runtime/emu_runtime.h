// rocm-port `port emulate`: a CPU runtime with GPU execution semantics at warp width EMU_WARP.
//
// `port emulate` force-includes this header into every translation unit of the program under
// test (g++ -include) and compiles it once per warp width (-DEMU_WARP=32 / 64). CUDA and HIP
// names are both declared, so a CUDA program compiles as written: the report's line numbers
// are the user's own. Kernels are plain functions; a launch runs every thread of a block as a
// fiber (emu_scheduler.cpp), so __syncthreads is a real barrier and warp collectives meet in
// lockstep. What is and is not emulated: docs/emulate.md.
#pragma once
#ifndef EMU_WARP
#error "port emulate compiles with -DEMU_WARP=32 or -DEMU_WARP=64"
#endif
#if EMU_WARP != 32 && EMU_WARP != 64
#error "EMU_WARP must be 32 or 64"
#endif

#include "emu_base.h"
#include "emu_host_api.h"
#include "emu_device.h"
#include "emu_intrinsics.h"
#include "emu_ptx.h"
#include "emu_texture.h"
#include "emu_kernels.h"

// ---- launches -------------------------------------------------------------------------------
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...)                                 \
  ::emu::launch(::emu::config(grid, block, shmem, stream).named(#kernel), [&](auto&&... emu_a_) { kernel(emu_a_...); }, ##__VA_ARGS__)
template <class... P> cudaError_t cudaLaunchKernel(void (*f)(P...), dim3 g, dim3 b, void** args, size_t sh = 0, cudaStream_t s = nullptr) {
  return emu::launch_packed(f, emu::config(g, b, sh, s), args, std::index_sequence_for<P...>{});
}

#include "emu_hip_names.h"
