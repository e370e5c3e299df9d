// rocm-port `port emulate`: the host API of the CPU runtime (memory, streams, events, errors,
// device properties).
#include "emu_internal.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <unordered_map>

// ---- host API: device memory is host memory, every call completes before it returns ---------
// A stream keeps what was set on it, to report it back: its work is done before a call returns.
struct emu_stream {
  int flags;
  int priority;
  cudaLaunchAttributeValue window;  // accessPolicyWindow as set (a hint; no L2 here)
  cudaSynchronizationPolicy sync;
};
// A memory pool is the host heap; it counts the bytes of its live allocations (UsedMem*) and,
// releasing freed memory at once, reserves exactly those (ReservedMem* = UsedMem*).
struct emu_mem_pool {
  cudaMemPoolProps props;
  unsigned long long threshold, used, high;
  bool reuse[3];
  cudaMemAccessFlags access;
};
// An event holds a reading of the emulated device's clock (Runtime::device_ns), which advances
// with the work given to the device: 1 ns per thread of each grid launched, 1 ns per 64 bytes
// copied or set. Not the host's time: elapsed times print the same at every width when the work
// is the same (a bare `printf("%f", ms)` is no false divergence); they are no performance figure.
struct emu_event { unsigned long long at; };

namespace emu {
namespace {
// Under port emulate stdout is a file, which stdio buffers in full: a run stopped at the
// timeout would leave nothing of what it printed. Line buffering keeps every complete line,
// the partial output that can still decide a verdict after a timeout (run._partial_diff).
const bool stdout_by_lines = std::setvbuf(stdout, nullptr, _IOLBF, 1 << 16) == 0;

// After a device fault every runtime call returns the sticky error (emu_launch.cpp), as CUDA's
// do once the context is lost; cudaDeviceReset clears it.
#define EMU_STICKY \
  if (::emu::sticky_error() != cudaSuccess) return ::emu::rt().last_error = ::emu::sticky_error();

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
void device_work(size_t bytes) { rt().device_ns += (bytes + 63) / 64; }
cudaError_t copy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  if ((unsigned)kind > (unsigned)cudaMemcpyDefault) return set(cudaErrorInvalidMemcpyDirection);
  if (n && (dst == nullptr || src == nullptr)) return set(cudaErrorInvalidValue);
  if (n) std::memmove(dst, src, n);
  device_work(n);
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
  p.pageableMemoryAccessUsesHostPageTables = 1;  // one address space: the host's own pages
  p.hostRegisterSupported = p.hostRegisterReadOnlySupported = p.memoryPoolsSupported = 1;
  p.canUseHostPointerForRegisteredMem = 1;
  p.accessPolicyMaxWindowSize = 128 << 20;
  p.singleToDoublePrecisionPerfRatio = 2;
  p.surfaceAlignment = 512;
  return p;
}
}  // namespace

// which pool each pool allocation came from, so that cudaFree(Async) can give its bytes back
struct PoolAllocations {
  std::mutex lock;
  std::unordered_map<void*, std::pair<emu_mem_pool*, size_t>> live;
};
PoolAllocations& pool_allocations() {
  static PoolAllocations* a = new PoolAllocations;  // never destroyed: frees may run at exit
  return *a;
}
void pool_forget(void* p) {
  if (p == nullptr) return;
  PoolAllocations& a = pool_allocations();
  std::lock_guard<std::mutex> hold(a.lock);
  auto it = a.live.find(p);
  if (it == a.live.end()) return;
  it->second.first->used -= it->second.second;
  a.live.erase(it);
}
}  // namespace emu

using emu::set;

