// port emulate: the plain parts of the CUDA driver API, over the runtime's own calls.
//
// Initialisation, devices and their attributes, contexts, memory, copies and memsets, streams,
// events and error strings (cuda.h's names, with their `_v2` spellings). The rules a program can
// observe are the driver's: every call but cuInit, cuDriverGetVersion and the error strings
// answers CUDA_ERROR_NOT_INITIALIZED before cuInit; memory, copies and synchronisation need a
// current context (cuCtxCreate, cuCtxSetCurrent or a retained primary context) and answer
// CUDA_ERROR_INVALID_CONTEXT without one; device ordinals other than 0 are
// CUDA_ERROR_INVALID_DEVICE. There is one device and one memory: a context is a record of which
// device it is on, and a CUdeviceptr is the address cudaMalloc returned. Loading modules (cubin,
// PTX, fatbins), cuLaunchKernel and the linker are not emulated: refuse.py refuses a program that
// calls them, by name, before it is compiled (there is no PTX here to load).
#pragma once
#include "emu_runtime.h"

#define __cuda_cuda_h__ 1

typedef enum cudaError_enum {
  CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1, CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3, CUDA_ERROR_DEINITIALIZED = 4, CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101, CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_CONTEXT_ALREADY_CURRENT = 202, CUDA_ERROR_INVALID_HANDLE = 400, CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600, CUDA_ERROR_NOT_SUPPORTED = 801, CUDA_ERROR_UNKNOWN = 999
} CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef cudaStream_t CUstream;
typedef cudaEvent_t CUevent;
typedef enum CUdevice_attribute_enum {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = cudaDevAttrMaxThreadsPerBlock,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = cudaDevAttrMaxBlockDimX,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = cudaDevAttrMaxBlockDimY,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = cudaDevAttrMaxBlockDimZ,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = cudaDevAttrMaxGridDimX,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = cudaDevAttrMaxGridDimY,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = cudaDevAttrMaxGridDimZ,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = cudaDevAttrMaxSharedMemoryPerBlock,
  CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = cudaDevAttrTotalConstantMemory,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = cudaDevAttrWarpSize,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = cudaDevAttrMaxRegistersPerBlock,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = cudaDevAttrClockRate,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = cudaDevAttrMultiProcessorCount,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = cudaDevAttrComputeCapabilityMajor,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = cudaDevAttrComputeCapabilityMinor,
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = cudaDevAttrMaxThreadsPerMultiProcessor,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = cudaDevAttrMaxSharedMemoryPerMultiprocessor,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = cudaDevAttrL2CacheSize,
  CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS = cudaDevAttrConcurrentKernels,
  CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = cudaDevAttrManagedMemory,
  CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = cudaDevAttrCooperativeLaunch,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = cudaDevAttrMaxSharedMemoryPerBlockOptin,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = cudaDevAttrMemoryClockRate,
  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = cudaDevAttrGlobalMemoryBusWidth,
  CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = cudaDevAttrUnifiedAddressing,
  CU_DEVICE_ATTRIBUTE_INTEGRATED = cudaDevAttrIntegrated,
  CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = cudaDevAttrComputeMode,
  CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = cudaDevAttrCanMapHostMemory,
  CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT = cudaDevAttrAsyncEngineCount,
  CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT = cudaDevAttrKernelExecTimeout,
  CU_DEVICE_ATTRIBUTE_ECC_ENABLED = cudaDevAttrEccEnabled,
  CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = cudaDevAttrPciBusId,
  CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = cudaDevAttrPciDeviceId,
  CU_DEVICE_ATTRIBUTE_TCC_DRIVER = cudaDevAttrTccDriver,
  CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = cudaDevAttrConcurrentManagedAccess,
  CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS = cudaDevAttrPageableMemoryAccess,
  CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES = cudaDevAttrPageableMemoryAccessUsesHostPageTables,
  CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED = cudaDevAttrHostNativeAtomicSupported,
  CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST = cudaDevAttrDirectManagedMemAccessFromHost,
  CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH = cudaDevAttrCooperativeMultiDeviceLaunch,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = cudaDevAttrMaxBlocksPerMultiprocessor,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = cudaDevAttrMaxRegistersPerMultiprocessor,
  CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = cudaDevAttrMemoryPoolsSupported,
  CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE = cudaDevAttrMaxPersistingL2CacheSize,
  CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED = cudaDevAttrStreamPrioritiesSupported,
  CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED = cudaDevAttrGlobalL1CacheSupported,
  CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED = cudaDevAttrLocalL1CacheSupported,
  CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED = cudaDevAttrComputePreemptionSupported,
  CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = cudaDevAttrCanUseHostPointerForRegisteredMem,
  CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO = cudaDevAttrSingleToDoublePrecisionPerfRatio,
  CU_DEVICE_ATTRIBUTE_GPU_OVERLAP = cudaDevAttrGpuOverlap,
  CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID = cudaDevAttrMultiGpuBoardGroupID,
  CU_DEVICE_ATTRIBUTE_SHARED_MEMORY_PER_BLOCK = cudaDevAttrMaxSharedMemoryPerBlock,
  CU_DEVICE_ATTRIBUTE_REGISTERS_PER_BLOCK = cudaDevAttrMaxRegistersPerBlock
} CUdevice_attribute;
typedef enum CUcomputemode_enum {
  CU_COMPUTEMODE_DEFAULT = cudaComputeModeDefault, CU_COMPUTEMODE_PROHIBITED = cudaComputeModeProhibited,
  CU_COMPUTEMODE_EXCLUSIVE_PROCESS = cudaComputeModeExclusiveProcess
} CUcomputemode;
#define CU_CTX_SCHED_AUTO 0x00
#define CU_CTX_SCHED_SPIN 0x01
#define CU_CTX_SCHED_YIELD 0x02
#define CU_CTX_SCHED_BLOCKING_SYNC 0x04
#define CU_CTX_MAP_HOST 0x08
#define CU_STREAM_DEFAULT 0x0
#define CU_STREAM_NON_BLOCKING 0x1
#define CU_EVENT_DEFAULT 0x0
#define CU_EVENT_BLOCKING_SYNC 0x1
#define CU_EVENT_DISABLE_TIMING 0x2
#define CU_MEMHOSTALLOC_PORTABLE 0x01
#define CU_MEMHOSTALLOC_DEVICEMAP 0x02
#define CU_MEMHOSTALLOC_WRITECOMBINED 0x04
#define CU_MEM_ATTACH_GLOBAL 0x1
#define CU_MEM_ATTACH_HOST 0x2

