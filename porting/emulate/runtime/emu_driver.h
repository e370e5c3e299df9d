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
// PTX, fatbins) and launching from them are emulated for modules built from a .cu of the
// program's tree (below, "modules and launches"); the linker (cuLink*), libraries (cuLibrary*)
// and virtual memory management stay refused by refuse.py, by name.
#pragma once
#include "emu_runtime.h"

// a driver-API program sees these standard headers too (nvcc's <cuda.h> brings none of them)
#include <string>
#include <unordered_map>
#include <vector>

#define __cuda_cuda_h__ 1

typedef enum cudaError_enum { EMU_CU_RESULTS(EMU_ENUMERATOR) } CUresult;
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
// CUDA 12.5+ (the samples of c94ff366): execution-affinity and CIG parameters, none of which applies here
typedef struct CUctxCreateParams_st { void* execAffinityParams; int numExecAffinityParams; void* cigParams; } CUctxCreateParams;
inline CUresult cuCtxCreate(CUcontext* c, CUctxCreateParams*, unsigned int flags, CUdevice d) { return cuCtxCreate(c, flags, d); }
inline CUresult cuCtxDestroy(CUcontext c) {
  EMU_CU_TRY(emu::driver::ready());
  if (!c || c->primary) return CUDA_ERROR_INVALID_CONTEXT;
  if (emu::driver::current() == c) emu::driver::current() = nullptr;
  delete c;
  return CUDA_SUCCESS;
}
// the CUDA 2-3 names: cuCtxDetach ends a context cuCtxCreate made; cuDeviceGetProperties's
// record (SIMDWidth is the warp width of this run, as warpSize)
inline CUresult cuCtxDetach(CUcontext c) { return cuCtxDestroy(c); }
typedef struct CUdevprop_st {
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], sharedMemPerBlock, totalConstantMemory, SIMDWidth,
      memPitch, regsPerBlock, clockRate, textureAlign;
} CUdevprop;
inline CUresult cuDeviceGetProperties(CUdevprop* p, CUdevice d) {
  EMU_CU_TRY(emu::driver::device(d));
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp q;
  cudaGetDeviceProperties(&q, d);
  *p = CUdevprop{q.maxThreadsPerBlock, {q.maxThreadsDim[0], q.maxThreadsDim[1], q.maxThreadsDim[2]},
                 {q.maxGridSize[0], q.maxGridSize[1], q.maxGridSize[2]}, (int)q.sharedMemPerBlock,
                 (int)q.totalConstMem, q.warpSize, (int)q.memPitch, q.regsPerBlock, q.clockRate, (int)q.textureAlignment};
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
// launches and copies complete at once here: a recorded event and a stream's work are done
inline CUresult cuEventQuery(CUevent e) { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaEventQuery(e)); }
inline CUresult cuStreamQuery(CUstream s) { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaStreamQuery(s)); }
inline CUresult cuEventSynchronize(CUevent e) { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaEventSynchronize(e)); }
inline CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
  EMU_CU_TRY(emu::driver::context());
  return emu::driver::from(cudaEventElapsedTime(ms, a, b));
}
inline CUresult cuEventDestroy(CUevent e) { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaEventDestroy(e)); }

