// rocm-port `port emulate`: the host API of the CPU runtime (memory, streams, events, errors,
// device properties).
#include "emu_internal.h"

#include <unistd.h>

#include <chrono>

// ---- host API: device memory is host memory, every call completes before it returns ---------
struct emu_stream { int flags; };
struct emu_event { std::chrono::steady_clock::time_point at; };

namespace emu {
namespace {
cudaError_t set(cudaError_t e) {
  if (e != cudaSuccess) rt().last_error = e;
  return e;
}
cudaError_t host_alloc(void** p, size_t n) {
  if (p == nullptr) return set(cudaErrorInvalidValue);
  *p = nullptr;
  if (n == 0) return cudaSuccess;
  return posix_memalign(p, 256, n) == 0 ? cudaSuccess : set(cudaErrorMemoryAllocation);
}
cudaError_t copy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  if ((unsigned)kind > (unsigned)cudaMemcpyDefault) return set(cudaErrorInvalidMemcpyDirection);
  if (n && (dst == nullptr || src == nullptr)) return set(cudaErrorInvalidValue);
  if (n) std::memmove(dst, src, n);
  return cudaSuccess;
}
const cudaDeviceProp& props() {
  Runtime& r = rt();
  cudaDeviceProp& p = r.prop;
  if (p.warpSize) return p;
  // the same device at both widths except warpSize, so width is the only difference a run sees
  std::snprintf(p.name, sizeof p.name, "rocm-port CPU emulator");
  std::snprintf(p.gcnArchName, sizeof p.gcnArchName, "emulated");
  p.totalGlobalMem = (size_t)16 << 30;
  p.sharedMemPerBlock = 64 * 1024;
  p.sharedMemPerBlockOptin = sizeof dynamic_shared;
  p.sharedMemPerMultiprocessor = p.maxSharedMemoryPerMultiProcessor = sizeof dynamic_shared;
  p.totalConstMem = 64 * 1024;
  p.memPitch = (size_t)1 << 31;
  p.textureAlignment = p.texturePitchAlignment = 256;
  p.regsPerBlock = p.regsPerMultiprocessor = 65536;
  p.warpSize = EMU_WARP;
  p.maxThreadsPerBlock = kMaxThreads;
  p.maxThreadsDim[0] = p.maxThreadsDim[1] = 1024;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 2147483647;
  p.maxGridSize[1] = p.maxGridSize[2] = 65535;
  p.clockRate = p.memoryClockRate = 1000000;
  p.memoryBusWidth = 4096;
  p.major = 8;
  p.minor = 0;
  p.multiProcessorCount = 1;
  p.l2CacheSize = 4 << 20;
  p.maxThreadsPerMultiProcessor = 2048;
  p.maxBlocksPerMultiProcessor = 32;
  p.concurrentKernels = p.deviceOverlap = p.asyncEngineCount = 1;
  p.canMapHostMemory = p.unifiedAddressing = p.managedMemory = 1;
  p.concurrentManagedAccess = p.pageableMemoryAccess = p.directManagedMemAccessFromHost = 1;
  return p;
}
}  // namespace
}  // namespace emu

using emu::set;

