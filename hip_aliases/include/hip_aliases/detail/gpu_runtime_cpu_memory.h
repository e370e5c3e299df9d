// hip_aliases/detail/gpu_runtime_cpu_memory.h: memory, pointer attributes and IPC of the CPU
// backend (semantics: see gpu_runtime_cpu.h). Included by gpu_runtime_cpu.h only.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

// ---- memory ---------------------------------------------------------------------------------

inline gpuError_t gpuMalloc(void** ptr, size_t size) {
  using namespace gpu_runtime_cpu;
  if (ptr == nullptr) return fail(gpuErrorInvalidValue);
  *ptr = nullptr;
  if (size == 0) return gpuSuccess;
  int fd = memfd("gpu_runtime_cpu");
  void* p = MAP_FAILED;
  if (fd >= 0 && ::ftruncate(fd, static_cast<off_t>(size)) == 0)
    p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    if (fd >= 0) ::close(fd);
    return fail(gpuErrorMemoryAllocation);
  }
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[reinterpret_cast<uintptr_t>(p)] = Allocation{size, Kind::device, fd};
  *ptr = p;
  return gpuSuccess;
}
inline gpuError_t gpuFree(void* ptr) { return gpu_runtime_cpu::free_kind(ptr, gpu_runtime_cpu::Kind::device); }

inline gpuError_t gpuHostMalloc(void** ptr, size_t size, unsigned int flags) {
  using namespace gpu_runtime_cpu;
  (void)flags;
  if (ptr == nullptr) return fail(gpuErrorInvalidValue);
  *ptr = nullptr;
  if (size == 0) return gpuSuccess;
  void* p = std::malloc(size);
  if (p == nullptr) return fail(gpuErrorMemoryAllocation);
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[reinterpret_cast<uintptr_t>(p)] = Allocation{size, Kind::host, -1};
  *ptr = p;
  return gpuSuccess;
}
inline gpuError_t gpuHostFree(void* ptr) { return gpu_runtime_cpu::free_kind(ptr, gpu_runtime_cpu::Kind::host); }

inline gpuError_t gpuHostRegister(void* ptr, size_t size, unsigned int flags) {
  using namespace gpu_runtime_cpu;
  (void)flags;
  if (ptr == nullptr || size == 0) return fail(gpuErrorInvalidValue);
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& r = registry();
  uintptr_t lo = reinterpret_cast<uintptr_t>(ptr);
  auto it = r.lower_bound(lo);
  bool overlaps = (it != r.end() && it->first < lo + size) || find_locked(ptr) != r.end();
  if (overlaps) return fail(gpuErrorInvalidValue);  // CUDA: HostMemoryAlreadyRegistered
  r[lo] = Allocation{size, Kind::registered, -1};
  return gpuSuccess;
}
inline gpuError_t gpuHostUnregister(void* ptr) {
  return gpu_runtime_cpu::free_kind(ptr, gpu_runtime_cpu::Kind::registered);
}
inline gpuError_t gpuHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags) {
  using namespace gpu_runtime_cpu;
  if (device_ptr == nullptr || flags != 0) return fail(gpuErrorInvalidValue);
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = find_locked(host_ptr);
  if (it == registry().end() || (it->second.kind != Kind::host && it->second.kind != Kind::registered))
    return fail(gpuErrorInvalidValue);
  *device_ptr = host_ptr;
  return gpuSuccess;
}

