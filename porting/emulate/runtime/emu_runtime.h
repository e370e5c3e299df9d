// rocm-port `port emulate`: a CPU runtime with GPU execution semantics at warp width EMU_WARP.
//
// `port emulate` force-includes this header into every translation unit of the program under
// test (g++ -include) and compiles it once per warp width (-DEMU_WARP=32 / 64). CUDA and HIP
// names are both declared, so a CUDA program compiles as written: the report's line numbers
// are the user's own. Kernels are plain functions; a launch runs every thread of a block as a
// fiber (emu_runtime.cpp), so __syncthreads is a real barrier and warp collectives meet in
// lockstep. What is and is not emulated: docs/emulate.md.
#pragma once
#ifndef EMU_WARP
#error "port emulate compiles with -DEMU_WARP=32 or -DEMU_WARP=64"
#endif
#if EMU_WARP != 32 && EMU_WARP != 64
#error "EMU_WARP must be 32 or 64"
#endif

#include <algorithm>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <tuple>
#include <type_traits>
#include <utility>

#define PORT_EMULATE 1
// A HIP program (EMU_HIP, set by port emulate from the sources) sees HIP's macros at both
// widths: AMD GPUs run wave64 (CDNA) and wave32 (RDNA). A CUDA program sees CUDA's, and at
// 64 lanes also __HIP_PLATFORM_AMD__, as it would once hipified for an AMD Instinct GPU.
#if defined(EMU_HIP)
#define __HIPCC__ 1
#define __HIP__ 1
#else
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#define CUDART_VERSION 12000
#define CUDA_VERSION 12000
#define __CUDART_API_VERSION 12000
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0
// the include guards of the toolkit's headers: programs test them (cuda-samples' helper_cuda.h
// defines checkCudaErrors only #ifdef __DRIVER_TYPES_H__, findCudaDevice #ifdef __CUDA_RUNTIME_H__)
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
#define __DRIVER_TYPES_H__
#define __VECTOR_TYPES_H__
#define __HOST_DEFINES_H__
#define __DEVICE_LAUNCH_PARAMETERS_H__
#endif
#if defined(EMU_HIP) || EMU_WARP == 64
#define __HIP_PLATFORM_AMD__ 1
#define __HIP_PLATFORM_HCC__ 1
#define HIP_INCLUDE_HIP_HIP_RUNTIME_H
#define HIP_INCLUDE_HIP_HIP_RUNTIME_API_H
#define __AMDGCN_WAVEFRONT_SIZE EMU_WARP
#define HIP_VERSION_MAJOR 7
#define HIP_VERSION_MINOR 1
#define HIP_VERSION_PATCH 0
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000)
#endif

// ---- CUDA/HIP declaration specifiers -------------------------------------------------------
#define __global__
#define __device__
#define __host__
// Blocks of a grid run one after another on one OS thread, so a function-local static is
// exactly one block's shared memory (`extern __shared__` is rewritten by port emulate).
#define __shared__ static
#define __constant__
#define __managed__
#define __grid_constant__
#define __device_builtin__
#define CUDART_CB
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
#define __builtin_align__(n) __attribute__((aligned(n)))
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_SYMBOL(X) (&(X))
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
#define HIP_DYNAMIC_SHARED(type, var) type* var = reinterpret_cast<type*>(::emu::dynamic_shared);
#define EMU_INL inline __attribute__((always_inline))

// ---- vector types ---------------------------------------------------------------------------
#define EMU_VEC(T, N, A2, A4)                                                                        \
  struct N##1 { T x; };                                                                          \
  struct alignas(A2) N##2 { T x, y; };                                                           \
  struct N##3 { T x, y, z; };                                                                    \
  struct alignas(A4) N##4 { T x, y, z, w; };                                                     \
  EMU_INL N##1 make_##N##1(T x) { return N##1{x}; }                                              \
  EMU_INL N##2 make_##N##2(T x, T y) { return N##2{x, y}; }                                      \
  EMU_INL N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }                              \
  EMU_INL N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
EMU_VEC(signed char, char, 2, 4)
EMU_VEC(unsigned char, uchar, 2, 4)
EMU_VEC(short, short, 4, 8)
EMU_VEC(unsigned short, ushort, 4, 8)
EMU_VEC(int, int, 8, 16)
EMU_VEC(unsigned int, uint, 8, 16)
EMU_VEC(long, long, 16, 16)
EMU_VEC(unsigned long, ulong, 16, 16)
EMU_VEC(long long, longlong, 16, 16)
EMU_VEC(unsigned long long, ulonglong, 16, 16)
EMU_VEC(float, float, 8, 16)
EMU_VEC(double, double, 16, 16)
#undef EMU_VEC

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// The executing thread's coordinates: the scheduler sets threadIdx before it resumes a fiber.
extern uint3 threadIdx;
extern uint3 blockIdx;
extern dim3 blockDim;
extern dim3 gridDim;
constexpr int warpSize = EMU_WARP;