inline CUresult cuGetErrorName(CUresult r, const char** s) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  switch (r) {
#define EMU_CU_NAME(x, value) case x: *s = #x; return CUDA_SUCCESS;
    EMU_CU_RESULTS(EMU_CU_NAME)
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

// ---- modules and launches ----------------------------------------------------------------------
// port emulate compiles the .cu a module is built from into the program (porting/emulate/modules.py)
// and writes, where the module file would be, a marker naming that .cu ("EMU-MODULE\t<stem>\n").
// Loading a module reads the marker; its kernels are the program's `extern "C"` __global__
// functions registered by the rewrite (emu::driver::register_kernel, one per definition, with the
// translation unit it was compiled in), its globals the file-scope __device__/__constant__
// variables. An image that is not a marker (PTX embedded in the program, a cubin from elsewhere)
// stops the run as unsupported, named: there is no PTX or SASS interpreter here.
typedef enum CUjit_option_enum {
  CU_JIT_MAX_REGISTERS = 0, CU_JIT_THREADS_PER_BLOCK = 1, CU_JIT_WALL_TIME = 2, CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4, CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7, CU_JIT_TARGET_FROM_CUCONTEXT = 8, CU_JIT_TARGET = 9, CU_JIT_FALLBACK_STRATEGY = 10,
  CU_JIT_GENERATE_DEBUG_INFO = 11, CU_JIT_LOG_VERBOSE = 12, CU_JIT_GENERATE_LINE_INFO = 13, CU_JIT_CACHE_MODE = 14
} CUjit_option;
typedef enum CUfunction_attribute_enum {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3, CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_PTX_VERSION = 5, CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6, CU_FUNC_ATTRIBUTE_CACHE_MODE_CA = 7,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9
} CUfunction_attribute;
typedef enum CUfunc_cache_enum {
  CU_FUNC_CACHE_PREFER_NONE = 0, CU_FUNC_CACHE_PREFER_SHARED = 1, CU_FUNC_CACHE_PREFER_L1 = 2, CU_FUNC_CACHE_PREFER_EQUAL = 3
} CUfunc_cache;
#define CU_LAUNCH_PARAM_END ((void*)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void*)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void*)0x02)
#define CU_PARAM_TR_DEFAULT -1
typedef size_t (*CUoccupancyB2DSize)(int block);

struct CUmod_st { std::string stem; };
struct CUfunc_st {
  std::string name;
  const void* address;
  emu::KernelEntry entry;
  dim3 block{1, 1, 1};          // cuFuncSetBlockShape
  unsigned int shared = 0;      // cuFuncSetSharedSize
  std::vector<char> params;     // cuParamSet*: the argument buffer, laid out as `extra`'s
};
typedef CUmod_st* CUmodule;
typedef CUfunc_st* CUfunction;

namespace emu { namespace driver {
inline const char kMarker[] = "EMU-MODULE\t";
inline CUresult load_image(CUmodule* m, const void* image, const char* how) {
  EMU_CU_TRY(context());
  if (!m || !image) return CUDA_ERROR_INVALID_VALUE;
  const char* text = static_cast<const char*>(image);
  if (std::strncmp(text, kMarker, sizeof kMarker - 1) != 0) {
    std::string why = std::string(how) + " of an image port emulate did not build from the program's source tree "
                      "(PTX or a cubin embedded or made at run time; only a module file named by a literal "
                      "whose stem matches a .cu of the tree is emulated)";
    emu::unsupported(why.c_str());
  }
  std::string stem(text + sizeof kMarker - 1);
  stem = stem.substr(0, stem.find('\n'));
  *m = new CUmod_st{stem};
  return CUDA_SUCCESS;
}
// the kernel's arguments, from `kernelParams` (one pointer each) or `extra`'s packed buffer
inline CUresult launch(CUfunction f, dim3 g, dim3 b, unsigned int shared, CUstream s, void** params, void** extra) {
  EMU_CU_TRY(context());
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (params) {
    f->entry.launch(f->address, config(g, b, shared, s), params);
    return from(cudaGetLastError());
  }
  void* buffer = nullptr;
  size_t size = 0;
  for (void** e = extra; e && *e != CU_LAUNCH_PARAM_END; e += 2) {
    if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = e[1];
    else if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE) size = *static_cast<size_t*>(e[1]);
    else return CUDA_ERROR_INVALID_VALUE;
  }
  std::vector<void*> args(64);
  size_t need = f->entry.point(static_cast<char*>(buffer), args.data());
  if (need > 0 && (!buffer || size < need)) return CUDA_ERROR_INVALID_VALUE;
  f->entry.launch(f->address, config(g, b, shared, s), args.data());
  return from(cudaGetLastError());
}
}}  // namespace emu::driver

