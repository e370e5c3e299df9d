// rocm-port `port emulate`, part of emu_runtime.h: the runtime's cudaError_t and the driver's CUresult,
// every name and value of CUDA 13.0's driver_types.h and cuda.h, spelled once as X-macro lists from
// which the enums and cudaGetErrorName / cuGetErrorName are made. Programs switch over the whole list
// in their own error helpers (the CUDA Handbook's chError.h names 46 CUresult codes), so a subset
// fails to compile them; the emulator itself returns only a few of these codes.
#pragma once

#define EMU_CUDA_ERRORS(X) \
  X(cudaSuccess, 0) X(cudaErrorInvalidValue, 1) X(cudaErrorMemoryAllocation, 2) \
  X(cudaErrorInitializationError, 3) X(cudaErrorCudartUnloading, 4) \
  X(cudaErrorProfilerDisabled, 5) X(cudaErrorProfilerNotInitialized, 6) \
  X(cudaErrorProfilerAlreadyStarted, 7) X(cudaErrorProfilerAlreadyStopped, 8) \
  X(cudaErrorInvalidConfiguration, 9) X(cudaErrorInvalidPitchValue, 12) \
  X(cudaErrorInvalidSymbol, 13) X(cudaErrorInvalidHostPointer, 16) \
  X(cudaErrorInvalidDevicePointer, 17) X(cudaErrorInvalidTexture, 18) \
  X(cudaErrorInvalidTextureBinding, 19) X(cudaErrorInvalidChannelDescriptor, 20) \
  X(cudaErrorInvalidMemcpyDirection, 21) X(cudaErrorAddressOfConstant, 22) \
  X(cudaErrorTextureFetchFailed, 23) X(cudaErrorTextureNotBound, 24) \
  X(cudaErrorSynchronizationError, 25) X(cudaErrorInvalidFilterSetting, 26) \
  X(cudaErrorInvalidNormSetting, 27) X(cudaErrorMixedDeviceExecution, 28) \
  X(cudaErrorNotYetImplemented, 31) X(cudaErrorMemoryValueTooLarge, 32) \
  X(cudaErrorStubLibrary, 34) X(cudaErrorInsufficientDriver, 35) \
  X(cudaErrorCallRequiresNewerDriver, 36) X(cudaErrorInvalidSurface, 37) \
  X(cudaErrorDuplicateVariableName, 43) X(cudaErrorDuplicateTextureName, 44) \
  X(cudaErrorDuplicateSurfaceName, 45) X(cudaErrorDevicesUnavailable, 46) \
  X(cudaErrorIncompatibleDriverContext, 49) X(cudaErrorMissingConfiguration, 52) \
  X(cudaErrorPriorLaunchFailure, 53) X(cudaErrorLaunchMaxDepthExceeded, 65) \
  X(cudaErrorLaunchFileScopedTex, 66) X(cudaErrorLaunchFileScopedSurf, 67) \
  X(cudaErrorSyncDepthExceeded, 68) X(cudaErrorLaunchPendingCountExceeded, 69) \
  X(cudaErrorInvalidDeviceFunction, 98) X(cudaErrorNoDevice, 100) X(cudaErrorInvalidDevice, 101) \
  X(cudaErrorDeviceNotLicensed, 102) X(cudaErrorSoftwareValidityNotEstablished, 103) \
  X(cudaErrorStartupFailure, 127) X(cudaErrorInvalidKernelImage, 200) \
  X(cudaErrorDeviceUninitialized, 201) X(cudaErrorMapBufferObjectFailed, 205) \
  X(cudaErrorUnmapBufferObjectFailed, 206) X(cudaErrorArrayIsMapped, 207) \
  X(cudaErrorAlreadyMapped, 208) X(cudaErrorNoKernelImageForDevice, 209) \
  X(cudaErrorAlreadyAcquired, 210) X(cudaErrorNotMapped, 211) X(cudaErrorNotMappedAsArray, 212) \
  X(cudaErrorNotMappedAsPointer, 213) X(cudaErrorECCUncorrectable, 214) \
  X(cudaErrorUnsupportedLimit, 215) X(cudaErrorDeviceAlreadyInUse, 216) \
  X(cudaErrorPeerAccessUnsupported, 217) X(cudaErrorInvalidPtx, 218) \
  X(cudaErrorInvalidGraphicsContext, 219) X(cudaErrorNvlinkUncorrectable, 220) \
  X(cudaErrorJitCompilerNotFound, 221) X(cudaErrorUnsupportedPtxVersion, 222) \
  X(cudaErrorJitCompilationDisabled, 223) X(cudaErrorUnsupportedExecAffinity, 224) \
  X(cudaErrorUnsupportedDevSideSync, 225) X(cudaErrorContained, 226) \
  X(cudaErrorInvalidSource, 300) X(cudaErrorFileNotFound, 301) \
  X(cudaErrorSharedObjectSymbolNotFound, 302) X(cudaErrorSharedObjectInitFailed, 303) \
  X(cudaErrorOperatingSystem, 304) X(cudaErrorInvalidResourceHandle, 400) \
  X(cudaErrorIllegalState, 401) X(cudaErrorLossyQuery, 402) X(cudaErrorSymbolNotFound, 500) \
  X(cudaErrorNotReady, 600) X(cudaErrorIllegalAddress, 700) X(cudaErrorLaunchOutOfResources, 701) \
  X(cudaErrorLaunchTimeout, 702) X(cudaErrorLaunchIncompatibleTexturing, 703) \
  X(cudaErrorPeerAccessAlreadyEnabled, 704) X(cudaErrorPeerAccessNotEnabled, 705) \
  X(cudaErrorSetOnActiveProcess, 708) X(cudaErrorContextIsDestroyed, 709) X(cudaErrorAssert, 710) \
  X(cudaErrorTooManyPeers, 711) X(cudaErrorHostMemoryAlreadyRegistered, 712) \
  X(cudaErrorHostMemoryNotRegistered, 713) X(cudaErrorHardwareStackError, 714) \
  X(cudaErrorIllegalInstruction, 715) X(cudaErrorMisalignedAddress, 716) \
  X(cudaErrorInvalidAddressSpace, 717) X(cudaErrorInvalidPc, 718) X(cudaErrorLaunchFailure, 719) \
  X(cudaErrorCooperativeLaunchTooLarge, 720) X(cudaErrorTensorMemoryLeak, 721) \
  X(cudaErrorNotPermitted, 800) X(cudaErrorNotSupported, 801) X(cudaErrorSystemNotReady, 802) \
  X(cudaErrorSystemDriverMismatch, 803) X(cudaErrorCompatNotSupportedOnDevice, 804) \
  X(cudaErrorMpsConnectionFailed, 805) X(cudaErrorMpsRpcFailure, 806) \
  X(cudaErrorMpsServerNotReady, 807) X(cudaErrorMpsMaxClientsReached, 808) \
  X(cudaErrorMpsMaxConnectionsReached, 809) X(cudaErrorMpsClientTerminated, 810) \
  X(cudaErrorCdpNotSupported, 811) X(cudaErrorCdpVersionMismatch, 812) \
  X(cudaErrorStreamCaptureUnsupported, 900) X(cudaErrorStreamCaptureInvalidated, 901) \
  X(cudaErrorStreamCaptureMerge, 902) X(cudaErrorStreamCaptureUnmatched, 903) \
  X(cudaErrorStreamCaptureUnjoined, 904) X(cudaErrorStreamCaptureIsolation, 905) \
  X(cudaErrorStreamCaptureImplicit, 906) X(cudaErrorCapturedEvent, 907) \
  X(cudaErrorStreamCaptureWrongThread, 908) X(cudaErrorTimeout, 909) \
  X(cudaErrorGraphExecUpdateFailure, 910) X(cudaErrorExternalDevice, 911) \
  X(cudaErrorInvalidClusterSize, 912) X(cudaErrorFunctionNotLoaded, 913) \
  X(cudaErrorInvalidResourceType, 914) X(cudaErrorInvalidResourceConfiguration, 915) \
  X(cudaErrorUnknown, 999) X(cudaErrorApiFailureBase, 10000)

