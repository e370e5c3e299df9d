// hip_aliases/detail/gpu_runtime_cpu.h: the CPU backend of hip_aliases/gpu_runtime.h.
//
// Hand-written (its semantics differ from a GPU runtime); included only by gpu_runtime.h. Memory,
// pointer attributes and IPC are in gpu_runtime_cpu_memory.h, kernel launch in
// gpu_runtime_cpu_kernels.h (both included at the end).
// Defines every portable name of the API list (a test checks this) on a host without a GPU:
//
// - one device, 0, named "host device"; gpuSetDevice(n != 0) is gpuErrorInvalidDevice.
// - gpuMalloc: host memory in a memfd (one per allocation), mapped shared, so that
//   gpuIpcGetMemHandle/gpuIpcOpenMemHandle work between processes of the same user
//   (the handle names /proc/PID/fd/FD; the exporting process must keep the allocation alive).
//   gpuHostMalloc: host memory (malloc). gpuHostRegister records a range as registered.
// - gpuPointerGetAttributes: Device for gpuMalloc'd and IPC-opened memory (devicePointer =
//   the pointer, hostPointer = nullptr), Host for gpuHostMalloc'd or registered memory (both
//   pointers set), Unregistered (device -1, both null) for anything else, as CUDA >= 11 does.
// - streams and events are synchronous: every call completes its work before it returns;
//   gpuStreamQuery/gpuEventQuery return gpuSuccess; events record steady_clock time stamps.
// - errors: the values are CUDA's; gpuGetLastError returns and clears the calling thread's
//   last error, gpuPeekAtLastError returns it.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

// ---- types and constants ----------------------------------------------------------------

enum gpuError_t {
  gpuSuccess = 0,
  gpuErrorInvalidValue = 1,
  gpuErrorMemoryAllocation = 2,
  gpuErrorNoDevice = 100,
  gpuErrorInvalidDevice = 101,
  gpuErrorInvalidResourceHandle = 400,
  gpuErrorNotReady = 600,
  gpuErrorNotSupported = 801,
};

enum gpuMemcpyKind {
  gpuMemcpyHostToHost = 0,
  gpuMemcpyHostToDevice = 1,
  gpuMemcpyDeviceToHost = 2,
  gpuMemcpyDeviceToDevice = 3,
  gpuMemcpyDefault = 4,
};

enum gpuMemoryType {
  gpuMemoryTypeUnregistered = 0,
  gpuMemoryTypeHost = 1,
  gpuMemoryTypeDevice = 2,
  gpuMemoryTypeManaged = 3,
};

struct gpuPointerAttribute_t {
  gpuMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
};

struct gpuDeviceProp_t {
  char name[256];
  char gcnArchName[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int multiProcessorCount;
  int warpSize;
  int maxThreadsPerBlock;
  int major;
  int minor;
  int pciDomainID;
  int pciBusID;
  int pciDeviceID;
};

struct gpuIpcMemHandle_t {
  char reserved[64];  // same size as CUDA's and HIP's
};

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
};

namespace gpu_runtime_cpu {
struct Stream {
  unsigned int flags;
};
struct Event {
  unsigned int flags;
  bool recorded;
  std::chrono::steady_clock::time_point when;
};
}  // namespace gpu_runtime_cpu

typedef gpu_runtime_cpu::Stream* gpuStream_t;
typedef gpu_runtime_cpu::Event* gpuEvent_t;

#define gpuStreamDefault 0x00u
#define gpuStreamNonBlocking 0x01u
#define gpuEventDefault 0x00u
#define gpuEventBlockingSync 0x01u
#define gpuEventDisableTiming 0x02u
#define gpuEventInterprocess 0x04u
#define gpuHostMallocDefault 0x00u
#define gpuHostRegisterDefault 0x00u
#define gpuHostRegisterPortable 0x01u
#define gpuHostRegisterMapped 0x02u
#define gpuIpcMemLazyEnablePeerAccess 0x01u

// ---- state: allocations and the last error ----------------------------------------------

