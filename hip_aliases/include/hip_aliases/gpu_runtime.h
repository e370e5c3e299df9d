// hip_aliases/gpu_runtime.h: one set of `gpu*` runtime names for CUDA, HIP and a CPU fallback.
//
// Usage (C++11 or later; add -I<repo>/hip_aliases/include):
//
//     #include "hip_aliases/gpu_runtime.h"
//     float* d = nullptr;
//     GPU_CHECK(gpuMalloc(reinterpret_cast<void**>(&d), n * sizeof(float)));
//     GPU_CHECK(gpuMemcpyAsync(d, h, n * sizeof(float), gpuMemcpyHostToDevice, stream));
//     GPU_LAUNCH_KERNEL(scale, dim3(blocks), dim3(threads), 0, stream, d, 2.0f, n);
//
// Backend, chosen once here (first match wins):
//   GPU_RUNTIME_FORCE_CPU defined              -> CPU
//   __HIP__ (hipcc, clang -x hip), __HIPCC__, __HIP_PLATFORM_AMD__ (host compiler + HIP headers)
//                                              -> HIP  (<hip/hip_runtime.h>)
//   __CUDACC__, or CUDA runtime headers already included, or GPU_RUNTIME_FORCE_CUDA
//                                              -> CUDA (<cuda_runtime.h>, nvcc or host g++)
//   otherwise                                  -> CPU  (plain g++/clang++, no GPU toolkit)
// and announced as exactly one of GPU_RUNTIME_CUDA / GPU_RUNTIME_HIP / GPU_RUNTIME_CPU (= 1),
// with GPU_RUNTIME_BACKEND_NAME "cuda" / "hip" / "cpu".
//
// CUDA and HIP backends: renames generated from the alias table (hipify's tables +
// hip_aliases/overrides.toml) into detail/gpu_runtime_renames.h; semantics are the vendor's.
// CPU backend (detail/gpu_runtime_cpu.h, hand-written): what native/ needs on a host without
// a GPU: one device named "host device"; gpuMalloc'd memory is host memory backed by a memfd
// so that IPC handles work across processes (gpuIpcOpenMemHandle maps it via /proc/PID/fd);
// streams and events are synchronous (work is done when the call returns; events record
// host time stamps); GPU_LAUNCH_KERNEL runs the kernel serially over the grid on the calling
// thread (kernels that use shared memory or __syncthreads are not supported); the runtime
// launch gpuLaunchKernel returns gpuErrorNotSupported.
//
// Hand-written helpers, every backend:
//   GPU_CHECK(expr)            evaluates a gpuError_t expression; on failure reports
//                              "file:line: expr failed: <error name>: <error string>" and
//                              calls abort() (or throws std::runtime_error when
//                              GPU_CHECK_THROWS is defined before the include).
//   GPU_LAUNCH_KERNEL(kernel, grid, block, shared_bytes, stream, args...)
//   gpuPointerAttributeType(const gpuPointerAttribute_t&) -> gpuMemoryType
//                              (the field is `type` in CUDA and HIP >= 6, `memoryType` in HIP 5)
//   gpuDim3                    dim3
//   GPU_FULL_MASK              every lane of a warp at any width (~0ull): the mask of *_sync
//                              intrinsics (ROCm 7 static_asserts a 64-bit one; CUDA's 32-bit
//                              parameter takes the low 32 bits). `port fix` inlines the same
//                              guarded definition into the files it repairs.
//
// <api-list>
// Portable names (generated from gpu_runtime_api.toml; CUDA name -> HIP name -> gpu name).
// Every backend defines all of them; [HIP>=N]: HIP backend only from HIP_VERSION_MAJOR N.
//   errors: gpuError_t, gpuSuccess, gpuErrorInvalidValue, gpuErrorMemoryAllocation,
//       gpuErrorNoDevice, gpuErrorInvalidDevice, gpuErrorInvalidResourceHandle, gpuErrorNotReady,
//       gpuErrorNotSupported, gpuGetErrorString, gpuGetErrorName, gpuGetLastError,
//       gpuPeekAtLastError
//   devices: gpuDeviceProp_t, gpuGetDeviceCount, gpuGetDevice, gpuSetDevice,
//       gpuGetDeviceProperties, gpuDeviceSynchronize, gpuDeviceGetPCIBusId
//   memory: gpuMemcpyKind, gpuMemcpyHostToHost, gpuMemcpyHostToDevice, gpuMemcpyDeviceToHost,
//       gpuMemcpyDeviceToDevice, gpuMemcpyDefault, gpuMalloc, gpuFree, gpuHostMalloc, gpuHostFree,
//       gpuHostMallocDefault, gpuHostRegister, gpuHostUnregister, gpuHostGetDevicePointer,
//       gpuHostRegisterDefault, gpuHostRegisterPortable, gpuHostRegisterMapped, gpuMemcpy,
//       gpuMemcpyAsync, gpuMemset, gpuMemsetAsync
//   pointer attributes: gpuPointerAttribute_t, gpuMemoryType, gpuMemoryTypeUnregistered [HIP>=6],
//       gpuMemoryTypeHost, gpuMemoryTypeDevice, gpuMemoryTypeManaged [HIP>=6],
//       gpuPointerGetAttributes
//   streams: gpuStream_t, gpuStreamDefault, gpuStreamNonBlocking, gpuStreamCreate,
//       gpuStreamCreateWithFlags, gpuStreamDestroy, gpuStreamSynchronize, gpuStreamQuery,
//       gpuStreamWaitEvent
//   events: gpuEvent_t, gpuEventDefault, gpuEventDisableTiming, gpuEventInterprocess,
//       gpuEventCreate, gpuEventCreateWithFlags, gpuEventRecord, gpuEventSynchronize,
//       gpuEventQuery, gpuEventElapsedTime, gpuEventDestroy
//   ipc: gpuIpcMemHandle_t, gpuIpcMemLazyEnablePeerAccess, gpuIpcGetMemHandle,
//       gpuIpcOpenMemHandle, gpuIpcCloseMemHandle
//   kernel launch: gpuLaunchKernel
// </api-list>
#pragma once

