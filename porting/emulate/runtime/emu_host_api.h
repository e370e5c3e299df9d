// rocm-port `port emulate`, part of emu_runtime.h (programs include that umbrella header):
// the host API's declarations (defined in emu_host_api.cpp).
#pragma once
#include "emu_base.h"

// ---- host API (emu_host_api.cpp) ------------------------------------------------------------
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
template <class T> EMU_INL cudaError_t cudaHostGetDevicePointer(T** d, void* h, unsigned int flags) {
  return cudaHostGetDevicePointer(reinterpret_cast<void**>(d), h, flags);
}
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
cudaError_t cudaMemAdvise(const void* p, size_t n, cudaMemoryAdvise advice, int device);
// CUDA 12.2's _v2 forms, the plain names' signatures since CUDA 13: a cudaMemLocation for the device
cudaError_t cudaMemAdvise(const void* p, size_t n, cudaMemoryAdvise advice, cudaMemLocation where);
cudaError_t cudaMemPrefetchAsync(const void* p, size_t n, cudaMemLocation where, unsigned int flags, cudaStream_t s = nullptr);
#define cudaMemAdvise_v2 cudaMemAdvise
#define cudaMemPrefetchAsync_v2 cudaMemPrefetchAsync
cudaError_t cudaStreamAttachMemAsync(cudaStream_t s, void* p, size_t n = 0, unsigned int flags = cudaMemAttachSingle);
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
// peer access: the emulated machine has one device, which is no peer of itself (CUDA answers 0
// for a device and itself), so a multi-GPU program takes its one-device path; copies between
// "devices" name device 0 on both sides
cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer);
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peer);
cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, size_t n);
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t n,
                                cudaStream_t s = nullptr);
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
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit);
cudaError_t cudaCtxResetPersistingL2Cache();
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest);
cudaError_t cudaStreamGetPriority(cudaStream_t s, int* priority);
cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned int* flags);
cudaError_t cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID id, const cudaStreamAttrValue* value);
cudaError_t cudaStreamGetAttribute(cudaStream_t s, cudaStreamAttrID id, cudaStreamAttrValue* value);
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device);
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device);
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool);
cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props);
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value);
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc* list, size_t count);
cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags* flags, cudaMemPool_t pool, cudaMemLocation* location);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep);
cudaError_t cudaMallocFromPoolAsync(void** p, size_t n, cudaMemPool_t pool, cudaStream_t s);
template <class T> EMU_INL cudaError_t cudaMallocFromPoolAsync(T** p, size_t n, cudaMemPool_t pool, cudaStream_t s) {
  return cudaMallocFromPoolAsync(reinterpret_cast<void**>(p), n, pool, s);
}
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
#include "emu_graph.h"  // stream capture: needs the API above