namespace gpu_runtime_cpu {

enum class Kind { device, host, registered, ipc_opened };

struct Allocation {
  size_t size;
  Kind kind;
  int fd;  // memfd of device allocations, else -1
};

struct IpcPayload {  // what a gpuIpcMemHandle_t carries on the CPU backend
  char magic[8];
  int64_t pid;
  int64_t fd;
  uint64_t size;
};
static_assert(sizeof(IpcPayload) <= sizeof(gpuIpcMemHandle_t), "IPC payload must fit the handle");
constexpr char kIpcMagic[8] = {'g', 'p', 'u', 'r', 't', 'c', 'p', 'u'};

inline std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
inline std::map<uintptr_t, Allocation>& registry() {
  static std::map<uintptr_t, Allocation> r;
  return r;
}
inline gpuError_t& last_error() {
  static thread_local gpuError_t e = gpuSuccess;
  return e;
}
inline gpuError_t fail(gpuError_t e) {
  last_error() = e;
  return e;
}
// The allocation containing p (base <= p < base + size), or registry().end(). Lock held by caller.
inline std::map<uintptr_t, Allocation>::iterator find_locked(const void* p) {
  auto& r = registry();
  auto it = r.upper_bound(reinterpret_cast<uintptr_t>(p));
  if (it == r.begin()) return r.end();
  --it;
  uintptr_t q = reinterpret_cast<uintptr_t>(p);
  if (q < it->first + (it->second.size ? it->second.size : 1)) return it;
  return r.end();
}
inline int memfd(const char* name) {
#if defined(SYS_memfd_create)
  return static_cast<int>(::syscall(SYS_memfd_create, name, 1u /* MFD_CLOEXEC */));
#else
  (void)name;
  return -1;
#endif
}
inline gpuError_t free_kind(void* p, Kind kind) {
  if (p == nullptr) return gpuSuccess;
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(reinterpret_cast<uintptr_t>(p));
  if (it == registry().end() || it->second.kind != kind) return fail(gpuErrorInvalidValue);
  Allocation a = it->second;
  registry().erase(it);
  if (kind == Kind::host) {
    std::free(p);
  } else {
    if (a.size) ::munmap(p, a.size);
    if (a.fd >= 0) ::close(a.fd);
  }
  return gpuSuccess;
}

}  // namespace gpu_runtime_cpu

// ---- errors -------------------------------------------------------------------------------

inline const char* gpuGetErrorName(gpuError_t e) {
  switch (e) {
    case gpuSuccess: return "gpuSuccess";
    case gpuErrorInvalidValue: return "gpuErrorInvalidValue";
    case gpuErrorMemoryAllocation: return "gpuErrorMemoryAllocation";
    case gpuErrorNoDevice: return "gpuErrorNoDevice";
    case gpuErrorInvalidDevice: return "gpuErrorInvalidDevice";
    case gpuErrorInvalidResourceHandle: return "gpuErrorInvalidResourceHandle";
    case gpuErrorNotReady: return "gpuErrorNotReady";
    case gpuErrorNotSupported: return "gpuErrorNotSupported";
  }
  return "gpuErrorUnknown";
}
inline const char* gpuGetErrorString(gpuError_t e) {
  switch (e) {
    case gpuSuccess: return "no error";
    case gpuErrorInvalidValue: return "invalid argument";
    case gpuErrorMemoryAllocation: return "out of memory";
    case gpuErrorNoDevice: return "no GPU device is detected";
    case gpuErrorInvalidDevice: return "invalid device ordinal (the CPU backend has device 0 only)";
    case gpuErrorInvalidResourceHandle: return "invalid resource handle";
    case gpuErrorNotReady: return "device not ready";
    case gpuErrorNotSupported: return "operation not supported on the CPU backend";
  }
  return "unknown error";
}
inline gpuError_t gpuGetLastError() {
  gpuError_t e = gpu_runtime_cpu::last_error();
  gpu_runtime_cpu::last_error() = gpuSuccess;
  return e;
}
inline gpuError_t gpuPeekAtLastError() { return gpu_runtime_cpu::last_error(); }

// ---- devices ------------------------------------------------------------------------------

inline gpuError_t gpuGetDeviceCount(int* count) {
  if (count == nullptr) return gpu_runtime_cpu::fail(gpuErrorInvalidValue);
  *count = 1;
  return gpuSuccess;
}
inline gpuError_t gpuGetDevice(int* device) {
  if (device == nullptr) return gpu_runtime_cpu::fail(gpuErrorInvalidValue);
  *device = 0;
  return gpuSuccess;
}
inline gpuError_t gpuSetDevice(int device) {
  return device == 0 ? gpuSuccess : gpu_runtime_cpu::fail(gpuErrorInvalidDevice);
}
inline gpuError_t gpuGetDeviceProperties(gpuDeviceProp_t* prop, int device) {
  if (prop == nullptr) return gpu_runtime_cpu::fail(gpuErrorInvalidValue);
  if (device != 0) return gpu_runtime_cpu::fail(gpuErrorInvalidDevice);
  std::memset(prop, 0, sizeof *prop);
  std::snprintf(prop->name, sizeof prop->name, "%s", "host device");
  std::snprintf(prop->gcnArchName, sizeof prop->gcnArchName, "%s", "cpu");
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  prop->totalGlobalMem = (pages > 0 && page > 0) ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
  prop->sharedMemPerBlock = 0;
  unsigned cores = std::thread::hardware_concurrency();
  prop->multiProcessorCount = cores ? static_cast<int>(cores) : 1;
  prop->warpSize = 1;
  prop->maxThreadsPerBlock = 1024;
  return gpuSuccess;
}
inline gpuError_t gpuDeviceSynchronize() { return gpuSuccess; }
inline gpuError_t gpuDeviceGetPCIBusId(char* bus_id, int len, int device) {
  if (bus_id == nullptr || len <= 0) return gpu_runtime_cpu::fail(gpuErrorInvalidValue);
  if (device != 0) return gpu_runtime_cpu::fail(gpuErrorInvalidDevice);
  std::snprintf(bus_id, static_cast<size_t>(len), "%s", "0000:00:00.0");
  return gpuSuccess;
}