// ---- error codes, memcpy kinds, handles -----------------------------------------------------
enum cudaError_t {
  cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3, cudaErrorLaunchFailure = 4, cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidSymbol = 13, cudaErrorInvalidDevicePointer = 17, cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorNoDevice = 100, cudaErrorInvalidDevice = 101, cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600, cudaErrorIllegalAddress = 700, cudaErrorLaunchTimeout = 702,
  cudaErrorAssert = 710, cudaErrorNotSupported = 801, cudaErrorUnknown = 999
};
typedef cudaError_t cudaError;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4
};
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxBlockDimX, cudaDevAttrMaxBlockDimY,
  cudaDevAttrMaxBlockDimZ, cudaDevAttrMaxGridDimX, cudaDevAttrMaxGridDimY, cudaDevAttrMaxGridDimZ,
  cudaDevAttrMaxSharedMemoryPerBlock, cudaDevAttrTotalConstantMemory, cudaDevAttrWarpSize,
  cudaDevAttrMaxRegistersPerBlock, cudaDevAttrClockRate, cudaDevAttrMultiProcessorCount,
  cudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMinor,
  cudaDevAttrMaxThreadsPerMultiProcessor, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
  cudaDevAttrL2CacheSize, cudaDevAttrConcurrentKernels, cudaDevAttrManagedMemory,
  cudaDevAttrCooperativeLaunch, cudaDevAttrMaxSharedMemoryPerBlockOptin, cudaDevAttrMemoryClockRate,
  cudaDevAttrGlobalMemoryBusWidth, cudaDevAttrUnifiedAddressing, cudaDevAttrIntegrated,
  cudaDevAttrComputeMode, cudaDevAttrCanMapHostMemory, cudaDevAttrAsyncEngineCount,
  cudaDevAttrKernelExecTimeout, cudaDevAttrEccEnabled, cudaDevAttrPciBusId, cudaDevAttrPciDeviceId,
  cudaDevAttrTccDriver, cudaDevAttrConcurrentManagedAccess, cudaDevAttrPageableMemoryAccess,
  cudaDevAttrHostNativeAtomicSupported, cudaDevAttrDirectManagedMemAccessFromHost,
  cudaDevAttrCooperativeMultiDeviceLaunch, cudaDevAttrMaxBlocksPerMultiprocessor,
  cudaDevAttrMaxRegistersPerMultiprocessor, cudaDevAttrMemoryPoolsSupported,
  cudaDevAttrMaxPersistingL2CacheSize, cudaDevAttrStreamPrioritiesSupported,
  cudaDevAttrGlobalL1CacheSupported, cudaDevAttrLocalL1CacheSupported, cudaDevAttrComputePreemptionSupported,
  cudaDevAttrCanUseHostPointerForRegisteredMem, cudaDevAttrSingleToDoublePrecisionPerfRatio,
  cudaDevAttrGpuOverlap, cudaDevAttrMultiGpuBoardGroupID
};
enum cudaComputeMode { cudaComputeModeDefault = 0, cudaComputeModeExclusive = 1, cudaComputeModeProhibited = 2,
                       cudaComputeModeExclusiveProcess = 3 };
enum cudaFuncCache { cudaFuncCachePreferNone, cudaFuncCachePreferShared, cudaFuncCachePreferL1, cudaFuncCachePreferEqual };
enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault, cudaSharedMemBankSizeFourByte, cudaSharedMemBankSizeEightByte };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8, cudaFuncAttributePreferredSharedMemoryCarveout = 9 };
struct emu_stream;
struct emu_event;
typedef emu_stream* cudaStream_t;
typedef emu_event* cudaEvent_t;
#define cudaStreamDefault 0x0
#define cudaStreamNonBlocking 0x1
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaEventDefault 0x0
#define cudaEventBlockingSync 0x1
#define cudaEventDisableTiming 0x2
#define cudaHostAllocDefault 0x0
#define cudaHostAllocPortable 0x1
#define cudaHostAllocMapped 0x2
#define cudaHostAllocWriteCombined 0x4
#define cudaHostRegisterDefault 0x0
#define cudaHostRegisterPortable 0x1
#define cudaHostRegisterMapped 0x2
#define cudaHostRegisterIoMemory 0x4
#define cudaHostRegisterReadOnly 0x8
#define cudaMemAttachGlobal 0x1
#define cudaDeviceScheduleAuto 0x0
#define cudaDeviceScheduleSpin 0x1
#define cudaDeviceScheduleYield 0x2
#define cudaDeviceScheduleBlockingSync 0x4
#define cudaDeviceBlockingSync cudaDeviceScheduleBlockingSync
#define cudaDeviceMapHost 0x8
#define cudaCpuDeviceId (-1)