struct CUctx_st { CUdevice device; unsigned int flags; bool primary; };

namespace emu { namespace driver {
struct State {
  bool initialised = false;
  CUctx_st primary{0, 0, true};
  int primary_refs = 0;
};
inline State& state() { static State s; return s; }
// the driver keeps a current context per host thread
inline CUcontext& current() { static thread_local CUcontext c = nullptr; return c; }
inline CUresult from(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return CUDA_SUCCESS;
    case cudaErrorMemoryAllocation: return CUDA_ERROR_OUT_OF_MEMORY;
    case cudaErrorInvalidDevice: return CUDA_ERROR_INVALID_DEVICE;
    case cudaErrorNotReady: return CUDA_ERROR_NOT_READY;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}
inline CUresult ready() { return state().initialised ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED; }
inline CUresult device(CUdevice d) {
  if (!state().initialised) return CUDA_ERROR_NOT_INITIALIZED;
  return d == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
inline CUresult context() {
  if (!state().initialised) return CUDA_ERROR_NOT_INITIALIZED;
  return current() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}
inline void* ptr(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }
}}  // namespace emu::driver

#define EMU_CU_TRY(check) do { CUresult emu_r_ = (check); if (emu_r_ != CUDA_SUCCESS) return emu_r_; } while (0)

inline CUresult cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  emu::driver::state().initialised = true;
  return CUDA_SUCCESS;
}
inline CUresult cuDriverGetVersion(int* v) { if (!v) return CUDA_ERROR_INVALID_VALUE; *v = CUDA_VERSION; return CUDA_SUCCESS; }
inline CUresult cuDeviceGetCount(int* n) {
  EMU_CU_TRY(emu::driver::ready());
  if (!n) return CUDA_ERROR_INVALID_VALUE;
  return emu::driver::from(cudaGetDeviceCount(n));
}
inline CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  EMU_CU_TRY(emu::driver::device(ordinal));
  if (!d) return CUDA_ERROR_INVALID_VALUE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