cudaError_t cudaMalloc(void** p, size_t n) { EMU_STICKY return emu::host_alloc(p, n); }
cudaError_t cudaMallocHost(void** p, size_t n) { EMU_STICKY return emu::host_alloc(p, n); }
cudaError_t cudaHostAlloc(void** p, size_t n, unsigned int) { EMU_STICKY return emu::host_alloc(p, n); }
cudaError_t cudaMallocManaged(void** p, size_t n, unsigned int) { EMU_STICKY return emu::host_alloc(p, n); }
cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t s) { EMU_STICKY
  cudaMemPool_t pool;
  cudaDeviceGetMemPool(&pool, 0);
  return cudaMallocFromPoolAsync(p, n, pool, s);
}
cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height) { EMU_STICKY
  if (pitch == nullptr) return set(cudaErrorInvalidValue);
  *pitch = (width + 255) / 256 * 256;
  return emu::host_alloc(p, *pitch * height);
}
cudaError_t cudaFree(void* p) { EMU_STICKY emu::pool_forget(p); std::free(p); return cudaSuccess; }
cudaError_t cudaFreeHost(void* p) { EMU_STICKY std::free(p); return cudaSuccess; }
cudaError_t cudaFreeAsync(void* p, cudaStream_t) { EMU_STICKY return cudaFree(p); }
cudaError_t cudaHostRegister(void*, size_t, unsigned int) { EMU_STICKY return cudaSuccess; }
cudaError_t cudaHostUnregister(void*) { EMU_STICKY return cudaSuccess; }
cudaError_t cudaHostGetDevicePointer(void** d, void* h, unsigned int) { EMU_STICKY
  if (d == nullptr) return set(cudaErrorInvalidValue);
  *d = h;
  return cudaSuccess;
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p) { EMU_STICKY
  if (a == nullptr) return set(cudaErrorInvalidValue);
  a->type = cudaMemoryTypeManaged;
  a->device = 0;
  a->devicePointer = a->hostPointer = const_cast<void*>(p);
  return cudaSuccess;
}
cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind k) { EMU_STICKY return emu::copy(d, s, n, k); }
cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind k, cudaStream_t st) { EMU_STICKY
  if (emu::capture(st, cudaGraphNodeTypeMemcpy, [=] { emu::copy(d, s, n, k); })) return cudaSuccess;
  return emu::copy(d, s, n, k);
}
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height, cudaMemcpyKind k) { EMU_STICKY
  if (width > dpitch || width > spitch) return set(cudaErrorInvalidValue);
  for (size_t row = 0; row < height; ++row) {
    cudaError_t e = emu::copy(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch, width, k);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h, cudaMemcpyKind k, cudaStream_t st) { EMU_STICKY
  if (emu::capture(st, cudaGraphNodeTypeMemcpy, [=] { cudaMemcpy2D(dst, dp, src, sp, w, h, k); })) return cudaSuccess;
  return cudaMemcpy2D(dst, dp, src, sp, w, h, k);
}
cudaError_t cudaMemset(void* p, int v, size_t n) { EMU_STICKY
  if (n && p == nullptr) return set(cudaErrorInvalidValue);
  if (n) std::memset(p, v, n);
  emu::device_work(n);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t st) { EMU_STICKY
  if (emu::capture(st, cudaGraphNodeTypeMemset, [=] { cudaMemset(p, v, n); })) return cudaSuccess;
  return cudaMemset(p, v, n);
}
cudaError_t cudaMemset2D(void* p, size_t pitch, int v, size_t width, size_t height) { EMU_STICKY
  for (size_t row = 0; row < height; ++row) std::memset(static_cast<char*>(p) + row * pitch, v, width);
  emu::device_work(width * height);
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) { EMU_STICKY
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (free_bytes) *free_bytes = (size_t)sysconf(_SC_AVPHYS_PAGES) * page;
  if (total_bytes) *total_bytes = (size_t)sysconf(_SC_PHYS_PAGES) * page;
  return cudaSuccess;
}
cudaError_t cudaMemPrefetchAsync(const void*, size_t, int, cudaStream_t) { EMU_STICKY return cudaSuccess; }
// Managed memory's placement hints: one memory here, where host and kernels always see the same
// bytes, so advice and attaching a range to a stream (or to the host) change no result.
cudaError_t cudaMemAdvise(const void*, size_t, cudaMemoryAdvise advice, int) { EMU_STICKY
  return advice >= cudaMemAdviseSetReadMostly && advice <= cudaMemAdviseUnsetAccessedBy ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaMemAdvise(const void* p, size_t n, cudaMemoryAdvise advice, cudaMemLocation) { EMU_STICKY
  return cudaMemAdvise(p, n, advice, 0);
}
cudaError_t cudaMemPrefetchAsync(const void*, size_t, cudaMemLocation where, unsigned int, cudaStream_t) { EMU_STICKY
  return where.type == cudaMemLocationTypeInvalid ? cudaErrorInvalidValue : cudaSuccess;
}
cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void* p, size_t, unsigned int flags) { EMU_STICKY
  bool one_flag = flags == cudaMemAttachGlobal || flags == cudaMemAttachHost || flags == cudaMemAttachSingle;
  return p != nullptr && one_flag ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaDeviceSynchronize() { EMU_STICKY
  // In device code (dynamic parallelism, deprecated since CUDA 11.6, gone in 12) it waits for
  // the thread's child grids, which run here only after the parent grid: not modelled.
  if (emu::in_device_code() && emu::children_pending())
    emu::unsupported("cudaDeviceSynchronize in device code waiting for a child grid (dynamic parallelism)");
  return cudaSuccess;
}
cudaError_t cudaThreadSynchronize() { EMU_STICKY return cudaSuccess; }
cudaError_t cudaDeviceReset() {
  emu::clear_sticky_error();
  emu::rt().last_error = cudaSuccess;
  return cudaSuccess;
}
cudaError_t cudaThreadExit() { return cudaDeviceReset(); }
cudaError_t cudaGetLastError() {
  if (emu::sticky_error() != cudaSuccess) return emu::sticky_error();  // not cleared: the context is lost
  cudaError_t e = emu::rt().last_error;
  emu::rt().last_error = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError() {
  return emu::sticky_error() != cudaSuccess ? emu::sticky_error() : emu::rt().last_error;
}
const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
#define EMU_CUDA_NAME(x, value) case x: return #x;
    EMU_CUDA_ERRORS(EMU_CUDA_NAME)
#undef EMU_CUDA_NAME
  }
  return "cudaErrorUnknown";
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
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorPeerAccessNotEnabled: return "peer access has not been enabled";
    case cudaErrorPeerAccessAlreadyEnabled: return "peer access is already enabled";
    default: return cudaGetErrorName(e);
  }
}
cudaError_t cudaGetDeviceCount(int* n) { if (!n) return set(cudaErrorInvalidValue); *n = 1; return cudaSuccess; }
cudaError_t cudaSetDevice(int d) { EMU_STICKY return d == 0 ? cudaSuccess : set(cudaErrorInvalidDevice); }
cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer) { EMU_STICKY
  if (!can) return set(cudaErrorInvalidValue);
  if (device != 0 || peer != 0) return set(cudaErrorInvalidDevice);
  *can = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) { EMU_STICKY
  if (flags != 0) return set(cudaErrorInvalidValue);
  return set(cudaErrorInvalidDevice);  // device 0 is the only one and no peer of itself
}
cudaError_t cudaDeviceDisablePeerAccess(int peer) { EMU_STICKY
  return set(peer == 0 ? cudaErrorPeerAccessNotEnabled : cudaErrorInvalidDevice);
}
cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, size_t n) { EMU_STICKY
  if (dst_device != 0 || src_device != 0) return set(cudaErrorInvalidDevice);
  return cudaMemcpy(dst, src, n, cudaMemcpyDeviceToDevice);
}
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t n, cudaStream_t s) { EMU_STICKY
  if (dst_device != 0 || src_device != 0) return set(cudaErrorInvalidDevice);
  return cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, s);
}
cudaError_t cudaGetDevice(int* d) { EMU_STICKY if (!d) return set(cudaErrorInvalidValue); *d = 0; return cudaSuccess; }
cudaError_t cudaSetDeviceFlags(unsigned int f) { EMU_STICKY emu::rt().device_flags = f; return cudaSuccess; }
cudaError_t cudaGetDeviceFlags(unsigned int* f) { EMU_STICKY if (!f) return set(cudaErrorInvalidValue); *f = emu::rt().device_flags; return cudaSuccess; }
cudaError_t cudaChooseDevice(int* d, const cudaDeviceProp*) { EMU_STICKY return cudaGetDevice(d); }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) { EMU_STICKY
  if (p == nullptr) return set(cudaErrorInvalidValue);
  if (d != 0) return set(cudaErrorInvalidDevice);
  *p = emu::props();
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int d) { EMU_STICKY
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
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { EMU_STICKY return cudaSuccess; }
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { EMU_STICKY return cudaSuccess; }
cudaError_t cudaDriverGetVersion(int* v) { if (!v) return set(cudaErrorInvalidValue); *v = CUDART_VERSION; return cudaSuccess; }
cudaError_t cudaRuntimeGetVersion(int* v) { return cudaDriverGetVersion(v); }
cudaError_t cudaStreamCreate(cudaStream_t* s) { EMU_STICKY return cudaStreamCreateWithFlags(s, 0); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int flags) { EMU_STICKY
  if (s == nullptr) return set(cudaErrorInvalidValue);
  *s = new emu_stream{(int)flags, 0, {}, cudaSyncPolicyAuto};
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned int flags, int priority) { EMU_STICKY
  cudaError_t e = cudaStreamCreateWithFlags(s, flags);
  if (e != cudaSuccess) return e;
  cudaStreamAttrValue v{};
  v.priority = priority;  // clamped to the device's range, as CUDA does
  return cudaStreamSetAttribute(*s, cudaStreamAttributePriority, &v);
}
cudaError_t cudaStreamDestroy(cudaStream_t s) { EMU_STICKY delete s; return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { EMU_STICKY return cudaSuccess; }
cudaError_t cudaStreamQuery(cudaStream_t) { EMU_STICKY return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int) { EMU_STICKY emu::capture_wait(s, e); return cudaSuccess; }
cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void* data, unsigned int) { EMU_STICKY
  emu::on_stream(s, cudaGraphNodeTypeHost, [=] { cb(s, cudaSuccess, data); });  // done at once, unless captured
  return cudaSuccess;
}
cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void* data) { EMU_STICKY
  emu::on_stream(s, cudaGraphNodeTypeHost, [=] { fn(data); });
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* e) { EMU_STICKY return cudaEventCreateWithFlags(e, 0); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) { EMU_STICKY
  if (e == nullptr) return set(cudaErrorInvalidValue);
  *e = new emu_event{emu::rt().device_ns};
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { EMU_STICKY
  if (e == nullptr) return set(cudaErrorInvalidResourceHandle);
  emu::capture_event(e, s);  // a stream that waits on it joins s's capture
  e->at = emu::rt().device_ns;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t) { EMU_STICKY return cudaSuccess; }
cudaError_t cudaEventQuery(cudaEvent_t) { EMU_STICKY return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) { EMU_STICKY
  if (ms == nullptr || a == nullptr || b == nullptr) return set(cudaErrorInvalidValue);
  *ms = (float)((double)((long long)(b->at - a->at)) / 1e6);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) { EMU_STICKY delete e; return cudaSuccess; }
cudaError_t cudaProfilerStart() { EMU_STICKY return cudaSuccess; }
cudaError_t cudaProfilerStop() { EMU_STICKY return cudaSuccess; }
cudaError_t emu_func_attributes(cudaFuncAttributes* a) {
  if (a == nullptr) return set(cudaErrorInvalidValue);
  *a = cudaFuncAttributes{};
  a->maxThreadsPerBlock = 1024;
  a->maxDynamicSharedSizeBytes = (int)sizeof emu::dynamic_shared;
  return cudaSuccess;
}

// ---- resource hints (emu_base.h): accepted, validated as CUDA does, reported back ----------
namespace {
size_t limits[7] = {1024, (size_t)1 << 20, (size_t)8 << 20, 2, 2048, 64, 0};  // CUDA's defaults
emu_stream default_stream{0, 0, {}, cudaSyncPolicyAuto};
emu_stream* stream_of(cudaStream_t s) {
  return (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) ? &default_stream : s;
}
constexpr int kLeastPriority = 0, kGreatestPriority = -5;  // an A100's range (sm_80, as emulated)
emu_mem_pool* new_pool(const cudaMemPoolProps& props) {
  emu_mem_pool* pool = new emu_mem_pool{props, 0, 0, 0, {true, true, true}, cudaMemAccessFlagsProtReadWrite};
  return pool;
}
cudaMemPool_t& current_pool() {
  static cudaMemPool_t pool = nullptr;
  return pool;
}
}  // namespace

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) { EMU_STICKY
  if ((unsigned)limit >= sizeof limits / sizeof limits[0]) return set(cudaErrorInvalidValue);
  limits[limit] = value;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) { EMU_STICKY
  if (value == nullptr || (unsigned)limit >= sizeof limits / sizeof limits[0]) return set(cudaErrorInvalidValue);
  *value = limits[limit];
  return cudaSuccess;
}
cudaError_t cudaCtxResetPersistingL2Cache() { EMU_STICKY return cudaSuccess; }
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) { EMU_STICKY
  if (least) *least = kLeastPriority;
  if (greatest) *greatest = kGreatestPriority;
  return cudaSuccess;
}
cudaError_t cudaStreamGetPriority(cudaStream_t s, int* priority) { EMU_STICKY
  if (priority == nullptr) return set(cudaErrorInvalidValue);
  *priority = stream_of(s)->priority;
  return cudaSuccess;
}
cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned int* flags) { EMU_STICKY
  if (flags == nullptr) return set(cudaErrorInvalidValue);
  *flags = (unsigned)stream_of(s)->flags;
  return cudaSuccess;
}
cudaError_t cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID id, const cudaStreamAttrValue* value) { EMU_STICKY
  if (value == nullptr) return set(cudaErrorInvalidValue);
  emu_stream* st = stream_of(s);
  switch (id) {
    case cudaLaunchAttributeAccessPolicyWindow:
      if (value->accessPolicyWindow.hitRatio < 0.0f || value->accessPolicyWindow.hitRatio > 1.0f) return set(cudaErrorInvalidValue);
      st->window.accessPolicyWindow = value->accessPolicyWindow;
      return cudaSuccess;
    case cudaLaunchAttributeSynchronizationPolicy: st->sync = value->syncPolicy; return cudaSuccess;
    case cudaLaunchAttributePriority:
      st->priority = std::min(kLeastPriority, std::max(kGreatestPriority, value->priority));
      return cudaSuccess;
    default: return set(cudaErrorInvalidValue);
  }
}
cudaError_t cudaStreamGetAttribute(cudaStream_t s, cudaStreamAttrID id, cudaStreamAttrValue* value) { EMU_STICKY
  if (value == nullptr) return set(cudaErrorInvalidValue);
  emu_stream* st = stream_of(s);
  switch (id) {
    case cudaLaunchAttributeAccessPolicyWindow: value->accessPolicyWindow = st->window.accessPolicyWindow; return cudaSuccess;
    case cudaLaunchAttributeSynchronizationPolicy: value->syncPolicy = st->sync; return cudaSuccess;
    case cudaLaunchAttributePriority: value->priority = st->priority; return cudaSuccess;
    default: return set(cudaErrorInvalidValue);
  }
}
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) { EMU_STICKY
  if (pool == nullptr) return set(cudaErrorInvalidValue);
  if (device != 0) return set(cudaErrorInvalidDevice);
  static cudaMemPool_t the_default = [] {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location = {cudaMemLocationTypeDevice, 0};
    return new_pool(props);
  }();
  *pool = the_default;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) { EMU_STICKY
  if (pool == nullptr) return set(cudaErrorInvalidValue);
  if (current_pool() != nullptr && device == 0) {
    *pool = current_pool();
    return cudaSuccess;
  }
  return cudaDeviceGetDefaultMemPool(pool, device);
}
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) { EMU_STICKY
  if (device != 0) return set(cudaErrorInvalidDevice);
  if (pool == nullptr) return set(cudaErrorInvalidValue);
  current_pool() = pool;
  return cudaSuccess;
}
cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props) { EMU_STICKY
  if (pool == nullptr || props == nullptr || props->allocType != cudaMemAllocationTypePinned) return set(cudaErrorInvalidValue);
  if (props->location.type != cudaMemLocationTypeDevice || props->location.id != 0) return set(cudaErrorInvalidDevice);
  *pool = new_pool(*props);
  return cudaSuccess;
}
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) { EMU_STICKY
  cudaMemPool_t def;
  cudaDeviceGetDefaultMemPool(&def, 0);
  if (pool == nullptr || pool == def) return set(cudaErrorInvalidValue);
  if (current_pool() == pool) current_pool() = nullptr;
  {
    emu::PoolAllocations& a = emu::pool_allocations();  // allocations outlive a destroyed pool, uncounted
    std::lock_guard<std::mutex> hold(a.lock);
    for (auto it = a.live.begin(); it != a.live.end();) it = it->second.first == pool ? a.live.erase(it) : std::next(it);
  }
  delete pool;
  return cudaSuccess;
}
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) { EMU_STICKY
  if (pool == nullptr || value == nullptr) return set(cudaErrorInvalidValue);
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies: case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
      pool->reuse[attr - 1] = *static_cast<int*>(value) != 0;
      return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold: pool->threshold = *static_cast<unsigned long long*>(value); return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh: case cudaMemPoolAttrUsedMemHigh:  // only a reset to 0 is allowed
      if (*static_cast<unsigned long long*>(value) != 0) return set(cudaErrorInvalidValue);
      pool->high = pool->used;
      return cudaSuccess;
    default: return set(cudaErrorInvalidValue);
  }
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) { EMU_STICKY
  if (pool == nullptr || value == nullptr) return set(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> hold(emu::pool_allocations().lock);
  auto* out = static_cast<unsigned long long*>(value);
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies: case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
      *static_cast<int*>(value) = pool->reuse[attr - 1];
      return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold: *out = pool->threshold; return cudaSuccess;
    case cudaMemPoolAttrReservedMemCurrent: case cudaMemPoolAttrUsedMemCurrent: *out = pool->used; return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh: case cudaMemPoolAttrUsedMemHigh: *out = pool->high; return cudaSuccess;
    default: return set(cudaErrorInvalidValue);
  }
}
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc* list, size_t count) { EMU_STICKY
  if (pool == nullptr || (count && list == nullptr)) return set(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i) {
    if (list[i].location.type != cudaMemLocationTypeDevice || list[i].location.id != 0) return set(cudaErrorInvalidDevice);
    pool->access = list[i].flags;
  }
  return cudaSuccess;
}
cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags* flags, cudaMemPool_t pool, cudaMemLocation* location) { EMU_STICKY
  if (flags == nullptr || pool == nullptr || location == nullptr) return set(cudaErrorInvalidValue);
  *flags = location->type == cudaMemLocationTypeDevice && location->id == 0 ? pool->access : cudaMemAccessFlagsProtNone;
  return cudaSuccess;
}
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t) { EMU_STICKY return pool ? cudaSuccess : set(cudaErrorInvalidValue); }
cudaError_t cudaMallocFromPoolAsync(void** p, size_t n, cudaMemPool_t pool, cudaStream_t) { EMU_STICKY
  if (pool == nullptr) return set(cudaErrorInvalidValue);
  cudaError_t e = emu::host_alloc(p, n);
  if (e != cudaSuccess || *p == nullptr) return e;
  emu::PoolAllocations& a = emu::pool_allocations();
  std::lock_guard<std::mutex> hold(a.lock);
  a.live[*p] = {pool, n};
  pool->used += n;
  pool->high = std::max(pool->high, pool->used);
  return cudaSuccess;
}