struct cudaDeviceProp {
  char name[256];
  char gcnArchName[256];
  size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerBlockOptin, sharedMemPerMultiprocessor;
  size_t maxSharedMemoryPerMultiProcessor, totalConstMem, memPitch, textureAlignment, texturePitchAlignment;
  int regsPerBlock, regsPerMultiprocessor, warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3];
  int clockRate, memoryClockRate, memoryBusWidth, major, minor, multiProcessorCount, l2CacheSize;
  int maxThreadsPerMultiProcessor, maxBlocksPerMultiProcessor, concurrentKernels, deviceOverlap;
  int asyncEngineCount, canMapHostMemory, unifiedAddressing, managedMemory, computeMode, integrated;
  int ECCEnabled, pciBusID, pciDeviceID, pciDomainID, kernelExecTimeoutEnabled, cooperativeLaunch;
  int cooperativeMultiDeviceLaunch, isMultiGpuBoard, tccDriver, concurrentManagedAccess;
  int pageableMemoryAccess, directManagedMemAccessFromHost, hostNativeAtomicSupported;
  int persistingL2CacheMaxSize, streamPrioritiesSupported, globalL1CacheSupported, localL1CacheSupported;
  int clusterLaunch, maxTexture1D;
};
struct cudaFuncAttributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, maxDynamicSharedSizeBytes;
};
struct cudaPointerAttributes { int type; int device; void* devicePointer; void* hostPointer; };
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2, cudaMemoryTypeManaged = 3 };
typedef void (*cudaStreamCallback_t)(cudaStream_t, cudaError_t, void*);
typedef void (*cudaHostFn_t)(void*);

// ---- host API (emu_runtime.cpp) -------------------------------------------------------------
cudaError_t cudaMalloc(void** p, size_t n);
cudaError_t cudaMallocHost(void** p, size_t n);
cudaError_t cudaHostAlloc(void** p, size_t n, unsigned int flags = 0);
cudaError_t cudaMallocManaged(void** p, size_t n, unsigned int flags = cudaMemAttachGlobal);
cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height);
cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t s);
template <class T> EMU_INL cudaError_t cudaMalloc(T** p, size_t n) { return cudaMalloc(reinterpret_cast<void**>(p), n); }
template <class T> EMU_INL cudaError_t cudaMallocHost(T** p, size_t n) { return cudaMallocHost(reinterpret_cast<void**>(p), n); }
template <class T> EMU_INL cudaError_t cudaHostAlloc(T** p, size_t n, unsigned f = 0) { return cudaHostAlloc(reinterpret_cast<void**>(p), n, f); }
template <class T> EMU_INL cudaError_t cudaMallocManaged(T** p, size_t n, unsigned f = cudaMemAttachGlobal) { return cudaMallocManaged(reinterpret_cast<void**>(p), n, f); }
template <class T> EMU_INL cudaError_t cudaMallocPitch(T** p, size_t* pitch, size_t w, size_t h) { return cudaMallocPitch(reinterpret_cast<void**>(p), pitch, w, h); }
template <class T> EMU_INL cudaError_t cudaMallocAsync(T** p, size_t n, cudaStream_t s) { return cudaMallocAsync(reinterpret_cast<void**>(p), n, s); }
cudaError_t cudaFree(void* p);
cudaError_t cudaFreeHost(void* p);
cudaError_t cudaFreeAsync(void* p, cudaStream_t s);
cudaError_t cudaHostRegister(void* p, size_t n, unsigned int flags);
cudaError_t cudaHostUnregister(void* p);
cudaError_t cudaHostGetDevicePointer(void** d, void* h, unsigned int flags);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t s = nullptr);
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t s = nullptr);
cudaError_t cudaMemset(void* p, int value, size_t n);
cudaError_t cudaMemsetAsync(void* p, int value, size_t n, cudaStream_t s = nullptr);
cudaError_t cudaMemset2D(void* p, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
cudaError_t cudaMemPrefetchAsync(const void* p, size_t n, int device, cudaStream_t s = nullptr);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaThreadSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaThreadExit();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t e);
const char* cudaGetErrorName(cudaError_t e);
cudaError_t cudaGetDeviceCount(int* n);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaGetDevice(int* d);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int* flags);
cudaError_t cudaChooseDevice(int* d, const cudaDeviceProp* prop);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d);
cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int d);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache c);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig c);
cudaError_t cudaDriverGetVersion(int* v);
cudaError_t cudaRuntimeGetVersion(int* v);
cudaError_t cudaStreamCreate(cudaStream_t* s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned int flags, int priority);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamQuery(cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags = 0);
cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void* data, unsigned int flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void* data);
cudaError_t cudaEventCreate(cudaEvent_t* e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaProfilerStart();
cudaError_t cudaProfilerStop();
template <class F> EMU_INL cudaError_t cudaFuncSetCacheConfig(F, cudaFuncCache) { return cudaSuccess; }
template <class F> EMU_INL cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute, int) { return cudaSuccess; }
template <class F> EMU_INL cudaError_t cudaFuncSetSharedMemConfig(F, cudaSharedMemConfig) { return cudaSuccess; }
cudaError_t emu_func_attributes(cudaFuncAttributes* a);
template <class F> EMU_INL cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, F) { return emu_func_attributes(a); }
template <class F> EMU_INL cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, F, int block, size_t) {
  *n = block > 0 ? 2048 / block : 0;  // reported, not modelled (docs/emulate.md: no occupancy)
  return cudaSuccess;
}
template <class F> EMU_INL cudaError_t cudaOccupancyMaxPotentialBlockSize(int* grid, int* block, F, size_t = 0, int limit = 0) {
  *block = (limit > 0 && limit < 1024) ? limit : 1024;
  *grid = 2 * 80;
  return cudaSuccess;
}
template <class T> EMU_INL cudaError_t cudaMemcpyToSymbol(const T& sym, const void* src, size_t n, size_t off = 0, cudaMemcpyKind = cudaMemcpyHostToDevice) {
  std::memcpy(reinterpret_cast<char*>(const_cast<T*>(&sym)) + off, src, n);
  return cudaSuccess;
}
template <class T> EMU_INL cudaError_t cudaMemcpyFromSymbol(void* dst, const T& sym, size_t n, size_t off = 0, cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  std::memcpy(dst, reinterpret_cast<const char*>(&sym) + off, n);
  return cudaSuccess;
}
template <class T> EMU_INL cudaError_t cudaMemcpyToSymbolAsync(const T& sym, const void* src, size_t n, size_t off = 0, cudaMemcpyKind k = cudaMemcpyHostToDevice, cudaStream_t = nullptr) {
  return cudaMemcpyToSymbol(sym, src, n, off, k);
}
template <class T> EMU_INL cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& sym, size_t n, size_t off = 0, cudaMemcpyKind k = cudaMemcpyDeviceToHost, cudaStream_t = nullptr) {
  return cudaMemcpyFromSymbol(dst, sym, n, off, k);
}
template <class T> EMU_INL cudaError_t cudaGetSymbolAddress(void** p, const T& sym) { *p = const_cast<T*>(&sym); return cudaSuccess; }
template <class T> EMU_INL cudaError_t cudaGetSymbolSize(size_t* n, const T&) { *n = sizeof(T); return cudaSuccess; }