inline CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
  EMU_CU_TRY(emu::driver::device(d));
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, d);
  std::snprintf(name, static_cast<size_t>(len), "%s", p.name);
  return CUDA_SUCCESS;
}
inline CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice d) {
  EMU_CU_TRY(emu::driver::device(d));
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  return emu::driver::from(cudaDeviceGetAttribute(v, static_cast<cudaDeviceAttr>(a), d));
}
inline CUresult cuDeviceTotalMem(size_t* bytes, CUdevice d) {
  EMU_CU_TRY(emu::driver::device(d));
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, d);
  *bytes = p.totalGlobalMem;
  return CUDA_SUCCESS;
}
inline CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice d) {
  EMU_CU_TRY(emu::driver::device(d));
  if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, d);
  cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, d);
  return CUDA_SUCCESS;
}

inline CUresult cuCtxCreate(CUcontext* c, unsigned int flags, CUdevice d) {
  EMU_CU_TRY(emu::driver::device(d));
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  *c = new CUctx_st{d, flags, false};
  emu::driver::current() = *c;
  return CUDA_SUCCESS;
}
inline CUresult cuCtxDestroy(CUcontext c) {
  EMU_CU_TRY(emu::driver::ready());
  if (!c || c->primary) return CUDA_ERROR_INVALID_CONTEXT;
  if (emu::driver::current() == c) emu::driver::current() = nullptr;
  delete c;
  return CUDA_SUCCESS;
}
inline CUresult cuCtxGetCurrent(CUcontext* c) {
  EMU_CU_TRY(emu::driver::ready());
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  *c = emu::driver::current();
  return CUDA_SUCCESS;
}
inline CUresult cuCtxSetCurrent(CUcontext c) {
  EMU_CU_TRY(emu::driver::ready());
  emu::driver::current() = c;
  return CUDA_SUCCESS;
}
// one level of the context stack: what a program that pushes and pops around a call observes
inline CUresult cuCtxPushCurrent(CUcontext c) { return cuCtxSetCurrent(c); }
inline CUresult cuCtxPopCurrent(CUcontext* c) {
  EMU_CU_TRY(emu::driver::context());
  if (c) *c = emu::driver::current();
  emu::driver::current() = nullptr;
  return CUDA_SUCCESS;
}
inline CUresult cuCtxGetDevice(CUdevice* d) {
  EMU_CU_TRY(emu::driver::context());
  if (!d) return CUDA_ERROR_INVALID_VALUE;
  *d = emu::driver::current()->device;
  return CUDA_SUCCESS;
}
inline CUresult cuCtxSynchronize() { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaDeviceSynchronize()); }
inline CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  EMU_CU_TRY(emu::driver::device(d));
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  ++emu::driver::state().primary_refs;
  *c = &emu::driver::state().primary;
  return CUDA_SUCCESS;
}
inline CUresult cuDevicePrimaryCtxRelease(CUdevice d) {
  EMU_CU_TRY(emu::driver::device(d));
  if (emu::driver::state().primary_refs == 0) return CUDA_ERROR_INVALID_CONTEXT;
  --emu::driver::state().primary_refs;
  return CUDA_SUCCESS;
}

