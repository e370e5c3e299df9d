// Library-level entry points: ABI version, error messages, backend identity, devices.
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <thread>

#include "internal.h"

namespace {
thread_local char g_error[512] = "";
std::atomic<int32_t> g_threads{1};  // default: the caller's thread only (no oversubscription)
}

namespace pn {

pn_status fail(pn_status status, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(g_error, sizeof g_error, fmt, args);
  va_end(args);
  return status;
}

int32_t num_threads() {
  int32_t t = g_threads.load();
  if (t <= 0) t = static_cast<int32_t>(std::thread::hardware_concurrency());
  return t < 1 ? 1 : (t > 64 ? 64 : t);
}

}  // namespace pn

extern "C" {

PN_API int pn_abi_version(void) { return PN_ABI_VERSION; }
PN_API const char* pn_backend_name(void) { return pn::rt_backend_name(); }
PN_API const char* pn_build_path(void) { return PN_BUILD_PATH; }
PN_API const char* pn_last_error(void) { return g_error; }
PN_API void pn_set_num_threads(int32_t threads) { g_threads.store(threads); }
PN_API int32_t pn_get_num_threads(void) { return pn::num_threads(); }

PN_API pn_status pn_device_count(int32_t* count) {
  if (count == nullptr) return pn::fail(PN_ERR_INVALID, "count is NULL");
  *count = 0;
  return pn::rt_device_count(count);
}

PN_API pn_status pn_classify_pointer(const void* ptr, pn_pointer_info* out) {
  if (out == nullptr) return pn::fail(PN_ERR_INVALID, "out is NULL");
  if (ptr == nullptr) return pn::fail(PN_ERR_INVALID, "pointer is NULL");
  std::memset(out, 0, sizeof *out);
  out->device = -1;
  return pn::rt_classify(ptr, out);
}

}  // extern "C"