#if defined(GPU_RUNTIME_FORCE_CPU)
#define GPU_RUNTIME_CPU 1
#elif defined(__HIP__) || defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
#define GPU_RUNTIME_HIP 1
#elif defined(__CUDACC__) || defined(__CUDA_RUNTIME_H__) || defined(__CUDA_RUNTIME_API_H__) || \
    defined(GPU_RUNTIME_FORCE_CUDA)
#define GPU_RUNTIME_CUDA 1
#else
#define GPU_RUNTIME_CPU 1
#endif

#include <cstdio>
#include <cstdlib>
#if defined(GPU_CHECK_THROWS)
#include <stdexcept>
#include <string>
#endif

#if defined(GPU_RUNTIME_CUDA)
#define GPU_RUNTIME_BACKEND_NAME "cuda"
#include <cuda_runtime.h>
#include "detail/gpu_runtime_renames.h"
#elif defined(GPU_RUNTIME_HIP)
#define GPU_RUNTIME_BACKEND_NAME "hip"
#include <hip/hip_runtime.h>
#include "detail/gpu_runtime_renames.h"
#else
#define GPU_RUNTIME_BACKEND_NAME "cpu"
#include "detail/gpu_runtime_cpu.h"
#endif

typedef dim3 gpuDim3;

#ifndef GPU_FULL_MASK
#define GPU_FULL_MASK (~0ull)
#endif

// Kernel launch with the same arguments on every backend.
#if defined(GPU_RUNTIME_CUDA)
#define GPU_LAUNCH_KERNEL(kernel, grid, block, shared_bytes, stream, ...) \
  kernel<<<(grid), (block), (shared_bytes), (stream)>>>(__VA_ARGS__)
#elif defined(GPU_RUNTIME_HIP)
#define GPU_LAUNCH_KERNEL(kernel, grid, block, shared_bytes, stream, ...) \
  hipLaunchKernelGGL(kernel, (grid), (block), (shared_bytes), (stream), ##__VA_ARGS__)
#else
#define GPU_LAUNCH_KERNEL(kernel, grid, block, shared_bytes, stream, ...) \
  ::gpu_runtime_cpu::launch_kernel((kernel), (grid), (block), (shared_bytes), (stream), ##__VA_ARGS__)
#endif

// The memory type of a pointer-attributes record (the field was renamed in HIP 6).
inline gpuMemoryType gpuPointerAttributeType(const gpuPointerAttribute_t& attributes) {
#if defined(GPU_RUNTIME_HIP) && HIP_VERSION_MAJOR < 6
  return attributes.memoryType;
#else
  return attributes.type;
#endif
}

namespace gpu_runtime_detail {
inline void check_failed(gpuError_t err, const char* expr, const char* file, int line) {
  char message[512];
  std::snprintf(message, sizeof message, "%s:%d: %s failed: %s: %s", file, line, expr,
                gpuGetErrorName(err), gpuGetErrorString(err));
#if defined(GPU_CHECK_THROWS)
  throw std::runtime_error(std::string(message));
#else
  std::fprintf(stderr, "%s\n", message);
  std::fflush(stderr);
  std::abort();
#endif
}
}  // namespace gpu_runtime_detail

#define GPU_CHECK(expr)                                                              \
  do {                                                                               \
    gpuError_t gpu_check_err_ = (expr);                                              \
    if (gpu_check_err_ != gpuSuccess)                                                \
      ::gpu_runtime_detail::check_failed(gpu_check_err_, #expr, __FILE__, __LINE__); \
  } while (0)