inline CUresult cuMemAlloc(CUdeviceptr* p, size_t n) {
  EMU_CU_TRY(emu::driver::context());
  if (!p || n == 0) return CUDA_ERROR_INVALID_VALUE;
  void* q = nullptr;
  EMU_CU_TRY(emu::driver::from(cudaMalloc(&q, n)));
  *p = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(q));
  return CUDA_SUCCESS;
}
inline CUresult cuMemAllocManaged(CUdeviceptr* p, size_t n, unsigned int flags) {
  EMU_CU_TRY(emu::driver::context());
  if (!p || n == 0) return CUDA_ERROR_INVALID_VALUE;
  void* q = nullptr;
  EMU_CU_TRY(emu::driver::from(cudaMallocManaged(&q, n, flags)));
  *p = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(q));
  return CUDA_SUCCESS;
}
inline CUresult cuMemFree(CUdeviceptr p) { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaFree(emu::driver::ptr(p))); }
inline CUresult cuMemAllocHost(void** p, size_t n) { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaMallocHost(p, n)); }
inline CUresult cuMemHostAlloc(void** p, size_t n, unsigned int flags) {
  EMU_CU_TRY(emu::driver::context());
  return emu::driver::from(cudaHostAlloc(p, n, flags));
}
inline CUresult cuMemFreeHost(void* p) { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaFreeHost(p)); }
inline CUresult cuMemGetInfo(size_t* free_bytes, size_t* total) {
  EMU_CU_TRY(emu::driver::context());
  return emu::driver::from(cudaMemGetInfo(free_bytes, total));
}
inline CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  EMU_CU_TRY(emu::driver::context());
  return emu::driver::from(cudaMemcpy(emu::driver::ptr(dst), emu::driver::ptr(src), n, cudaMemcpyDefault));
}
inline CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t n) {
  EMU_CU_TRY(emu::driver::context());
  return emu::driver::from(cudaMemcpy(emu::driver::ptr(dst), src, n, cudaMemcpyHostToDevice));
}
inline CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t n) {
  EMU_CU_TRY(emu::driver::context());
  return emu::driver::from(cudaMemcpy(dst, emu::driver::ptr(src), n, cudaMemcpyDeviceToHost));
}
inline CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  EMU_CU_TRY(emu::driver::context());
  return emu::driver::from(cudaMemcpy(emu::driver::ptr(dst), emu::driver::ptr(src), n, cudaMemcpyDeviceToDevice));
}
inline CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t n, CUstream s) {
  EMU_CU_TRY(emu::driver::context());
  return emu::driver::from(cudaMemcpyAsync(emu::driver::ptr(dst), src, n, cudaMemcpyHostToDevice, s));
}
inline CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t n, CUstream s) {
  EMU_CU_TRY(emu::driver::context());
  return emu::driver::from(cudaMemcpyAsync(dst, emu::driver::ptr(src), n, cudaMemcpyDeviceToHost, s));
}
inline CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  EMU_CU_TRY(emu::driver::context());
  return emu::driver::from(cudaMemcpyAsync(emu::driver::ptr(dst), emu::driver::ptr(src), n, cudaMemcpyDeviceToDevice, s));
}
namespace emu { namespace driver {
// cuMemsetD16/D32 store a 16- or 32-bit pattern n times (cudaMemset stores bytes only)
template <class T> inline CUresult memset_n(CUdeviceptr dst, T value, size_t n) {
  EMU_CU_TRY(context());
  if (dst % alignof(T) != 0) return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceSynchronize();
  T* p = static_cast<T*>(ptr(dst));
  for (size_t i = 0; i < n; ++i) p[i] = value;
  return CUDA_SUCCESS;
}
}}  // namespace emu::driver
inline CUresult cuMemsetD8(CUdeviceptr dst, unsigned char v, size_t n) { return emu::driver::memset_n<unsigned char>(dst, v, n); }
inline CUresult cuMemsetD16(CUdeviceptr dst, unsigned short v, size_t n) { return emu::driver::memset_n<unsigned short>(dst, v, n); }
inline CUresult cuMemsetD32(CUdeviceptr dst, unsigned int v, size_t n) { return emu::driver::memset_n<unsigned int>(dst, v, n); }
// launches and copies complete at once here, so an asynchronous memset is the synchronous one
inline CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream) { return cuMemsetD8(dst, v, n); }
inline CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, CUstream) { return cuMemsetD16(dst, v, n); }
inline CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream) { return cuMemsetD32(dst, v, n); }