// ---- device side: the fiber scheduler's entry points ----------------------------------------
namespace emu {
// a lane mask as the program's API returns it: HIP's is 64 bits at any width, CUDA's 32
#if defined(EMU_HIP)
using lanemask_t = unsigned long long;
#else
using lanemask_t = std::conditional_t<EMU_WARP == 64, unsigned long long, unsigned int>;
#endif
enum Op : int {
  SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR, BALLOT, ANY, ALL, ACTIVEMASK, SYNCWARP,
  MATCH_ANY, MATCH_ALL, RED_ADD, RED_MIN, RED_MAX, RED_AND, RED_OR, RED_XOR, LANE_ID
};
// One lane's arrival at a warp collective; the scheduler fills `out` once every active lane
// of the warp has arrived (the call site is the return address of arrive()).
struct Arrival {
  const char* name;
  int op;
  int synced;                   // a *_sync form: `mask` names the participating lanes
  unsigned long long mask;
  const void* in;               // this lane's operand (it lives on the lane's own stack)
  int size;
  int is_signed;
  int arg;                      // source lane / delta / xor mask
  int width;
  void* out;
  int pred_out;
  const void* site;
};
void arrive(Arrival* a);
extern unsigned char dynamic_shared[];
[[noreturn]] void fault(const char* what);
[[noreturn]] void unsupported(const char* what);
unsigned long long clock_ticks();

struct LaunchConfig {
  dim3 grid, block;
  size_t shmem;
  cudaStream_t stream;
};
EMU_INL LaunchConfig config(dim3 g, dim3 b, size_t sh = 0, cudaStream_t s = nullptr) { return LaunchConfig{g, b, sh, s}; }
void run_grid(const LaunchConfig& c, void (*invoke)(void*), void* ctx);

// A launch: the arguments are evaluated and copied once on the host (as a GPU launch does);
// every thread then calls the kernel with its own copies of them.
template <class F, class... A> void launch(const LaunchConfig& c, F f, A&&... a) {
  struct Ctx { F f; std::tuple<std::decay_t<A>...> args; };
  Ctx ctx{f, std::tuple<std::decay_t<A>...>(std::forward<A>(a)...)};
  run_grid(c, [](void* p) { Ctx* x = static_cast<Ctx*>(p); std::apply(x->f, x->args); }, &ctx);
}
template <class... P, std::size_t... I>
cudaError_t launch_packed(void (*f)(P...), const LaunchConfig& c, void** args, std::index_sequence<I...>) {
  launch(c, [f](auto&&... a) { f(a...); }, *static_cast<std::decay_t<P>*>(args[I])...);
  return cudaGetLastError();
}

template <class T> EMU_INL T exchange(const char* name, int op, int synced, unsigned long long mask, const T& v, int arg, int width) {
  static_assert(std::is_trivially_copyable<T>::value, "warp shuffles move trivially copyable values");
  typename std::aligned_storage<sizeof(T), alignof(T)>::type out;
  Arrival a{name, op, synced, mask, &v, (int)sizeof(T), std::is_signed<T>::value, arg, width, &out, 0, nullptr};
  arrive(&a);
  return *reinterpret_cast<T*>(&out);
}
EMU_INL unsigned long long vote(const char* name, int op, int synced, unsigned long long mask, int pred) {
  unsigned long long out = 0;
  Arrival a{name, op, synced, mask, &pred, (int)sizeof(int), 1, 0, EMU_WARP, &out, 0, nullptr};
  arrive(&a);
  return out;
}
template <class T> EMU_INL T reduce(const char* name, int op, unsigned long long mask, T v) {
  T out = 0;
  Arrival a{name, op, 1, mask, &v, (int)sizeof(T), std::is_signed<T>::value, 0, EMU_WARP, &out, 0, nullptr};
  arrive(&a);
  return out;
}
constexpr unsigned long long kFull = EMU_WARP == 64 ? ~0ull : 0xffffffffull;
}  // namespace emu