#define EMU_CU_RESULTS(X) \
  X(CUDA_SUCCESS, 0) X(CUDA_ERROR_INVALID_VALUE, 1) X(CUDA_ERROR_OUT_OF_MEMORY, 2) \
  X(CUDA_ERROR_NOT_INITIALIZED, 3) X(CUDA_ERROR_DEINITIALIZED, 4) \
  X(CUDA_ERROR_PROFILER_DISABLED, 5) X(CUDA_ERROR_PROFILER_NOT_INITIALIZED, 6) \
  X(CUDA_ERROR_PROFILER_ALREADY_STARTED, 7) X(CUDA_ERROR_PROFILER_ALREADY_STOPPED, 8) \
  X(CUDA_ERROR_STUB_LIBRARY, 34) X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, 36) \
  X(CUDA_ERROR_DEVICE_UNAVAILABLE, 46) X(CUDA_ERROR_NO_DEVICE, 100) \
  X(CUDA_ERROR_INVALID_DEVICE, 101) X(CUDA_ERROR_DEVICE_NOT_LICENSED, 102) \
  X(CUDA_ERROR_INVALID_IMAGE, 200) X(CUDA_ERROR_INVALID_CONTEXT, 201) \
  X(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, 202) X(CUDA_ERROR_MAP_FAILED, 205) \
  X(CUDA_ERROR_UNMAP_FAILED, 206) X(CUDA_ERROR_ARRAY_IS_MAPPED, 207) \
  X(CUDA_ERROR_ALREADY_MAPPED, 208) X(CUDA_ERROR_NO_BINARY_FOR_GPU, 209) \
  X(CUDA_ERROR_ALREADY_ACQUIRED, 210) X(CUDA_ERROR_NOT_MAPPED, 211) \
  X(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, 212) X(CUDA_ERROR_NOT_MAPPED_AS_POINTER, 213) \
  X(CUDA_ERROR_ECC_UNCORRECTABLE, 214) X(CUDA_ERROR_UNSUPPORTED_LIMIT, 215) \
  X(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, 216) X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, 217) \
  X(CUDA_ERROR_INVALID_PTX, 218) X(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, 219) \
  X(CUDA_ERROR_NVLINK_UNCORRECTABLE, 220) X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, 221) \
  X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222) X(CUDA_ERROR_JIT_COMPILATION_DISABLED, 223) \
  X(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, 224) X(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, 225) \
  X(CUDA_ERROR_CONTAINED, 226) X(CUDA_ERROR_INVALID_SOURCE, 300) \
  X(CUDA_ERROR_FILE_NOT_FOUND, 301) X(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, 302) \
  X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, 303) X(CUDA_ERROR_OPERATING_SYSTEM, 304) \
  X(CUDA_ERROR_INVALID_HANDLE, 400) X(CUDA_ERROR_ILLEGAL_STATE, 401) \
  X(CUDA_ERROR_LOSSY_QUERY, 402) X(CUDA_ERROR_NOT_FOUND, 500) X(CUDA_ERROR_NOT_READY, 600) \
  X(CUDA_ERROR_ILLEGAL_ADDRESS, 700) X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 701) \
  X(CUDA_ERROR_LAUNCH_TIMEOUT, 702) X(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, 703) \
  X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, 704) X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, 705) \
  X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, 708) X(CUDA_ERROR_CONTEXT_IS_DESTROYED, 709) \
  X(CUDA_ERROR_ASSERT, 710) X(CUDA_ERROR_TOO_MANY_PEERS, 711) \
  X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 712) X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, 713) \
  X(CUDA_ERROR_HARDWARE_STACK_ERROR, 714) X(CUDA_ERROR_ILLEGAL_INSTRUCTION, 715) \
  X(CUDA_ERROR_MISALIGNED_ADDRESS, 716) X(CUDA_ERROR_INVALID_ADDRESS_SPACE, 717) \
  X(CUDA_ERROR_INVALID_PC, 718) X(CUDA_ERROR_LAUNCH_FAILED, 719) \
  X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, 720) X(CUDA_ERROR_TENSOR_MEMORY_LEAK, 721) \
  X(CUDA_ERROR_NOT_PERMITTED, 800) X(CUDA_ERROR_NOT_SUPPORTED, 801) \
  X(CUDA_ERROR_SYSTEM_NOT_READY, 802) X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803) \
  X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804) X(CUDA_ERROR_MPS_CONNECTION_FAILED, 805) \
  X(CUDA_ERROR_MPS_RPC_FAILURE, 806) X(CUDA_ERROR_MPS_SERVER_NOT_READY, 807) \
  X(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, 808) X(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, 809) \
  X(CUDA_ERROR_MPS_CLIENT_TERMINATED, 810) X(CUDA_ERROR_CDP_NOT_SUPPORTED, 811) \
  X(CUDA_ERROR_CDP_VERSION_MISMATCH, 812) X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, 900) \
  X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, 901) X(CUDA_ERROR_STREAM_CAPTURE_MERGE, 902) \
  X(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, 903) X(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, 904) \
  X(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, 905) X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, 906) \
  X(CUDA_ERROR_CAPTURED_EVENT, 907) X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, 908) \
  X(CUDA_ERROR_TIMEOUT, 909) X(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, 910) \
  X(CUDA_ERROR_EXTERNAL_DEVICE, 911) X(CUDA_ERROR_INVALID_CLUSTER_SIZE, 912) \
  X(CUDA_ERROR_FUNCTION_NOT_LOADED, 913) X(CUDA_ERROR_INVALID_RESOURCE_TYPE, 914) \
  X(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, 915) X(CUDA_ERROR_KEY_ROTATION, 916) \
  X(CUDA_ERROR_UNKNOWN, 999)