// ---- the same clock and entropy at every width --------------------------------------------
// The widths run one after another, so a program that seeds from the clock (srand(time(0)),
// cuda-samples' fp16ScalarProduct) or from std::random_device (HeCBench's btree, linearprobing)
// would get other inputs at each width and "diverge" for no reason of the width. time() is
// port emulate's epoch for the runs (EMU_EPOCH, the same at every width) plus the seconds this
// run has taken; std::random_device gives a fixed sequence (splitmix64), the same at every
// width. Both replace the C library's / libstdc++'s definitions for the program only (ELF
// interposition from the executable); timings are masked anyway (run.DEFAULT_MASKS).
extern "C" time_t time(time_t* out) noexcept {
  static const auto start = std::chrono::steady_clock::now();
  static const time_t epoch = [] {
    const char* e = std::getenv("EMU_EPOCH");
    if (e != nullptr) return (time_t)std::strtoll(e, nullptr, 10);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);  // outside port emulate: the real time
    return now.tv_sec;
  }();
  time_t t = epoch + (time_t)std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start).count();
  if (out != nullptr) *out = t;
  return t;
}
#if defined(__GLIBCXX__)
namespace {
std::atomic<unsigned long long> entropy_state{0x9e3779b97f4a7c15ull};
}
unsigned int std::random_device::_M_getval() {
  unsigned long long z = entropy_state.fetch_add(0x9e3779b97f4a7c15ull) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (unsigned int)(z ^ (z >> 31));
}
#endif