// ---- barriers, fences -----------------------------------------------------------------------
void __syncthreads();
int __syncthreads_count(int pred);
int __syncthreads_and(int pred);
int __syncthreads_or(int pred);
EMU_INL void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
EMU_INL void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
EMU_INL void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
EMU_INL void __trap() { emu::fault("__trap() called"); }
EMU_INL void __brkpt() { emu::fault("__brkpt() called"); }
EMU_INL void __nanosleep(unsigned int) {}
EMU_INL long long clock64() { return (long long)emu::clock_ticks(); }
EMU_INL long long __clock64() { return (long long)emu::clock_ticks(); }
EMU_INL long long wall_clock64() { return (long long)emu::clock_ticks(); }
EMU_INL unsigned long long __globaltimer() { return emu::clock_ticks(); }

// ---- warp collectives -----------------------------------------------------------------------
template <class T> EMU_INL T __shfl_sync(unsigned long long m, T v, int src, int w = warpSize) { return emu::exchange("__shfl_sync", emu::SHFL_IDX, 1, m, v, src, w); }
template <class T> EMU_INL T __shfl_up_sync(unsigned long long m, T v, unsigned int d, int w = warpSize) { return emu::exchange("__shfl_up_sync", emu::SHFL_UP, 1, m, v, (int)d, w); }
template <class T> EMU_INL T __shfl_down_sync(unsigned long long m, T v, unsigned int d, int w = warpSize) { return emu::exchange("__shfl_down_sync", emu::SHFL_DOWN, 1, m, v, (int)d, w); }
template <class T> EMU_INL T __shfl_xor_sync(unsigned long long m, T v, int x, int w = warpSize) { return emu::exchange("__shfl_xor_sync", emu::SHFL_XOR, 1, m, v, x, w); }
template <class T> EMU_INL T __shfl(T v, int src, int w = warpSize) { return emu::exchange("__shfl", emu::SHFL_IDX, 0, 0, v, src, w); }
template <class T> EMU_INL T __shfl_up(T v, unsigned int d, int w = warpSize) { return emu::exchange("__shfl_up", emu::SHFL_UP, 0, 0, v, (int)d, w); }
template <class T> EMU_INL T __shfl_down(T v, unsigned int d, int w = warpSize) { return emu::exchange("__shfl_down", emu::SHFL_DOWN, 0, 0, v, (int)d, w); }
template <class T> EMU_INL T __shfl_xor(T v, int x, int w = warpSize) { return emu::exchange("__shfl_xor", emu::SHFL_XOR, 0, 0, v, x, w); }
// CUDA returns a 32-bit mask; HIP returns 64 bits on a 64-lane wavefront.
EMU_INL emu::lanemask_t __ballot_sync(unsigned long long m, int p) { return (emu::lanemask_t)emu::vote("__ballot_sync", emu::BALLOT, 1, m, p); }
EMU_INL emu::lanemask_t __ballot(int p) { return (emu::lanemask_t)emu::vote("__ballot", emu::BALLOT, 0, 0, p); }
EMU_INL int __any_sync(unsigned long long m, int p) { return (int)emu::vote("__any_sync", emu::ANY, 1, m, p); }
EMU_INL int __all_sync(unsigned long long m, int p) { return (int)emu::vote("__all_sync", emu::ALL, 1, m, p); }
EMU_INL int __any(int p) { return (int)emu::vote("__any", emu::ANY, 0, 0, p); }
EMU_INL int __all(int p) { return (int)emu::vote("__all", emu::ALL, 0, 0, p); }
EMU_INL int __uni_sync(unsigned long long m, int p) { return __all_sync(m, p) || !__any_sync(m, p); }
EMU_INL emu::lanemask_t __activemask() { return (emu::lanemask_t)emu::vote("__activemask", emu::ACTIVEMASK, 0, 0, 1); }
EMU_INL void __syncwarp(unsigned long long m = emu::kFull) { emu::vote("__syncwarp", emu::SYNCWARP, 1, m, 1); }
template <class T> EMU_INL emu::lanemask_t __match_any_sync(unsigned long long m, T v) {
  unsigned long long out = 0;
  emu::Arrival a{"__match_any_sync", emu::MATCH_ANY, 1, m, &v, (int)sizeof(T), 0, 0, EMU_WARP, &out, 0, nullptr};
  emu::arrive(&a);
  return (emu::lanemask_t)out;
}
template <class T> EMU_INL emu::lanemask_t __match_all_sync(unsigned long long m, T v, int* pred) {
  unsigned long long out = 0;
  emu::Arrival a{"__match_all_sync", emu::MATCH_ALL, 1, m, &v, (int)sizeof(T), 0, 0, EMU_WARP, &out, 0, nullptr};
  emu::arrive(&a);
  *pred = a.pred_out;
  return (emu::lanemask_t)out;
}
EMU_INL unsigned __reduce_add_sync(unsigned long long m, unsigned v) { return emu::reduce("__reduce_add_sync", emu::RED_ADD, m, v); }
EMU_INL int __reduce_add_sync(unsigned long long m, int v) { return emu::reduce("__reduce_add_sync", emu::RED_ADD, m, v); }
EMU_INL unsigned __reduce_min_sync(unsigned long long m, unsigned v) { return emu::reduce("__reduce_min_sync", emu::RED_MIN, m, v); }
EMU_INL int __reduce_min_sync(unsigned long long m, int v) { return emu::reduce("__reduce_min_sync", emu::RED_MIN, m, v); }
EMU_INL unsigned __reduce_max_sync(unsigned long long m, unsigned v) { return emu::reduce("__reduce_max_sync", emu::RED_MAX, m, v); }
EMU_INL int __reduce_max_sync(unsigned long long m, int v) { return emu::reduce("__reduce_max_sync", emu::RED_MAX, m, v); }
EMU_INL unsigned __reduce_and_sync(unsigned long long m, unsigned v) { return emu::reduce("__reduce_and_sync", emu::RED_AND, m, v); }
EMU_INL unsigned __reduce_or_sync(unsigned long long m, unsigned v) { return emu::reduce("__reduce_or_sync", emu::RED_OR, m, v); }
EMU_INL unsigned __reduce_xor_sync(unsigned long long m, unsigned v) { return emu::reduce("__reduce_xor_sync", emu::RED_XOR, m, v); }
// HIP's lane queries (no collective needed: the lane follows from the linear thread id).
EMU_INL unsigned __lane_id() {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % EMU_WARP;
}
EMU_INL emu::lanemask_t __lanemask_eq() { return (emu::lanemask_t)(1ull << __lane_id()); }
EMU_INL emu::lanemask_t __lanemask_lt() { return (emu::lanemask_t)((1ull << __lane_id()) - 1); }
EMU_INL emu::lanemask_t __lanemask_le() { return (emu::lanemask_t)(((1ull << __lane_id()) - 1) | (1ull << __lane_id())); }
EMU_INL emu::lanemask_t __lanemask_gt() { return (emu::lanemask_t)(emu::kFull & ~(((1ull << __lane_id()) - 1) | (1ull << __lane_id()))); }
EMU_INL emu::lanemask_t __lanemask_ge() { return (emu::lanemask_t)(emu::kFull & ~((1ull << __lane_id()) - 1)); }