cudaError_t cudaMalloc(void** p, size_t n) { return emu::host_alloc(p, n); }
cudaError_t cudaMallocHost(void** p, size_t n) { return emu::host_alloc(p, n); }
cudaError_t cudaHostAlloc(void** p, size_t n, unsigned int) { return emu::host_alloc(p, n); }
cudaError_t cudaMallocManaged(void** p, size_t n, unsigned int) { return emu::host_alloc(p, n); }
cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t) { return emu::host_alloc(p, n); }
cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height) {
  if (pitch == nullptr) return set(cudaErrorInvalidValue);
  *pitch = (width + 255) / 256 * 256;
  return emu::host_alloc(p, *pitch * height);
}
cudaError_t cudaFree(void* p) { std::free(p); return cudaSuccess; }
cudaError_t cudaFreeHost(void* p) { std::free(p); return cudaSuccess; }
cudaError_t cudaFreeAsync(void* p, cudaStream_t) { std::free(p); return cudaSuccess; }
cudaError_t cudaHostRegister(void*, size_t, unsigned int) { return cudaSuccess; }
cudaError_t cudaHostUnregister(void*) { return cudaSuccess; }
cudaError_t cudaHostGetDevicePointer(void** d, void* h, unsigned int) {
  if (d == nullptr) return set(cudaErrorInvalidValue);
  *d = h;
  return cudaSuccess;
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p) {
  if (a == nullptr) return set(cudaErrorInvalidValue);
  a->type = cudaMemoryTypeManaged;
  a->device = 0;
  a->devicePointer = a->hostPointer = const_cast<void*>(p);
  return cudaSuccess;
}
cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind k) { return emu::copy(d, s, n, k); }
cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind k, cudaStream_t) { return emu::copy(d, s, n, k); }
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height, cudaMemcpyKind k) {
  if (width > dpitch || width > spitch) return set(cudaErrorInvalidValue);
  for (size_t row = 0; row < height; ++row) {
    cudaError_t e = emu::copy(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch, width, k);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h, cudaMemcpyKind k, cudaStream_t) {
  return cudaMemcpy2D(dst, dp, src, sp, w, h, k);
}
cudaError_t cudaMemset(void* p, int v, size_t n) {
  if (n && p == nullptr) return set(cudaErrorInvalidValue);
  if (n) std::memset(p, v, n);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t) { return cudaMemset(p, v, n); }
cudaError_t cudaMemset2D(void* p, size_t pitch, int v, size_t width, size_t height) {
  for (size_t row = 0; row < height; ++row) std::memset(static_cast<char*>(p) + row * pitch, v, width);
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (free_bytes) *free_bytes = (size_t)sysconf(_SC_AVPHYS_PAGES) * page;
  if (total_bytes) *total_bytes = (size_t)sysconf(_SC_PHYS_PAGES) * page;
  return cudaSuccess;
}
cudaError_t cudaMemPrefetchAsync(const void*, size_t, int, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
cudaError_t cudaThreadSynchronize() { return cudaSuccess; }
cudaError_t cudaDeviceReset() { emu::rt().last_error = cudaSuccess; return cudaSuccess; }
cudaError_t cudaThreadExit() { return cudaDeviceReset(); }
cudaError_t cudaGetLastError() {
  cudaError_t e = emu::rt().last_error;
  emu::rt().last_error = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError() { return emu::rt().last_error; }
const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidSymbol: return "cudaErrorInvalidSymbol";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchTimeout: return "cudaErrorLaunchTimeout";
    case cudaErrorAssert: return "cudaErrorAssert";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    default: return "cudaErrorUnknown";
  }
}
const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorNotReady: return "device not ready";
    default: return cudaGetErrorName(e);
  }
}
cudaError_t cudaGetDeviceCount(int* n) { if (!n) return set(cudaErrorInvalidValue); *n = 1; return cudaSuccess; }
cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : set(cudaErrorInvalidDevice); }
cudaError_t cudaGetDevice(int* d) { if (!d) return set(cudaErrorInvalidValue); *d = 0; return cudaSuccess; }
cudaError_t cudaSetDeviceFlags(unsigned int f) { emu::rt().device_flags = f; return cudaSuccess; }
cudaError_t cudaGetDeviceFlags(unsigned int* f) { if (!f) return set(cudaErrorInvalidValue); *f = emu::rt().device_flags; return cudaSuccess; }
cudaError_t cudaChooseDevice(int* d, const cudaDeviceProp*) { return cudaGetDevice(d); }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) {
  if (p == nullptr) return set(cudaErrorInvalidValue);
  if (d != 0) return set(cudaErrorInvalidDevice);
  *p = emu::props();
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int d) {
  if (v == nullptr) return set(cudaErrorInvalidValue);
  if (d != 0) return set(cudaErrorInvalidDevice);
  const cudaDeviceProp& p = emu::props();
  switch (a) {
    case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *v = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *v = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *v = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *v = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *v = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *v = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = (int)p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrTotalConstantMemory: *v = (int)p.totalConstMem; break;
    case cudaDevAttrWarpSize: *v = p.warpSize; break;
    case cudaDevAttrMaxRegistersPerBlock: *v = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *v = p.clockRate; break;
    case cudaDevAttrMemoryClockRate: *v = p.memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: *v = p.memoryBusWidth; break;
    case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; break;
    case cudaDevAttrComputeCapabilityMajor: *v = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *v = p.minor; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrL2CacheSize: *v = p.l2CacheSize; break;
    case cudaDevAttrIntegrated: *v = p.integrated; break;
    case cudaDevAttrCooperativeLaunch: case cudaDevAttrCooperativeMultiDeviceLaunch: *v = 0; break;
    case cudaDevAttrComputeMode: *v = cudaComputeModeDefault; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *v = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *v = p.regsPerMultiprocessor; break;
    case cudaDevAttrKernelExecTimeout: case cudaDevAttrEccEnabled: case cudaDevAttrTccDriver:
    case cudaDevAttrPciBusId: case cudaDevAttrPciDeviceId: case cudaDevAttrMaxPersistingL2CacheSize:
      *v = 0;
      break;
    default: *v = 1; break;  // capabilities a CPU process has: managed memory, host atomics, ...
  }
  return cudaSuccess;
}
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }
cudaError_t cudaDriverGetVersion(int* v) { if (!v) return set(cudaErrorInvalidValue); *v = CUDART_VERSION; return cudaSuccess; }
cudaError_t cudaRuntimeGetVersion(int* v) { return cudaDriverGetVersion(v); }
cudaError_t cudaStreamCreate(cudaStream_t* s) { return cudaStreamCreateWithFlags(s, 0); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int flags) {
  if (s == nullptr) return set(cudaErrorInvalidValue);
  *s = new emu_stream{(int)flags};
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned int flags, int) { return cudaStreamCreateWithFlags(s, flags); }
cudaError_t cudaStreamDestroy(cudaStream_t s) { delete s; return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) { return cudaSuccess; }
cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void* data, unsigned int) {
  cb(s, cudaSuccess, data);  // work on a stream is already complete when it is queued
  return cudaSuccess;
}
cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t fn, void* data) { fn(data); return cudaSuccess; }
cudaError_t cudaEventCreate(cudaEvent_t* e) { return cudaEventCreateWithFlags(e, 0); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) {
  if (e == nullptr) return set(cudaErrorInvalidValue);
  *e = new emu_event{std::chrono::steady_clock::now()};
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  if (e == nullptr) return set(cudaErrorInvalidResourceHandle);
  e->at = std::chrono::steady_clock::now();
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  if (ms == nullptr || a == nullptr || b == nullptr) return set(cudaErrorInvalidValue);
  *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return cudaSuccess; }
cudaError_t cudaProfilerStart() { return cudaSuccess; }
cudaError_t cudaProfilerStop() { return cudaSuccess; }
cudaError_t emu_func_attributes(cudaFuncAttributes* a) {
  if (a == nullptr) return set(cudaErrorInvalidValue);
  *a = cudaFuncAttributes{};
  a->maxThreadsPerBlock = 1024;
  a->maxDynamicSharedSizeBytes = (int)sizeof emu::dynamic_shared;
  return cudaSuccess;
}