// ---- streams and events (synchronous) ---------------------------------------------------------

inline gpuError_t gpuStreamCreateWithFlags(gpuStream_t* stream, unsigned int flags) {
  if (stream == nullptr || flags > gpuStreamNonBlocking) return gpu_runtime_cpu::fail(gpuErrorInvalidValue);
  *stream = new gpu_runtime_cpu::Stream{flags};
  return gpuSuccess;
}
inline gpuError_t gpuStreamCreate(gpuStream_t* stream) { return gpuStreamCreateWithFlags(stream, gpuStreamDefault); }
inline gpuError_t gpuStreamDestroy(gpuStream_t stream) {
  if (stream == nullptr) return gpu_runtime_cpu::fail(gpuErrorInvalidResourceHandle);
  delete stream;
  return gpuSuccess;
}
inline gpuError_t gpuStreamSynchronize(gpuStream_t stream) { (void)stream; return gpuSuccess; }
inline gpuError_t gpuStreamQuery(gpuStream_t stream) { (void)stream; return gpuSuccess; }
inline gpuError_t gpuStreamWaitEvent(gpuStream_t stream, gpuEvent_t event, unsigned int flags = 0) {
  (void)stream;
  if (event == nullptr || flags != 0) return gpu_runtime_cpu::fail(gpuErrorInvalidValue);
  return gpuSuccess;
}

inline gpuError_t gpuEventCreateWithFlags(gpuEvent_t* event, unsigned int flags) {
  const unsigned int known = gpuEventBlockingSync | gpuEventDisableTiming | gpuEventInterprocess;
  if (event == nullptr || (flags & ~known) != 0) return gpu_runtime_cpu::fail(gpuErrorInvalidValue);
  *event = new gpu_runtime_cpu::Event{flags, false, std::chrono::steady_clock::time_point()};
  return gpuSuccess;
}
inline gpuError_t gpuEventCreate(gpuEvent_t* event) { return gpuEventCreateWithFlags(event, gpuEventDefault); }
inline gpuError_t gpuEventRecord(gpuEvent_t event, gpuStream_t stream = nullptr) {
  (void)stream;
  if (event == nullptr) return gpu_runtime_cpu::fail(gpuErrorInvalidResourceHandle);
  event->recorded = true;
  event->when = std::chrono::steady_clock::now();
  return gpuSuccess;
}
inline gpuError_t gpuEventSynchronize(gpuEvent_t event) {
  return event == nullptr ? gpu_runtime_cpu::fail(gpuErrorInvalidResourceHandle) : gpuSuccess;
}
inline gpuError_t gpuEventQuery(gpuEvent_t event) {
  return event == nullptr ? gpu_runtime_cpu::fail(gpuErrorInvalidResourceHandle) : gpuSuccess;
}
inline gpuError_t gpuEventElapsedTime(float* ms, gpuEvent_t start, gpuEvent_t stop) {
  using namespace gpu_runtime_cpu;
  if (ms == nullptr) return fail(gpuErrorInvalidValue);
  if (start == nullptr || stop == nullptr) return fail(gpuErrorInvalidResourceHandle);
  if ((start->flags | stop->flags) & gpuEventDisableTiming) return fail(gpuErrorInvalidResourceHandle);
  if (!start->recorded || !stop->recorded) return fail(gpuErrorNotReady);
  *ms = std::chrono::duration<float, std::milli>(stop->when - start->when).count();
  return gpuSuccess;
}
inline gpuError_t gpuEventDestroy(gpuEvent_t event) {
  if (event == nullptr) return gpu_runtime_cpu::fail(gpuErrorInvalidResourceHandle);
  delete event;
  return gpuSuccess;
}

#include "gpu_runtime_cpu_memory.h"
#include "gpu_runtime_cpu_kernels.h"