inline CUresult cuStreamCreate(CUstream* s, unsigned int flags) {
  EMU_CU_TRY(emu::driver::context());
  return emu::driver::from(cudaStreamCreateWithFlags(s, flags));
}
inline CUresult cuStreamDestroy(CUstream s) { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaStreamDestroy(s)); }
inline CUresult cuStreamSynchronize(CUstream s) { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaStreamSynchronize(s)); }
inline CUresult cuEventCreate(CUevent* e, unsigned int flags) {
  EMU_CU_TRY(emu::driver::context());
  return emu::driver::from(cudaEventCreateWithFlags(e, flags));
}
inline CUresult cuEventRecord(CUevent e, CUstream s) { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaEventRecord(e, s)); }
inline CUresult cuEventSynchronize(CUevent e) { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaEventSynchronize(e)); }
inline CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
  EMU_CU_TRY(emu::driver::context());
  return emu::driver::from(cudaEventElapsedTime(ms, a, b));
}
inline CUresult cuEventDestroy(CUevent e) { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaEventDestroy(e)); }

inline CUresult cuGetErrorName(CUresult r, const char** s) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  switch (r) {
#define EMU_CU_NAME(x) case x: *s = #x; return CUDA_SUCCESS;
    EMU_CU_NAME(CUDA_SUCCESS) EMU_CU_NAME(CUDA_ERROR_INVALID_VALUE) EMU_CU_NAME(CUDA_ERROR_OUT_OF_MEMORY)
    EMU_CU_NAME(CUDA_ERROR_NOT_INITIALIZED) EMU_CU_NAME(CUDA_ERROR_DEINITIALIZED) EMU_CU_NAME(CUDA_ERROR_NO_DEVICE)
    EMU_CU_NAME(CUDA_ERROR_INVALID_DEVICE) EMU_CU_NAME(CUDA_ERROR_INVALID_CONTEXT)
    EMU_CU_NAME(CUDA_ERROR_CONTEXT_ALREADY_CURRENT) EMU_CU_NAME(CUDA_ERROR_INVALID_HANDLE)
    EMU_CU_NAME(CUDA_ERROR_NOT_FOUND) EMU_CU_NAME(CUDA_ERROR_NOT_READY) EMU_CU_NAME(CUDA_ERROR_NOT_SUPPORTED)
    EMU_CU_NAME(CUDA_ERROR_UNKNOWN)
#undef EMU_CU_NAME
  }
  *s = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}
inline CUresult cuGetErrorString(CUresult r, const char** s) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  switch (r) {
    case CUDA_SUCCESS: *s = "no error"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE: *s = "invalid argument"; return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "out of memory"; return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_INITIALIZED: *s = "initialization error"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_DEVICE: *s = "invalid device ordinal"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_CONTEXT: *s = "invalid device context"; return CUDA_SUCCESS;
    default: return cuGetErrorName(r, s);
  }
}

// cuda.h maps these names onto their `_v2` entry points; a program may use either spelling
#define cuDeviceTotalMem_v2 cuDeviceTotalMem
#define cuCtxCreate_v2 cuCtxCreate
#define cuCtxDestroy_v2 cuCtxDestroy
#define cuCtxPushCurrent_v2 cuCtxPushCurrent
#define cuCtxPopCurrent_v2 cuCtxPopCurrent
#define cuMemAlloc_v2 cuMemAlloc
#define cuMemFree_v2 cuMemFree
#define cuMemAllocHost_v2 cuMemAllocHost
#define cuMemGetInfo_v2 cuMemGetInfo
#define cuMemcpyHtoD_v2 cuMemcpyHtoD
#define cuMemcpyDtoH_v2 cuMemcpyDtoH
#define cuMemcpyDtoD_v2 cuMemcpyDtoD
#define cuMemcpyHtoDAsync_v2 cuMemcpyHtoDAsync
#define cuMemcpyDtoHAsync_v2 cuMemcpyDtoHAsync
#define cuMemcpyDtoDAsync_v2 cuMemcpyDtoDAsync
#define cuMemsetD8_v2 cuMemsetD8
#define cuMemsetD16_v2 cuMemsetD16
#define cuMemsetD32_v2 cuMemsetD32
#define cuStreamDestroy_v2 cuStreamDestroy
#define cuEventDestroy_v2 cuEventDestroy
#define cuDevicePrimaryCtxRelease_v2 cuDevicePrimaryCtxRelease
#undef EMU_CU_TRY
