// rocm-port `port emulate`, part of emu_runtime.h (programs include that umbrella header):
// configuration macros, declaration specifiers, vector types, error codes and handles.
#pragma once

// Only what the runtime needs, as nvcc's own headers do: a program with `using namespace std;`
// and a global named like a standard algorithm (`count`, `find`, `sort`) compiles with nvcc,
// whose headers do not bring <algorithm> in; the runtime's must not either (docs/emulate.md).
// std::min/max come with bits/stl_algobase.h, as they do with nvcc's <cmath>.
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <math.h>  // as nvcc's headers: signbit, isnan, isinf, isfinite unqualified (HeCBench's hellinger)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include "emu_errors.h"
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <new>
// std::min/max/copy/fill/swap..., as nvcc's <cmath> brings them (libstdc++'s stl_algobase.h), and
// no more: <memory>, <tuple> and <functional> would declare `size`, `less`, `tie`, `function`...
// (emu_work.h)
#if __has_include(<bits/stl_algobase.h>)
#include <bits/stl_algobase.h>
#else
#include <algorithm>
#endif
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
#define __CUDACC_VER_BUILD__ 0
// nvcc's own macro: a CUDA source is compiled here as nvcc would compile it, so code that
// defines its launcher or host path only `#ifdef __NVCC__` (HeCBench's ssim) is not lost
#ifndef __NVCC__
#define __NVCC__ 1
#endif
// Device code sees the architecture of the device the runtime reports (compute capability 8.0,
// cudaGetDeviceProperties): `#if __CUDA_ARCH__ >= 800` takes the path an sm_80 GPU runs. Host
// and device code are one compilation here, so host code sees it too: `#ifdef __CUDA_ARCH__`
// takes its device side everywhere, which compiles on the CPU because every device intrinsic
// is a host function. The same value at both widths, so only the width differs between runs
// (hipcc leaves __CUDA_ARCH__ undefined: an AMD build of a hipified program takes the other
// side, which port audit reports, not this comparison). Not for HIP sources.
#define __CUDA_ARCH__ 800
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
// Empty: libstdc++ 12's shared_ptr_base.h spells its attribute __attribute__((__noinline__)),
// which `__attribute__((noinline))` would break in a program that includes <memory> after the
// runtime (GCC PR 105817); `__attribute__(())` is valid. Inlining changes no result here.
#define __noinline__
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
#define EMU_ENUMERATOR(name, value) name = value,
enum cudaError_t { EMU_CUDA_ERRORS(EMU_ENUMERATOR) };
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
  cudaDevAttrPageableMemoryAccessUsesHostPageTables,
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
#define cudaMemAttachHost 0x2
#define cudaMemAttachSingle 0x4
enum cudaMemoryAdvise {
  cudaMemAdviseSetReadMostly = 1, cudaMemAdviseUnsetReadMostly = 2, cudaMemAdviseSetPreferredLocation = 3,
  cudaMemAdviseUnsetPreferredLocation = 4, cudaMemAdviseSetAccessedBy = 5, cudaMemAdviseUnsetAccessedBy = 6
};
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
  // CUDA 11-12 additions programs print or test (the unified-memory blog posts)
  int pageableMemoryAccessUsesHostPageTables, hostRegisterSupported, hostRegisterReadOnlySupported;
  int memoryPoolsSupported, computePreemptionSupported, canUseHostPointerForRegisteredMem, ipcEventSupported;
  int accessPolicyMaxWindowSize, singleToDoublePrecisionPerfRatio, unifiedFunctionPointers;
  int gpuDirectRDMASupported, sparseCudaArraySupported, timelineSemaphoreInteropSupported;
  unsigned int memoryPoolSupportedHandleTypes, luidDeviceNodeMask;
  size_t reservedSharedMemPerBlock, surfaceAlignment;
  struct { char bytes[16]; } uuid;
  char luid[8];
};
struct cudaFuncAttributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, maxDynamicSharedSizeBytes;
};
struct cudaPointerAttributes { int type; int device; void* devicePointer; void* hostPointer; };
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2, cudaMemoryTypeManaged = 3 };
typedef void (*cudaStreamCallback_t)(cudaStream_t, cudaError_t, void*);
// ---- resource hints: limits, L2 access policy, stream attributes, memory pools --------------
// Accepted and reported back (emu_host_api.cpp); none changes a result on the CPU, where there
// is no L2 to persist in, streams complete at once and every pool is the host heap.
enum cudaLimit {
  cudaLimitStackSize = 0, cudaLimitPrintfFifoSize = 1, cudaLimitMallocHeapSize = 2,
  cudaLimitDevRuntimeSyncDepth = 3, cudaLimitDevRuntimePendingLaunchCount = 4,
  cudaLimitMaxL2FetchGranularity = 5, cudaLimitPersistingL2CacheSize = 6
};
enum cudaAccessProperty { cudaAccessPropertyNormal = 0, cudaAccessPropertyStreaming = 1, cudaAccessPropertyPersisting = 2 };
struct cudaAccessPolicyWindow {
  void* base_ptr;
  size_t num_bytes;
  float hitRatio;
  cudaAccessProperty hitProp, missProp;
};
enum cudaSynchronizationPolicy { cudaSyncPolicyAuto = 1, cudaSyncPolicySpin = 2, cudaSyncPolicyYield = 3, cudaSyncPolicyBlockingSync = 4 };
enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0, cudaLaunchAttributeAccessPolicyWindow = 1, cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeSynchronizationPolicy = 3, cudaLaunchAttributePriority = 8
};
union cudaLaunchAttributeValue {
  char pad[64];
  cudaAccessPolicyWindow accessPolicyWindow;
  int cooperative;
  cudaSynchronizationPolicy syncPolicy;
  int priority;
};
typedef cudaLaunchAttributeID cudaStreamAttrID;
typedef cudaLaunchAttributeID cudaKernelNodeAttrID;
typedef cudaLaunchAttributeValue cudaStreamAttrValue;
typedef cudaLaunchAttributeValue cudaKernelNodeAttrValue;
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributePriority cudaLaunchAttributePriority
enum cudaMemLocationType {
  cudaMemLocationTypeInvalid = 0, cudaMemLocationTypeDevice = 1, cudaMemLocationTypeHost = 2,
  cudaMemLocationTypeHostNuma = 3, cudaMemLocationTypeHostNumaCurrent = 4
};
struct cudaMemLocation { cudaMemLocationType type; int id; };
enum cudaMemAccessFlags { cudaMemAccessFlagsProtNone = 0, cudaMemAccessFlagsProtRead = 1, cudaMemAccessFlagsProtReadWrite = 3 };
struct cudaMemAccessDesc { cudaMemLocation location; cudaMemAccessFlags flags; };
enum cudaMemAllocationType { cudaMemAllocationTypeInvalid = 0, cudaMemAllocationTypePinned = 1 };
enum cudaMemAllocationHandleType { cudaMemHandleTypeNone = 0, cudaMemHandleTypePosixFileDescriptor = 1 };
struct cudaMemPoolProps {
  cudaMemAllocationType allocType;
  cudaMemAllocationHandleType handleTypes;
  cudaMemLocation location;
  void* win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};
enum cudaMemPoolAttr {
  cudaMemPoolReuseFollowEventDependencies = 1, cudaMemPoolReuseAllowOpportunistic = 2,
  cudaMemPoolReuseAllowInternalDependencies = 3, cudaMemPoolAttrReleaseThreshold = 4,
  cudaMemPoolAttrReservedMemCurrent = 5, cudaMemPoolAttrReservedMemHigh = 6,
  cudaMemPoolAttrUsedMemCurrent = 7, cudaMemPoolAttrUsedMemHigh = 8
};
struct emu_mem_pool;
typedef emu_mem_pool* cudaMemPool_t;

typedef void (*cudaHostFn_t)(void*);