inline gpuError_t gpuMemcpy(void* dst, const void* src, size_t count, gpuMemcpyKind kind) {
  if (static_cast<unsigned>(kind) > static_cast<unsigned>(gpuMemcpyDefault))
    return gpu_runtime_cpu::fail(gpuErrorInvalidValue);
  if (count == 0) return gpuSuccess;
  if (dst == nullptr || src == nullptr) return gpu_runtime_cpu::fail(gpuErrorInvalidValue);
  std::memmove(dst, src, count);
  return gpuSuccess;
}
inline gpuError_t gpuMemcpyAsync(void* dst, const void* src, size_t count, gpuMemcpyKind kind,
                                 gpuStream_t stream = nullptr) {
  (void)stream;
  return gpuMemcpy(dst, src, count, kind);
}
inline gpuError_t gpuMemset(void* dst, int value, size_t count) {
  if (count == 0) return gpuSuccess;
  if (dst == nullptr) return gpu_runtime_cpu::fail(gpuErrorInvalidValue);
  std::memset(dst, value, count);
  return gpuSuccess;
}
inline gpuError_t gpuMemsetAsync(void* dst, int value, size_t count, gpuStream_t stream = nullptr) {
  (void)stream;
  return gpuMemset(dst, value, count);
}

// ---- pointer attributes ---------------------------------------------------------------------

inline gpuError_t gpuPointerGetAttributes(gpuPointerAttribute_t* attributes, const void* ptr) {
  using namespace gpu_runtime_cpu;
  if (attributes == nullptr) return fail(gpuErrorInvalidValue);
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = find_locked(ptr);
  void* p = const_cast<void*>(ptr);
  if (it == registry().end()) {
    *attributes = gpuPointerAttribute_t{gpuMemoryTypeUnregistered, -1, nullptr, nullptr};
  } else if (it->second.kind == Kind::device || it->second.kind == Kind::ipc_opened) {
    *attributes = gpuPointerAttribute_t{gpuMemoryTypeDevice, 0, p, nullptr};
  } else {
    *attributes = gpuPointerAttribute_t{gpuMemoryTypeHost, 0, p, p};
  }
  return gpuSuccess;
}

// ---- IPC ------------------------------------------------------------------------------------

inline gpuError_t gpuIpcGetMemHandle(gpuIpcMemHandle_t* handle, void* ptr) {
  using namespace gpu_runtime_cpu;
  if (handle == nullptr || ptr == nullptr) return fail(gpuErrorInvalidValue);
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(reinterpret_cast<uintptr_t>(ptr));  // base pointers only, as CUDA
  if (it == registry().end() || it->second.kind != Kind::device || it->second.fd < 0)
    return fail(gpuErrorInvalidValue);
  IpcPayload payload;
  std::memcpy(payload.magic, kIpcMagic, sizeof payload.magic);
  payload.pid = static_cast<int64_t>(::getpid());
  payload.fd = it->second.fd;
  payload.size = it->second.size;
  std::memset(handle, 0, sizeof *handle);
  std::memcpy(handle->reserved, &payload, sizeof payload);
  return gpuSuccess;
}
inline gpuError_t gpuIpcOpenMemHandle(void** ptr, gpuIpcMemHandle_t handle, unsigned int flags) {
  using namespace gpu_runtime_cpu;
  (void)flags;
  if (ptr == nullptr) return fail(gpuErrorInvalidValue);
  *ptr = nullptr;
  IpcPayload payload;
  std::memcpy(&payload, handle.reserved, sizeof payload);
  if (std::memcmp(payload.magic, kIpcMagic, sizeof payload.magic) != 0 || payload.size == 0)
    return fail(gpuErrorInvalidValue);
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%lld/fd/%lld", static_cast<long long>(payload.pid),
                static_cast<long long>(payload.fd));
  int fd = ::open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return fail(gpuErrorInvalidResourceHandle);
  void* p = ::mmap(nullptr, payload.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return fail(gpuErrorMemoryAllocation);
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[reinterpret_cast<uintptr_t>(p)] = Allocation{static_cast<size_t>(payload.size), Kind::ipc_opened, -1};
  *ptr = p;
  return gpuSuccess;
}
inline gpuError_t gpuIpcCloseMemHandle(void* ptr) {
  if (ptr == nullptr) return gpu_runtime_cpu::fail(gpuErrorInvalidValue);
  return gpu_runtime_cpu::free_kind(ptr, gpu_runtime_cpu::Kind::ipc_opened);
}
