// HIP names of the runtime API, each the same function or value as its CUDA name. A HIP name
// that is missing here fails the compile, and `port emulate` names it as not emulated.
#pragma once
#define hipMalloc cudaMalloc
#define hipMallocHost cudaMallocHost
#define hipHostAlloc cudaHostAlloc
#define hipMallocManaged cudaMallocManaged
#define hipMallocPitch cudaMallocPitch
#define hipMallocAsync cudaMallocAsync
#define hipFree cudaFree
#define hipFreeHost cudaFreeHost
#define hipFreeAsync cudaFreeAsync
#define hipHostRegister cudaHostRegister
#define hipHostUnregister cudaHostUnregister
#define hipHostGetDevicePointer cudaHostGetDevicePointer
#define hipPointerGetAttributes cudaPointerGetAttributes
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemcpy2D cudaMemcpy2D
#define hipMemcpy2DAsync cudaMemcpy2DAsync
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync
#define hipMemset2D cudaMemset2D
#define hipMemGetInfo cudaMemGetInfo
#define hipMemPrefetchAsync cudaMemPrefetchAsync
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipDeviceReset cudaDeviceReset
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName
#define hipGetDeviceCount cudaGetDeviceCount
#define hipSetDevice cudaSetDevice
#define hipGetDevice cudaGetDevice
#define hipSetDeviceFlags cudaSetDeviceFlags
#define hipGetDeviceFlags cudaGetDeviceFlags
#define hipChooseDevice cudaChooseDevice
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceSetCacheConfig cudaDeviceSetCacheConfig
#define hipDeviceSetSharedMemConfig cudaDeviceSetSharedMemConfig
#define hipDriverGetVersion cudaDriverGetVersion
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipStreamCreate cudaStreamCreate
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamCreateWithPriority cudaStreamCreateWithPriority
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStreamQuery cudaStreamQuery
#define hipStreamWaitEvent cudaStreamWaitEvent
#define hipStreamAddCallback cudaStreamAddCallback
#define hipLaunchHostFunc cudaLaunchHostFunc
#define hipEventCreate cudaEventCreate
#define hipEventCreateWithFlags cudaEventCreateWithFlags
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventQuery cudaEventQuery
#define hipEventElapsedTime cudaEventElapsedTime
#define hipEventDestroy cudaEventDestroy
#define hipProfilerStart cudaProfilerStart
#define hipProfilerStop cudaProfilerStop
#define hipFuncSetCacheConfig cudaFuncSetCacheConfig
#define hipFuncSetAttribute cudaFuncSetAttribute
#define hipFuncSetSharedMemConfig cudaFuncSetSharedMemConfig
#define hipFuncGetAttributes cudaFuncGetAttributes
#define hipOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define hipOccupancyMaxPotentialBlockSize cudaOccupancyMaxPotentialBlockSize
#define hipLaunchKernel cudaLaunchKernel
#define hipSuccess cudaSuccess
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorMemoryAllocation cudaErrorMemoryAllocation
#define hipErrorInitializationError cudaErrorInitializationError
#define hipErrorLaunchFailure cudaErrorLaunchFailure
#define hipErrorInvalidConfiguration cudaErrorInvalidConfiguration
#define hipErrorInvalidSymbol cudaErrorInvalidSymbol
#define hipErrorInvalidDevicePointer cudaErrorInvalidDevicePointer
#define hipErrorInvalidMemcpyDirection cudaErrorInvalidMemcpyDirection
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorInvalidDevice cudaErrorInvalidDevice
#define hipErrorInvalidResourceHandle cudaErrorInvalidResourceHandle
#define hipErrorNotReady cudaErrorNotReady
#define hipErrorNotSupported cudaErrorNotSupported
#define hipErrorUnknown cudaErrorUnknown
#define hipMemcpyHostToHost cudaMemcpyHostToHost
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemcpyDefault cudaMemcpyDefault
#define hipStreamDefault cudaStreamDefault
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipEventDefault cudaEventDefault
#define hipEventBlockingSync cudaEventBlockingSync
#define hipEventDisableTiming cudaEventDisableTiming
#define hipHostAllocDefault cudaHostAllocDefault
#define hipHostAllocPortable cudaHostAllocPortable
#define hipHostAllocMapped cudaHostAllocMapped
#define hipHostAllocWriteCombined cudaHostAllocWriteCombined
#define hipHostRegisterDefault cudaHostRegisterDefault
#define hipHostRegisterPortable cudaHostRegisterPortable
#define hipHostRegisterMapped cudaHostRegisterMapped
#define hipMemAttachGlobal cudaMemAttachGlobal
#define hipDeviceScheduleAuto cudaDeviceScheduleAuto
#define hipDeviceScheduleSpin cudaDeviceScheduleSpin
#define hipDeviceScheduleYield cudaDeviceScheduleYield
#define hipDeviceScheduleBlockingSync cudaDeviceScheduleBlockingSync
#define hipDeviceMapHost cudaDeviceMapHost
#define hipCpuDeviceId cudaCpuDeviceId
#define hipFuncCachePreferNone cudaFuncCachePreferNone
#define hipFuncCachePreferShared cudaFuncCachePreferShared
#define hipFuncCachePreferL1 cudaFuncCachePreferL1
#define hipFuncCachePreferEqual cudaFuncCachePreferEqual
#define hipSharedMemBankSizeDefault cudaSharedMemBankSizeDefault
#define hipSharedMemBankSizeFourByte cudaSharedMemBankSizeFourByte
#define hipSharedMemBankSizeEightByte cudaSharedMemBankSizeEightByte
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define hipMemoryTypeHost cudaMemoryTypeHost
#define hipMemoryTypeDevice cudaMemoryTypeDevice
#define hipMemoryTypeManaged cudaMemoryTypeManaged
#define hipDeviceAttributeMaxThreadsPerBlock cudaDevAttrMaxThreadsPerBlock
#define hipDeviceAttributeMaxBlockDimX cudaDevAttrMaxBlockDimX
#define hipDeviceAttributeMaxBlockDimY cudaDevAttrMaxBlockDimY
#define hipDeviceAttributeMaxBlockDimZ cudaDevAttrMaxBlockDimZ
#define hipDeviceAttributeMaxGridDimX cudaDevAttrMaxGridDimX
#define hipDeviceAttributeMaxGridDimY cudaDevAttrMaxGridDimY
#define hipDeviceAttributeMaxGridDimZ cudaDevAttrMaxGridDimZ
#define hipDeviceAttributeMaxSharedMemoryPerBlock cudaDevAttrMaxSharedMemoryPerBlock
#define hipDeviceAttributeTotalConstantMemory cudaDevAttrTotalConstantMemory
#define hipDeviceAttributeWarpSize cudaDevAttrWarpSize
#define hipDeviceAttributeMaxRegistersPerBlock cudaDevAttrMaxRegistersPerBlock
#define hipDeviceAttributeClockRate cudaDevAttrClockRate
#define hipDeviceAttributeMultiProcessorCount cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define hipDeviceAttributeComputeCapabilityMinor cudaDevAttrComputeCapabilityMinor
#define hipDeviceAttributeMaxThreadsPerMultiProcessor cudaDevAttrMaxThreadsPerMultiProcessor
#define hipDeviceAttributeL2CacheSize cudaDevAttrL2CacheSize
#define hipDeviceAttributeConcurrentKernels cudaDevAttrConcurrentKernels
#define hipDeviceAttributeManagedMemory cudaDevAttrManagedMemory
#define hipDeviceAttributeCooperativeLaunch cudaDevAttrCooperativeLaunch
#define hipDeviceAttributeMemoryClockRate cudaDevAttrMemoryClockRate
#define hipDeviceAttributeMemoryBusWidth cudaDevAttrGlobalMemoryBusWidth
#define hipDeviceAttributeIntegrated cudaDevAttrIntegrated
// resource hints (emu_base.h)
#define hipDeviceSetLimit cudaDeviceSetLimit
#define hipDeviceGetLimit cudaDeviceGetLimit
#define hipLimitStackSize cudaLimitStackSize
#define hipLimitPrintfFifoSize cudaLimitPrintfFifoSize
#define hipLimitMallocHeapSize cudaLimitMallocHeapSize
#define hipDeviceGetStreamPriorityRange cudaDeviceGetStreamPriorityRange
#define hipStreamGetPriority cudaStreamGetPriority
#define hipStreamGetFlags cudaStreamGetFlags
#define hipDeviceGetDefaultMemPool cudaDeviceGetDefaultMemPool
#define hipDeviceGetMemPool cudaDeviceGetMemPool
#define hipDeviceSetMemPool cudaDeviceSetMemPool
#define hipMemPoolCreate cudaMemPoolCreate
#define hipMemPoolDestroy cudaMemPoolDestroy
#define hipMemPoolSetAttribute cudaMemPoolSetAttribute
#define hipMemPoolGetAttribute cudaMemPoolGetAttribute
#define hipMemPoolSetAccess cudaMemPoolSetAccess
#define hipMemPoolGetAccess cudaMemPoolGetAccess
#define hipMemPoolTrimTo cudaMemPoolTrimTo
#define hipMallocFromPoolAsync cudaMallocFromPoolAsync
#define hipMemPoolAttrReleaseThreshold cudaMemPoolAttrReleaseThreshold
#define hipMemPoolAttrReservedMemCurrent cudaMemPoolAttrReservedMemCurrent
#define hipMemPoolAttrReservedMemHigh cudaMemPoolAttrReservedMemHigh
#define hipMemPoolAttrUsedMemCurrent cudaMemPoolAttrUsedMemCurrent
#define hipMemPoolAttrUsedMemHigh cudaMemPoolAttrUsedMemHigh
#define hipMemPoolReuseFollowEventDependencies cudaMemPoolReuseFollowEventDependencies
#define hipMemPoolReuseAllowOpportunistic cudaMemPoolReuseAllowOpportunistic
#define hipMemPoolReuseAllowInternalDependencies cudaMemPoolReuseAllowInternalDependencies
#define hipMemLocationTypeDevice cudaMemLocationTypeDevice
#define hipMemAccessFlagsProtNone cudaMemAccessFlagsProtNone
#define hipMemAccessFlagsProtRead cudaMemAccessFlagsProtRead
#define hipMemAccessFlagsProtReadWrite cudaMemAccessFlagsProtReadWrite
#define hipMemAllocationTypePinned cudaMemAllocationTypePinned
#define hipMemHandleTypeNone cudaMemHandleTypeNone
#define hipAccessPropertyNormal cudaAccessPropertyNormal
#define hipAccessPropertyStreaming cudaAccessPropertyStreaming
#define hipAccessPropertyPersisting cudaAccessPropertyPersisting
typedef cudaLimit hipLimit_t;
typedef cudaMemPool_t hipMemPool_t;
typedef cudaMemPoolProps hipMemPoolProps;
typedef cudaMemPoolAttr hipMemPoolAttr;
typedef cudaMemLocation hipMemLocation;
typedef cudaMemAccessDesc hipMemAccessDesc;
typedef cudaMemAccessFlags hipMemAccessFlags;
typedef cudaAccessPolicyWindow hipAccessPolicyWindow;
typedef cudaAccessProperty hipAccessProperty;
typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaDeviceProp hipDeviceProp_t;
typedef cudaMemcpyKind hipMemcpyKind;
typedef cudaFuncAttributes hipFuncAttributes;
typedef cudaPointerAttributes hipPointerAttribute_t;
typedef cudaFuncCache hipFuncCache_t;
typedef cudaSharedMemConfig hipSharedMemConfig;
typedef cudaStreamCallback_t hipStreamCallback_t;
typedef cudaHostFn_t hipHostFn_t;
typedef cudaDeviceAttr hipDeviceAttribute_t;
#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z
#define hipHostMalloc cudaHostAlloc
#define hipHostFree cudaFreeHost
#define hipHostMallocDefault cudaHostAllocDefault
#define hipHostMallocMapped cudaHostAllocMapped
#define hipHostMallocPortable cudaHostAllocPortable
#define hipDeviceptr_t void*
// HIP names a symbol by its address (HIP_SYMBOL(x) is &x); CUDA by the variable itself.
inline hipError_t hipMemcpyToSymbol(const void* sym, const void* src, size_t n, size_t off = 0,
                                    hipMemcpyKind = hipMemcpyHostToDevice) {
  std::memcpy(static_cast<char*>(const_cast<void*>(sym)) + off, src, n);
  return hipSuccess;
}
inline hipError_t hipMemcpyFromSymbol(void* dst, const void* sym, size_t n, size_t off = 0,
                                      hipMemcpyKind = hipMemcpyDeviceToHost) {
  std::memcpy(dst, static_cast<const char*>(sym) + off, n);
  return hipSuccess;
}
inline hipError_t hipMemcpyToSymbolAsync(const void* sym, const void* src, size_t n, size_t off, hipMemcpyKind k,
                                         hipStream_t = nullptr) {
  return hipMemcpyToSymbol(sym, src, n, off, k);
}
inline hipError_t hipMemcpyFromSymbolAsync(void* dst, const void* sym, size_t n, size_t off, hipMemcpyKind k,
                                           hipStream_t = nullptr) {
  return hipMemcpyFromSymbol(dst, sym, n, off, k);
}
inline hipError_t hipGetSymbolAddress(void** p, const void* sym) { *p = const_cast<void*>(sym); return hipSuccess; }
#define hipDeviceAttributeComputeMode cudaDevAttrComputeMode
#define hipComputeModeDefault cudaComputeModeDefault
#define hipComputeModeProhibited cudaComputeModeProhibited
#define hipDeviceAttributeMaxSharedMemoryPerMultiprocessor cudaDevAttrMaxSharedMemoryPerMultiprocessor