// ---- integer and bit intrinsics -------------------------------------------------------------
EMU_INL int __popc(unsigned int x) { return __builtin_popcount(x); }
EMU_INL int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
EMU_INL int __ffs(int x) { return __builtin_ffs(x); }
EMU_INL int __ffs(unsigned int x) { return __builtin_ffs((int)x); }
EMU_INL int __ffsll(long long x) { return __builtin_ffsll(x); }
EMU_INL int __ffsll(unsigned long long x) { return __builtin_ffsll((long long)x); }
EMU_INL int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
EMU_INL int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
EMU_INL unsigned int __brev(unsigned int x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
EMU_INL unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
EMU_INL unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}
EMU_INL unsigned int __funnelshift_l(unsigned lo, unsigned hi, unsigned s) { return (unsigned)(((((unsigned long long)hi << 32) | lo) << (s & 31)) >> 32); }
EMU_INL unsigned int __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) { return (unsigned)(((((unsigned long long)hi << 32) | lo) << std::min(s, 32u)) >> 32); }
EMU_INL unsigned int __funnelshift_r(unsigned lo, unsigned hi, unsigned s) { return (unsigned)((((unsigned long long)hi << 32) | lo) >> (s & 31)); }
EMU_INL unsigned int __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) { return (unsigned)((((unsigned long long)hi << 32) | lo) >> std::min(s, 32u)); }
EMU_INL int __mul24(int a, int b) { return (int)(((long long)(a << 8 >> 8)) * (b << 8 >> 8)); }
EMU_INL unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
EMU_INL int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
EMU_INL unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
EMU_INL long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
EMU_INL unsigned long long __umul64hi(unsigned long long a, unsigned long long b) { return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
EMU_INL unsigned __sad(int a, int b, unsigned c) { return (unsigned)(a > b ? a - b : b - a) + c; }
EMU_INL unsigned __usad(unsigned a, unsigned b, unsigned c) { return (a > b ? a - b : b - a) + c; }
EMU_INL int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
EMU_INL int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
EMU_INL unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
EMU_INL unsigned __urhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b + 1) >> 1); }
// CUDA's global min/max accept mixed operand types.
template <class A, class B> EMU_INL std::common_type_t<A, B> min(A a, B b) { return b < a ? b : a; }
template <class A, class B> EMU_INL std::common_type_t<A, B> max(A a, B b) { return a < b ? b : a; }
// Templates with a defaulted parameter: a host .cpp file that defines its own `uint umin(uint,
// uint)` (nvcc never shows it CUDA's) gets a non-template overload that wins, not a redefinition.
template <class = void> EMU_INL unsigned umin(unsigned a, unsigned b) { return b < a ? b : a; }
template <class = void> EMU_INL unsigned umax(unsigned a, unsigned b) { return a < b ? b : a; }
template <class = void> EMU_INL long long llmin(long long a, long long b) { return b < a ? b : a; }
template <class = void> EMU_INL long long llmax(long long a, long long b) { return a < b ? b : a; }
template <class = void> EMU_INL unsigned long long ullmin(unsigned long long a, unsigned long long b) { return b < a ? b : a; }
template <class = void> EMU_INL unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }

// ---- float intrinsics (round-to-nearest; the _rz/_ru/_rd arithmetic forms are not modelled) ----
EMU_INL float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
EMU_INL int __float_as_int(float f) { int x; std::memcpy(&x, &f, 4); return x; }
EMU_INL float __uint_as_float(unsigned x) { float f; std::memcpy(&f, &x, 4); return f; }
EMU_INL unsigned __float_as_uint(float f) { unsigned x; std::memcpy(&x, &f, 4); return x; }
EMU_INL double __longlong_as_double(long long x) { double d; std::memcpy(&d, &x, 8); return d; }
EMU_INL long long __double_as_longlong(double d) { long long x; std::memcpy(&x, &d, 8); return x; }
EMU_INL int __double2hiint(double d) { return (int)(__double_as_longlong(d) >> 32); }
EMU_INL int __double2loint(double d) { return (int)__double_as_longlong(d); }
EMU_INL double __hiloint2double(int hi, int lo) { return __longlong_as_double(((long long)hi << 32) | (unsigned)lo); }
EMU_INL float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
EMU_INL double rsqrt(double x) { return 1.0 / std::sqrt(x); }
EMU_INL float rcbrtf(float x) { return 1.0f / std::cbrt(x); }
EMU_INL float __saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }
EMU_INL float __expf(float x) { return std::exp(x); }
EMU_INL float __exp10f(float x) { return std::pow(10.0f, x); }
EMU_INL float __logf(float x) { return std::log(x); }
EMU_INL float __log2f(float x) { return std::log2(x); }
EMU_INL float __log10f(float x) { return std::log10(x); }
EMU_INL float __sinf(float x) { return std::sin(x); }
EMU_INL float __cosf(float x) { return std::cos(x); }
EMU_INL float __tanf(float x) { return std::tan(x); }
EMU_INL float __powf(float x, float y) { return std::pow(x, y); }
EMU_INL void __sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
EMU_INL float __fdividef(float a, float b) { return a / b; }
EMU_INL float fdividef(float a, float b) { return a / b; }
EMU_INL float sinpif(float x) { return std::sin((float)M_PI * x); }
EMU_INL float cospif(float x) { return std::cos((float)M_PI * x); }
EMU_INL void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
EMU_INL double sinpi(double x) { return std::sin(M_PI * x); }
EMU_INL double cospi(double x) { return std::cos(M_PI * x); }
EMU_INL float __fadd_rn(float a, float b) { return a + b; }
EMU_INL float __fsub_rn(float a, float b) { return a - b; }
EMU_INL float __fmul_rn(float a, float b) { return a * b; }
EMU_INL float __fdiv_rn(float a, float b) { return a / b; }
EMU_INL float __frcp_rn(float a) { return 1.0f / a; }
EMU_INL float __fsqrt_rn(float a) { return std::sqrt(a); }
EMU_INL float __frsqrt_rn(float a) { return 1.0f / std::sqrt(a); }
EMU_INL float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
EMU_INL double __dadd_rn(double a, double b) { return a + b; }
EMU_INL double __dsub_rn(double a, double b) { return a - b; }
EMU_INL double __dmul_rn(double a, double b) { return a * b; }
EMU_INL double __ddiv_rn(double a, double b) { return a / b; }
EMU_INL double __drcp_rn(double a) { return 1.0 / a; }
EMU_INL double __dsqrt_rn(double a) { return std::sqrt(a); }
EMU_INL double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
EMU_INL int __float2int_rn(float x) { return (int)std::nearbyint(x); }
EMU_INL int __float2int_rz(float x) { return (int)x; }
EMU_INL int __float2int_ru(float x) { return (int)std::ceil(x); }
EMU_INL int __float2int_rd(float x) { return (int)std::floor(x); }
EMU_INL unsigned __float2uint_rn(float x) { return (unsigned)std::nearbyint(x); }
EMU_INL unsigned __float2uint_rz(float x) { return (unsigned)x; }
EMU_INL long long __float2ll_rn(float x) { return (long long)std::nearbyint(x); }
EMU_INL long long __float2ll_rz(float x) { return (long long)x; }
EMU_INL int __double2int_rn(double x) { return (int)std::nearbyint(x); }
EMU_INL int __double2int_rz(double x) { return (int)x; }
EMU_INL unsigned __double2uint_rn(double x) { return (unsigned)std::nearbyint(x); }
EMU_INL long long __double2ll_rn(double x) { return (long long)std::nearbyint(x); }
EMU_INL float __double2float_rn(double x) { return (float)x; }
EMU_INL float __int2float_rn(int x) { return (float)x; }
EMU_INL float __uint2float_rn(unsigned x) { return (float)x; }
EMU_INL float __ll2float_rn(long long x) { return (float)x; }
EMU_INL double __int2double_rn(int x) { return (double)x; }
EMU_INL double __ll2double_rn(long long x) { return (double)x; }
EMU_INL float norm3df(float a, float b, float c) { return std::sqrt(a * a + b * b + c * c); }
EMU_INL float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
EMU_INL float norm4df(float a, float b, float c, float d) { return std::sqrt(a * a + b * b + c * c + d * d); }
EMU_INL float rhypotf(float a, float b) { return 1.0f / std::hypot(a, b); }
EMU_INL float normcdff(float x) { return 0.5f * std::erfc(-x / std::sqrt(2.0f)); }
EMU_INL double normcdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// ---- cached/streaming loads and stores: plain memory on the CPU -----------------------------
template <class T> EMU_INL T __ldg(const T* p) { return *p; }
template <class T> EMU_INL T __ldca(const T* p) { return *p; }
template <class T> EMU_INL T __ldcg(const T* p) { return *p; }
template <class T> EMU_INL T __ldcs(const T* p) { return *p; }
template <class T> EMU_INL T __ldlu(const T* p) { return *p; }
template <class T> EMU_INL T __ldcv(const T* p) { return *p; }
template <class T> EMU_INL void __stwb(T* p, T v) { *p = v; }
template <class T> EMU_INL void __stcg(T* p, T v) { *p = v; }
template <class T> EMU_INL void __stcs(T* p, T v) { *p = v; }
template <class T> EMU_INL void __stwt(T* p, T v) { *p = v; }

