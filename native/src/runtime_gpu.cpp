// GPU runtime backend (cuda, native-hip and hipified-cuda paths), written once against the
// portable `gpu*` names of hip_aliases/gpu_runtime.h: pointer attributes, IPC export of device
// memory, and a stream of asynchronous copies with events. ROCm-version differences are
// guarded with HIP_VERSION_MAJOR here and in the header, nowhere else.
#include <cstring>
#include <new>

#include "hip_aliases/gpu_runtime.h"
#include "internal.h"

namespace pn {

struct Exportable {
  void* ptr = nullptr;
  uint64_t size = 0;
  int32_t device = 0;
  bool owner = false;  // gpuMalloc'd here (free) vs opened IPC handle (close)
};
struct Stream {
  gpuStream_t stream = nullptr;
  int device = 0;
};
struct Event {
  gpuEvent_t event = nullptr;
};

namespace {

// Errors deliberately not acted on: clearing the sticky "last error" after a failure we already
// report, and cleanup in void calls or on a path that already failed, where the first error is
// the one the caller sees. ROCm 7 makes hipError_t [[nodiscard]]; this says so in one place.
inline void ignore_error(gpuError_t) {}

pn_status gpu_fail(gpuError_t err, const char* what) {
  ignore_error(gpuGetLastError());  // clear the sticky "last error" so later calls start clean
  bool no_device = err == gpuErrorNoDevice;
#if defined(GPU_RUNTIME_CUDA)
  no_device = no_device || err == cudaErrorInsufficientDriver;
#elif defined(GPU_RUNTIME_HIP)
  no_device = no_device || err == hipErrorInsufficientDriver;
#endif
  return fail(no_device ? PN_ERR_NO_DEVICE : PN_ERR_RUNTIME, "%s: %s (%s)", what, gpuGetErrorString(err),
              no_device ? "no usable GPU device" : GPU_RUNTIME_BACKEND_NAME " runtime error");
}

// Runtimes differ when there is no device (CUDA: "insufficient driver", HIP: "invalid device"
// from later calls); ask once, up front, so every backend reports PN_ERR_NO_DEVICE alike.
pn_status require_device(const char* what) {
  int n = 0;
  gpuError_t err = gpuGetDeviceCount(&n);
  if (err != gpuSuccess) return gpu_fail(err, what);
  if (n == 0) return fail(PN_ERR_NO_DEVICE, "%s: no GPU device", what);
  return PN_OK;
}

}  // namespace

const char* rt_backend_name() { return GPU_RUNTIME_BACKEND_NAME; }

pn_status rt_device_count(int32_t* count) {
  int n = 0;
  gpuError_t err = gpuGetDeviceCount(&n);
  if (err != gpuSuccess) return gpu_fail(err, "gpuGetDeviceCount");
  if (n == 0) return fail(PN_ERR_NO_DEVICE, "gpuGetDeviceCount: 0 devices");
  *count = n;
  return PN_OK;
}

pn_status rt_classify(const void* ptr, pn_pointer_info* out) {
  gpuPointerAttribute_t attr;
  std::memset(&attr, 0, sizeof attr);
  gpuError_t err = gpuPointerGetAttributes(&attr, ptr);
  out->kind = PN_MEM_HOST;
  out->device = -1;
  out->pci_bus_id[0] = '\0';
  if (err != gpuSuccess) {
    // Memory the runtime never saw: HIP 5 reports an error where CUDA/HIP 6 say "unregistered".
    // A runtime without devices cannot own the pointer either; both mean plain host memory.
    ignore_error(gpuGetLastError());
    return PN_OK;
  }
  const gpuMemoryType type = gpuPointerAttributeType(attr);
  if (type == gpuMemoryTypeDevice) {
    out->kind = PN_MEM_DEVICE;
#if !defined(GPU_RUNTIME_HIP) || HIP_VERSION_MAJOR >= 6
  } else if (type == gpuMemoryTypeManaged) {
    out->kind = PN_MEM_MANAGED;
#endif
  } else {
    return PN_OK;
  }
  out->device = attr.device;
  err = gpuDeviceGetPCIBusId(out->pci_bus_id, PN_PCI_BUS_ID_LEN, attr.device);
  if (err != gpuSuccess) return gpu_fail(err, "gpuDeviceGetPCIBusId");
  return PN_OK;
}

pn_status rt_alloc_exportable(uint64_t size, void** ptr, Exportable** ctx) {
  pn_status st = require_device("gpuMalloc");
  if (st != PN_OK) return st;
  auto* ex = new (std::nothrow) Exportable();
  if (ex == nullptr) return fail(PN_ERR_RUNTIME, "out of memory");
  int device = 0;
  gpuError_t err = gpuGetDevice(&device);
  if (err == gpuSuccess) err = gpuMalloc(&ex->ptr, size);
  if (err != gpuSuccess) {
    delete ex;
    return gpu_fail(err, "gpuMalloc");
  }
  ex->size = size;
  ex->device = device;
  ex->owner = true;
  *ptr = ex->ptr;
  *ctx = ex;
  return PN_OK;
}

pn_status rt_export(Exportable* ctx, pn_export_handle* out) {
  static_assert(sizeof(gpuIpcMemHandle_t) <= PN_HANDLE_BYTES, "IPC handle does not fit");
  gpuIpcMemHandle_t handle;
  gpuError_t err = gpuIpcGetMemHandle(&handle, ctx->ptr);
  if (err != gpuSuccess) return gpu_fail(err, "gpuIpcGetMemHandle");
  std::memset(out, 0, sizeof *out);
  out->kind = 1;
  out->device = ctx->device;
  out->size = ctx->size;
  out->offset = 0;
  std::memcpy(out->bytes, &handle, sizeof handle);
  return PN_OK;
}

pn_status rt_import(const pn_export_handle* handle, void** ptr, Exportable** ctx) {
  if (handle->kind != 1)
    return fail(PN_ERR_UNSUPPORTED, "handle kind %d is not a GPU IPC handle (GPU builds import kind 1)", handle->kind);
  if (handle->size == 0) return fail(PN_ERR_INVALID, "handle describes a zero-size segment");
  pn_status st = require_device("gpuIpcOpenMemHandle");
  if (st != PN_OK) return st;
  gpuIpcMemHandle_t ipc;
  std::memcpy(&ipc, handle->bytes, sizeof ipc);
  void* base = nullptr;
  gpuError_t err = gpuIpcOpenMemHandle(&base, ipc, gpuIpcMemLazyEnablePeerAccess);
  if (err != gpuSuccess) return gpu_fail(err, "gpuIpcOpenMemHandle");
  auto* ex = new (std::nothrow) Exportable();
  if (ex == nullptr) {
    ignore_error(gpuIpcCloseMemHandle(base));
    return fail(PN_ERR_RUNTIME, "out of memory");
  }
  ex->ptr = base;
  ex->size = handle->offset + handle->size;
  ex->device = handle->device;
  *ptr = static_cast<char*>(base) + handle->offset;
  *ctx = ex;
  return PN_OK;
}

void rt_release(Exportable* ctx) {
  if (ctx == nullptr) return;
  if (ctx->owner)
    ignore_error(gpuFree(ctx->ptr));
  else
    ignore_error(gpuIpcCloseMemHandle(ctx->ptr));
  delete ctx;
}

pn_status rt_stream_create(Stream** out) {
  pn_status st = require_device("gpuStreamCreateWithFlags");
  if (st != PN_OK) return st;
  auto* s = new (std::nothrow) Stream();
  if (s == nullptr) return fail(PN_ERR_RUNTIME, "out of memory");
  gpuError_t err = gpuGetDevice(&s->device);
  if (err == gpuSuccess) err = gpuStreamCreateWithFlags(&s->stream, gpuStreamNonBlocking);
  if (err != gpuSuccess) {
    delete s;
    return gpu_fail(err, "gpuStreamCreateWithFlags");
  }
  *out = s;
  return PN_OK;
}

void rt_stream_destroy(Stream* stream) {
  if (stream == nullptr) return;
  ignore_error(gpuStreamSynchronize(stream->stream));
  ignore_error(gpuStreamDestroy(stream->stream));
  delete stream;
}

pn_status rt_copy_async(Stream* stream, void* dst, const void* src, uint64_t nbytes, Event** event) {
  auto* ev = new (std::nothrow) Event();
  if (ev == nullptr) return fail(PN_ERR_RUNTIME, "out of memory");
  gpuError_t err = gpuEventCreateWithFlags(&ev->event, gpuEventDisableTiming);
  if (err != gpuSuccess) {
    delete ev;
    return gpu_fail(err, "gpuEventCreateWithFlags");
  }
  if (nbytes) err = gpuMemcpyAsync(dst, src, nbytes, gpuMemcpyDefault, stream->stream);
  if (err == gpuSuccess) err = gpuEventRecord(ev->event, stream->stream);
  if (err != gpuSuccess) {
    ignore_error(gpuEventDestroy(ev->event));
    delete ev;
    return gpu_fail(err, "gpuMemcpyAsync");
  }
  *event = ev;
  return PN_OK;
}

pn_status rt_event_query(Event* event, bool* done) {
  gpuError_t err = gpuEventQuery(event->event);
  if (err == gpuErrorNotReady) {
    ignore_error(gpuGetLastError());
    *done = false;
    return PN_OK;
  }
  if (err != gpuSuccess) return gpu_fail(err, "gpuEventQuery");
  *done = true;
  return PN_OK;
}

pn_status rt_event_wait(Event* event) {
  gpuError_t err = gpuEventSynchronize(event->event);
  return err == gpuSuccess ? PN_OK : gpu_fail(err, "gpuEventSynchronize");
}

void rt_event_destroy(Event* event) {
  if (event == nullptr) return;
  ignore_error(gpuEventDestroy(event->event));
  delete event;
}

pn_status rt_stream_synchronize(Stream* stream) {
  gpuError_t err = gpuStreamSynchronize(stream->stream);
  return err == gpuSuccess ? PN_OK : gpu_fail(err, "gpuStreamSynchronize");
}

}  // namespace pn
