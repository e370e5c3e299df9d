// Library-level entry points: ABI version, error messages, backend identity, devices.
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "internal.h"

namespace {
thread_local char g_error[512] = "";
}

namespace pn {

pn_status fail(pn_status status, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(g_error, sizeof g_error, fmt, args);
  va_end(args);
  return status;
}

pn_status ok() { return PN_OK; }

}  // namespace pn

extern "C" {

PN_API int pn_abi_version(void) { return PN_ABI_VERSION; }
PN_API const char* pn_backend_name(void) { return pn::rt_backend_name(); }
PN_API const char* pn_build_path(void) { return PN_BUILD_PATH; }
PN_API const char* pn_last_error(void) { return g_error; }

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