inline CUresult cuModuleLoadData(CUmodule* m, const void* image) { return emu::driver::load_image(m, image, "cuModuleLoadData"); }
inline CUresult cuModuleLoadFatBinary(CUmodule* m, const void* image) { return emu::driver::load_image(m, image, "cuModuleLoadFatBinary"); }
// the JIT options (log buffers, optimisation level) have nothing to act on: the .cu is compiled already
inline CUresult cuModuleLoadDataEx(CUmodule* m, const void* image, unsigned int, CUjit_option*, void**) {
  return emu::driver::load_image(m, image, "cuModuleLoadDataEx");
}
inline CUresult cuModuleLoad(CUmodule* m, const char* path) {
  EMU_CU_TRY(emu::driver::context());
  if (!m || !path) return CUDA_ERROR_INVALID_VALUE;
  std::FILE* f = std::fopen(path, "rb");
  if (!f) return CUDA_ERROR_FILE_NOT_FOUND;
  char head[512] = {};
  size_t n = std::fread(head, 1, sizeof head - 1, f);
  std::fclose(f);
  head[n] = 0;
  return emu::driver::load_image(m, head, "cuModuleLoad");
}
inline CUresult cuModuleUnload(CUmodule m) {
  EMU_CU_TRY(emu::driver::context());
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  delete m;
  return CUDA_SUCCESS;
}
inline CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  EMU_CU_TRY(emu::driver::context());
  if (!f || !m || !name) return CUDA_ERROR_INVALID_VALUE;
  const emu::driver::Named* k = emu::driver::find(true, name, m->stem.c_str());
  if (!k && std::strncmp(name, "_Z", 2) == 0) {
    std::string why = std::string("cuModuleGetFunction of '") + name + "', a C++ (mangled) kernel name: only "
                      "extern \"C\" kernels are registered by name";
    emu::unsupported(why.c_str());
  }
  if (!k) return CUDA_ERROR_NOT_FOUND;
  *f = new CUfunc_st{name, k->address, k->entry};
  return CUDA_SUCCESS;
}
inline CUresult cuModuleGetGlobal(CUdeviceptr* p, size_t* bytes, CUmodule m, const char* name) {
  EMU_CU_TRY(emu::driver::context());
  if (!m || !name) return CUDA_ERROR_INVALID_VALUE;
  const emu::driver::Named* g = emu::driver::find(false, name, m->stem.c_str());
  if (!g) return CUDA_ERROR_NOT_FOUND;
  if (p) *p = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(g->address));
  if (bytes) *bytes = g->bytes;
  return CUDA_SUCCESS;
}
inline CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                               unsigned shared, CUstream s, void** params, void** extra) {
  return emu::driver::launch(f, dim3(gx, gy, gz), dim3(bx, by, bz), shared, s, params, extra);
}
inline CUresult cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction f) {
  EMU_CU_TRY(emu::driver::context());
  if (!v || !f) return CUDA_ERROR_INVALID_VALUE;
  cudaFuncAttributes attr;
  emu_func_attributes(&attr);
  switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = attr.maxThreadsPerBlock; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = attr.numRegs; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *v = attr.ptxVersion; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *v = attr.binaryVersion; break;
    default: *v = 0;
  }
  return CUDA_SUCCESS;
}
inline CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute, int) { return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }
inline CUresult cuFuncSetCacheConfig(CUfunction f, CUfunc_cache) { return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }
inline CUresult cuOccupancyMaxPotentialBlockSize(int* grid, int* block, CUfunction f, CUoccupancyB2DSize, size_t, int limit) {
  if (!grid || !block || !f) return CUDA_ERROR_INVALID_VALUE;
  return emu::driver::from(cudaOccupancyMaxPotentialBlockSize(grid, block, f, 0, limit));
}
inline CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, CUfunction f, int block, size_t shared) {
  if (!n || !f) return CUDA_ERROR_INVALID_VALUE;
  return emu::driver::from(cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, f, block, shared));
}
// the CUDA 3 launch API: a block shape and an argument buffer kept on the function
inline CUresult cuFuncSetBlockShape(CUfunction f, int x, int y, int z) {
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  f->block = dim3(x, y, z);
  return CUDA_SUCCESS;
}
inline CUresult cuFuncSetSharedSize(CUfunction f, unsigned int bytes) {
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  f->shared = bytes;
  return CUDA_SUCCESS;
}
inline CUresult cuParamSetSize(CUfunction f, unsigned int bytes) {
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  f->params.resize(bytes);
  return CUDA_SUCCESS;
}
inline CUresult cuParamSetv(CUfunction f, int offset, void* p, unsigned int bytes) {
  if (!f || offset < 0) return CUDA_ERROR_INVALID_VALUE;
  if (f->params.size() < offset + bytes) f->params.resize(offset + bytes);
  std::memcpy(f->params.data() + offset, p, bytes);
  return CUDA_SUCCESS;
}
inline CUresult cuParamSeti(CUfunction f, int offset, unsigned int v) { return cuParamSetv(f, offset, &v, sizeof v); }
inline CUresult cuParamSetf(CUfunction f, int offset, float v) { return cuParamSetv(f, offset, &v, sizeof v); }
inline CUresult cuLaunchGridAsync(CUfunction f, int w, int h, CUstream s) {
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  size_t size = f->params.size();
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, f->params.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  return emu::driver::launch(f, dim3(w, h, 1), f->block, f->shared, s, nullptr, extra);
}
inline CUresult cuLaunchGrid(CUfunction f, int w, int h) { return cuLaunchGridAsync(f, w, h, nullptr); }
inline CUresult cuLaunch(CUfunction f) { return cuLaunchGridAsync(f, 1, 1, nullptr); }

