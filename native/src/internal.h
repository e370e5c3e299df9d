// Internal declarations shared by the native translation units (not part of the ABI).
#pragma once

#include <cstdint>

#include "port_native.h"

#ifndef PN_BUILD_PATH
#define PN_BUILD_PATH "unknown"
#endif

namespace pn {

// Record a one-line message for pn_last_error() on this thread; returns `status`.
pn_status fail(pn_status status, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Host threads for one large cpu copy/reduce (set by pn_set_num_threads; <= 0: one per core).
int32_t num_threads();

// ---- runtime backend: runtime_cpu.cpp (host) or runtime_gpu.cpp (gpu_runtime.h) ----
const char* rt_backend_name();
pn_status rt_device_count(int32_t* count);
pn_status rt_classify(const void* ptr, pn_pointer_info* out);

// Memory another process on this node can map: shared memory (cpu) or device memory (GPU IPC).
struct Exportable;  // backend-owned allocation or mapping
pn_status rt_alloc_exportable(uint64_t size, void** ptr, Exportable** ctx);
pn_status rt_export(Exportable* ctx, pn_export_handle* out);
pn_status rt_import(const pn_export_handle* handle, void** ptr, Exportable** ctx);
void rt_release(Exportable* ctx);  // free an allocation or unmap an import

// A stream of asynchronous copies with completion events, in order.
struct Stream;
struct Event;
pn_status rt_stream_create(Stream** out);
void rt_stream_destroy(Stream* stream);  // waits for queued work
pn_status rt_copy_async(Stream* stream, void* dst, const void* src, uint64_t nbytes, Event** event);
pn_status rt_event_query(Event* event, bool* done);
pn_status rt_event_wait(Event* event);
void rt_event_destroy(Event* event);
pn_status rt_stream_synchronize(Stream* stream);

}  // namespace pn