// ---- atomics: fibers never preempt one another and blocks share one OS thread, so a plain
// read-modify-write is atomic (docs/emulate.md: sequential consistency) -----------------------
template <class T, class U> EMU_INL T atomicAdd(T* p, U v) { T o = *p; *p = (T)(o + (T)v); return o; }
template <class T, class U> EMU_INL T atomicSub(T* p, U v) { T o = *p; *p = (T)(o - (T)v); return o; }
template <class T, class U> EMU_INL T atomicExch(T* p, U v) { T o = *p; *p = (T)v; return o; }
template <class T, class U> EMU_INL T atomicMin(T* p, U v) { T o = *p; if ((T)v < o) *p = (T)v; return o; }
template <class T, class U> EMU_INL T atomicMax(T* p, U v) { T o = *p; if (o < (T)v) *p = (T)v; return o; }
template <class T, class U> EMU_INL T atomicAnd(T* p, U v) { T o = *p; *p = (T)(o & (T)v); return o; }
template <class T, class U> EMU_INL T atomicOr(T* p, U v) { T o = *p; *p = (T)(o | (T)v); return o; }
template <class T, class U> EMU_INL T atomicXor(T* p, U v) { T o = *p; *p = (T)(o ^ (T)v); return o; }
template <class T, class U, class V> EMU_INL T atomicCAS(T* p, U cmp, V v) { T o = *p; if (o == (T)cmp) *p = (T)v; return o; }
EMU_INL unsigned atomicInc(unsigned* p, unsigned v) { unsigned o = *p; *p = (o >= v) ? 0u : o + 1u; return o; }
EMU_INL unsigned atomicDec(unsigned* p, unsigned v) { unsigned o = *p; *p = (o == 0u || o > v) ? v : o - 1u; return o; }
#define EMU_SCOPED_ATOMIC(name)                                                                    \
  template <class T, class... U> EMU_INL T name##_block(T* p, U... v) { return name(p, v...); }   \
  template <class T, class... U> EMU_INL T name##_system(T* p, U... v) { return name(p, v...); }
EMU_SCOPED_ATOMIC(atomicAdd) EMU_SCOPED_ATOMIC(atomicSub) EMU_SCOPED_ATOMIC(atomicExch)
EMU_SCOPED_ATOMIC(atomicMin) EMU_SCOPED_ATOMIC(atomicMax) EMU_SCOPED_ATOMIC(atomicAnd)
EMU_SCOPED_ATOMIC(atomicOr) EMU_SCOPED_ATOMIC(atomicXor) EMU_SCOPED_ATOMIC(atomicCAS)
EMU_SCOPED_ATOMIC(atomicInc) EMU_SCOPED_ATOMIC(atomicDec)
#undef EMU_SCOPED_ATOMIC
template <class T, class U> EMU_INL T unsafeAtomicAdd(T* p, U v) { return atomicAdd(p, v); }
template <class T, class U> EMU_INL T safeAtomicAdd(T* p, U v) { return atomicAdd(p, v); }
template <class T, class U> EMU_INL void atomicAddNoRet(T* p, U v) { atomicAdd(p, v); }

// ---- launches -------------------------------------------------------------------------------
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...)                                 \
  ::emu::launch(::emu::config(grid, block, shmem, stream), [&](auto&&... emu_a_) { kernel(emu_a_...); }, ##__VA_ARGS__)
template <class... P> cudaError_t cudaLaunchKernel(void (*f)(P...), dim3 g, dim3 b, void** args, size_t sh = 0, cudaStream_t s = nullptr) {
  return emu::launch_packed(f, emu::config(g, b, sh, s), args, std::index_sequence_for<P...>{});
}

#include "emu_hip_names.h"