// ---- CUDA arrays and texture objects, over the runtime's (emu_texture.h) ------------------------
typedef cudaArray_t CUarray;
typedef cudaTextureObject_t CUtexObject;
typedef enum CUarray_format_enum {
  CU_AD_FORMAT_UNSIGNED_INT8 = 0x01, CU_AD_FORMAT_UNSIGNED_INT16 = 0x02, CU_AD_FORMAT_UNSIGNED_INT32 = 0x03,
  CU_AD_FORMAT_SIGNED_INT8 = 0x08, CU_AD_FORMAT_SIGNED_INT16 = 0x09, CU_AD_FORMAT_SIGNED_INT32 = 0x0a,
  CU_AD_FORMAT_HALF = 0x10, CU_AD_FORMAT_FLOAT = 0x20
} CUarray_format;
typedef struct CUDA_ARRAY_DESCRIPTOR_st { size_t Width, Height; CUarray_format Format; unsigned int NumChannels; } CUDA_ARRAY_DESCRIPTOR;
typedef enum CUmemorytype_enum {
  CU_MEMORYTYPE_HOST = 1, CU_MEMORYTYPE_DEVICE = 2, CU_MEMORYTYPE_ARRAY = 3, CU_MEMORYTYPE_UNIFIED = 4
} CUmemorytype;
typedef struct CUDA_MEMCPY2D_st {
  size_t srcXInBytes, srcY;
  CUmemorytype srcMemoryType;
  const void* srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  CUmemorytype dstMemoryType;
  void* dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;
typedef enum CUresourcetype_enum {
  CU_RESOURCE_TYPE_ARRAY = 0, CU_RESOURCE_TYPE_MIPMAPPED_ARRAY = 1, CU_RESOURCE_TYPE_LINEAR = 2, CU_RESOURCE_TYPE_PITCH2D = 3
} CUresourcetype;
typedef enum CUaddress_mode_enum {
  CU_TR_ADDRESS_MODE_WRAP = 0, CU_TR_ADDRESS_MODE_CLAMP = 1, CU_TR_ADDRESS_MODE_MIRROR = 2, CU_TR_ADDRESS_MODE_BORDER = 3
} CUaddress_mode;
typedef enum CUfilter_mode_enum { CU_TR_FILTER_MODE_POINT = 0, CU_TR_FILTER_MODE_LINEAR = 1 } CUfilter_mode;
#define CU_TRSF_READ_AS_INTEGER 0x01
#define CU_TRSF_NORMALIZED_COORDINATES 0x02
typedef struct CUDA_RESOURCE_DESC_st {
  CUresourcetype resType;
  union {
    struct { CUarray hArray; } array;
    struct { CUdeviceptr devPtr; CUarray_format format; unsigned int numChannels; size_t sizeInBytes; } linear;
    struct { CUdeviceptr devPtr; CUarray_format format; unsigned int numChannels; size_t width, height, pitchInBytes; } pitch2D;
    struct { int reserved[32]; } reserved;
  } res;
  unsigned int flags;
} CUDA_RESOURCE_DESC;
typedef struct CUDA_TEXTURE_DESC_st {
  CUaddress_mode addressMode[3];
  CUfilter_mode filterMode;
  unsigned int flags, maxAnisotropy;
  CUfilter_mode mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  float borderColor[4];
  int reserved[12];
} CUDA_TEXTURE_DESC;
typedef struct CUDA_RESOURCE_VIEW_DESC_st CUDA_RESOURCE_VIEW_DESC;

namespace emu { namespace driver {
inline cudaChannelFormatDesc channels(CUarray_format f, unsigned int n) {
  int bits = (f == CU_AD_FORMAT_UNSIGNED_INT8 || f == CU_AD_FORMAT_SIGNED_INT8) ? 8
           : (f == CU_AD_FORMAT_UNSIGNED_INT16 || f == CU_AD_FORMAT_SIGNED_INT16 || f == CU_AD_FORMAT_HALF) ? 16 : 32;
  cudaChannelFormatKind k = f == CU_AD_FORMAT_FLOAT || f == CU_AD_FORMAT_HALF ? cudaChannelFormatKindFloat
                          : f >= CU_AD_FORMAT_SIGNED_INT8 ? cudaChannelFormatKindSigned : cudaChannelFormatKindUnsigned;
  return cudaCreateChannelDesc(bits, n > 1 ? bits : 0, n > 2 ? bits : 0, n > 3 ? bits : 0, k);
}
}}  // namespace emu::driver
inline CUresult cuArrayCreate(CUarray* a, const CUDA_ARRAY_DESCRIPTOR* d) {
  EMU_CU_TRY(emu::driver::context());
  if (!a || !d || d->NumChannels < 1 || d->NumChannels > 4) return CUDA_ERROR_INVALID_VALUE;
  cudaChannelFormatDesc c = emu::driver::channels(d->Format, d->NumChannels);
  return emu::driver::from(cudaMallocArray(a, &c, d->Width, d->Height));
}
inline CUresult cuArrayDestroy(CUarray a) { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaFreeArray(a)); }
inline CUresult cuMemcpy2D(const CUDA_MEMCPY2D* p) {
  EMU_CU_TRY(emu::driver::context());
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  auto src = [&]() -> const char* {
    const char* base = p->srcMemoryType == CU_MEMORYTYPE_HOST ? static_cast<const char*>(p->srcHost)
                                                              : static_cast<const char*>(emu::driver::ptr(p->srcDevice));
    return base + p->srcY * p->srcPitch + p->srcXInBytes;
  };
  auto dst = [&]() -> char* {
    char* base = p->dstMemoryType == CU_MEMORYTYPE_HOST ? static_cast<char*>(p->dstHost)
                                                        : static_cast<char*>(emu::driver::ptr(p->dstDevice));
    return base + p->dstY * p->dstPitch + p->dstXInBytes;
  };
  bool from_array = p->srcMemoryType == CU_MEMORYTYPE_ARRAY, to_array = p->dstMemoryType == CU_MEMORYTYPE_ARRAY;
  if (from_array && to_array) return CUDA_ERROR_NOT_SUPPORTED;
  if (to_array)
    return emu::driver::from(cudaMemcpy2DToArray(p->dstArray, p->dstXInBytes, p->dstY, src(), p->srcPitch,
                                                 p->WidthInBytes, p->Height, cudaMemcpyDefault));
  if (from_array)
    return emu::driver::from(cudaMemcpy2DFromArray(dst(), p->dstPitch, p->srcArray, p->srcXInBytes, p->srcY,
                                                   p->WidthInBytes, p->Height, cudaMemcpyDefault));
  return emu::driver::from(cudaMemcpy2D(dst(), p->dstPitch, src(), p->srcPitch, p->WidthInBytes, p->Height, cudaMemcpyDefault));
}
inline CUresult cuTexObjectCreate(CUtexObject* t, const CUDA_RESOURCE_DESC* r, const CUDA_TEXTURE_DESC* d,
                                  const CUDA_RESOURCE_VIEW_DESC* view) {
  EMU_CU_TRY(emu::driver::context());
  if (!t || !r || !d || view) return view ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
  cudaResourceDesc rd;
  std::memset(&rd, 0, sizeof rd);
  rd.resType = static_cast<cudaResourceType>(r->resType);
  if (r->resType == CU_RESOURCE_TYPE_ARRAY) {
    rd.res.array.array = r->res.array.hArray;
  } else if (r->resType == CU_RESOURCE_TYPE_LINEAR) {
    rd.res.linear.devPtr = emu::driver::ptr(r->res.linear.devPtr);
    rd.res.linear.desc = emu::driver::channels(r->res.linear.format, r->res.linear.numChannels);
    rd.res.linear.sizeInBytes = r->res.linear.sizeInBytes;
  } else if (r->resType == CU_RESOURCE_TYPE_PITCH2D) {
    rd.res.pitch2D.devPtr = emu::driver::ptr(r->res.pitch2D.devPtr);
    rd.res.pitch2D.desc = emu::driver::channels(r->res.pitch2D.format, r->res.pitch2D.numChannels);
    rd.res.pitch2D.width = r->res.pitch2D.width;
    rd.res.pitch2D.height = r->res.pitch2D.height;
    rd.res.pitch2D.pitchInBytes = r->res.pitch2D.pitchInBytes;
  } else {
    return CUDA_ERROR_NOT_SUPPORTED;  // mipmapped arrays are not emulated
  }
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof td);
  for (int i = 0; i < 3; ++i) td.addressMode[i] = static_cast<cudaTextureAddressMode>(d->addressMode[i]);
  td.filterMode = static_cast<cudaTextureFilterMode>(d->filterMode);
  // the driver reads integers as normalised floats unless CU_TRSF_READ_AS_INTEGER
  td.readMode = (d->flags & CU_TRSF_READ_AS_INTEGER) ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
  td.normalizedCoords = (d->flags & CU_TRSF_NORMALIZED_COORDINATES) ? 1 : 0;
  for (int i = 0; i < 4; ++i) td.borderColor[i] = d->borderColor[i];
  return emu::driver::from(cudaCreateTextureObject(t, &rd, &td, nullptr));
}
inline CUresult cuTexObjectDestroy(CUtexObject t) { EMU_CU_TRY(emu::driver::context()); return emu::driver::from(cudaDestroyTextureObject(t)); }

// cuda.h maps these names onto their `_v2` entry points; a program may use either spelling
#define cuDeviceTotalMem_v2 cuDeviceTotalMem
#define cuCtxCreate_v2 cuCtxCreate
#define cuCtxDestroy_v2 cuCtxDestroy
#define cuCtxPushCurrent_v2 cuCtxPushCurrent
#define cuCtxPopCurrent_v2 cuCtxPopCurrent
#define cuMemAlloc_v2 cuMemAlloc
#define cuArrayCreate_v2 cuArrayCreate
#define cuMemcpy2D_v2 cuMemcpy2D
#define cuModuleGetGlobal_v2 cuModuleGetGlobal
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
