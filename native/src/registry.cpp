// Memory registration: segments with keys and bounds; exportable segments and imports.
#include "registry.h"

#include <iterator>
#include <new>

namespace {

pn_status insert(pn_registry* reg, void* ptr, uint64_t size, uint32_t elem_size, pn::Exportable* exportable,
                 bool exported_alloc, uint64_t* key) {
  if (reg == nullptr || key == nullptr) return pn::fail(PN_ERR_INVALID, "registry or key is NULL");
  if (size == 0) return pn::fail(PN_ERR_INVALID, "cannot register a zero-size segment");
  if (ptr == nullptr) return pn::fail(PN_ERR_INVALID, "cannot register a NULL pointer");
  if (elem_size == 0 || (elem_size & (elem_size - 1)) != 0 || elem_size > 16)
    return pn::fail(PN_ERR_INVALID, "element size %u is not 1, 2, 4, 8 or 16", elem_size);
  const uintptr_t begin = reinterpret_cast<uintptr_t>(ptr);
  if (begin % elem_size != 0)
    return pn::fail(PN_ERR_ALIGNMENT, "pointer %p is not aligned to the element size %u", ptr, elem_size);
  if (size % elem_size != 0)
    return pn::fail(PN_ERR_ALIGNMENT, "size %llu is not a multiple of the element size %u",
                    static_cast<unsigned long long>(size), elem_size);
  if (begin + size < begin) return pn::fail(PN_ERR_BOUNDS, "segment %p + %llu wraps the address space", ptr,
                                            static_cast<unsigned long long>(size));
  pn_pointer_info info{};
  info.device = -1;
  pn_status st = pn::rt_classify(ptr, &info);
  if (st != PN_OK) return st;

  std::lock_guard<std::mutex> lock(reg->mutex);
  auto next = reg->by_begin.lower_bound(begin);
  if (next != reg->by_begin.end() && next->first < begin + size) {
    return pn::fail(PN_ERR_OVERLAP, "segment [%p, +%llu) overlaps registered segment %llu", ptr,
                    static_cast<unsigned long long>(size), static_cast<unsigned long long>(next->second));
  }
  if (next != reg->by_begin.begin()) {
    auto prev = std::prev(next);
    const auto& seg = reg->by_key[prev->second];
    if (seg.begin + seg.size > begin)
      return pn::fail(PN_ERR_OVERLAP, "segment [%p, +%llu) overlaps registered segment %llu", ptr,
                      static_cast<unsigned long long>(size), static_cast<unsigned long long>(prev->second));
  }
  pn_registry::Segment seg;
  seg.begin = begin;
  seg.size = size;
  seg.elem_size = elem_size;
  seg.info = info;
  seg.exportable = exportable;
  seg.exported_alloc = exported_alloc;
  const uint64_t k = reg->next_key++;
  reg->by_key[k] = seg;
  reg->by_begin[begin] = k;
  *key = k;
  return PN_OK;
}

}  // namespace

namespace pn {

pn_status resolve(pn_registry* reg, uint64_t key, uint64_t offset, uint64_t nbytes, const char* role, void** ptr) {
  std::lock_guard<std::mutex> lock(reg->mutex);
  auto it = reg->by_key.find(key);
  if (it == reg->by_key.end())
    return fail(PN_ERR_NOT_FOUND, "%s segment key %llu is not registered", role,
                static_cast<unsigned long long>(key));
  const auto& seg = it->second;
  if (offset > seg.size || nbytes > seg.size - offset)
    return fail(PN_ERR_BOUNDS, "%s range [%llu, %llu) is outside segment %llu of %llu bytes", role,
                static_cast<unsigned long long>(offset), static_cast<unsigned long long>(offset + nbytes),
                static_cast<unsigned long long>(key), static_cast<unsigned long long>(seg.size));
  if (offset % seg.elem_size != 0 || nbytes % seg.elem_size != 0)
    return fail(PN_ERR_ALIGNMENT, "%s offset %llu / length %llu not aligned to segment %llu's element size %u", role,
                static_cast<unsigned long long>(offset), static_cast<unsigned long long>(nbytes),
                static_cast<unsigned long long>(key), seg.elem_size);
  *ptr = reinterpret_cast<void*>(seg.begin + offset);
  return PN_OK;
}

}  // namespace pn

extern "C" {

PN_API pn_status pn_registry_create(pn_registry** out) {
  if (out == nullptr) return pn::fail(PN_ERR_INVALID, "out is NULL");
  *out = new (std::nothrow) pn_registry();
  return *out ? PN_OK : pn::fail(PN_ERR_RUNTIME, "out of memory");
}

PN_API void pn_registry_destroy(pn_registry* reg) {
  if (reg == nullptr) return;
  for (auto& kv : reg->by_key)
    if (kv.second.exportable) pn::rt_release(kv.second.exportable);
  delete reg;
}

PN_API pn_status pn_register(pn_registry* reg, void* ptr, uint64_t size, uint32_t elem_size, uint64_t* key) {
  return insert(reg, ptr, size, elem_size, nullptr, false, key);
}

PN_API pn_status pn_deregister(pn_registry* reg, uint64_t key) {
  if (reg == nullptr) return pn::fail(PN_ERR_INVALID, "registry is NULL");
  pn::Exportable* exportable = nullptr;
  {
    std::lock_guard<std::mutex> lock(reg->mutex);
    auto it = reg->by_key.find(key);
    if (it == reg->by_key.end())
      return pn::fail(PN_ERR_NOT_FOUND, "segment key %llu is not registered", static_cast<unsigned long long>(key));
    exportable = it->second.exportable;
    reg->by_begin.erase(it->second.begin);
    reg->by_key.erase(it);
  }
  if (exportable) pn::rt_release(exportable);
  return PN_OK;
}

PN_API pn_status pn_segment(pn_registry* reg, uint64_t key, void** ptr, uint64_t* size, pn_pointer_info* info) {
  if (reg == nullptr) return pn::fail(PN_ERR_INVALID, "registry is NULL");
  std::lock_guard<std::mutex> lock(reg->mutex);
  auto it = reg->by_key.find(key);
  if (it == reg->by_key.end())
    return pn::fail(PN_ERR_NOT_FOUND, "segment key %llu is not registered", static_cast<unsigned long long>(key));
  if (ptr) *ptr = reinterpret_cast<void*>(it->second.begin);
  if (size) *size = it->second.size;
  if (info) *info = it->second.info;
  return PN_OK;
}

PN_API pn_status pn_segment_count(pn_registry* reg, uint64_t* count) {
  if (reg == nullptr || count == nullptr) return pn::fail(PN_ERR_INVALID, "registry or count is NULL");
  std::lock_guard<std::mutex> lock(reg->mutex);
  *count = reg->by_key.size();
  return PN_OK;
}

PN_API pn_status pn_alloc_exportable(pn_registry* reg, uint64_t size, uint32_t elem_size, void** ptr,
                                     uint64_t* key) {
  if (reg == nullptr || ptr == nullptr || key == nullptr) return pn::fail(PN_ERR_INVALID, "NULL argument");
  if (size == 0) return pn::fail(PN_ERR_INVALID, "cannot allocate a zero-size segment");
  pn::Exportable* ctx = nullptr;
  pn_status st = pn::rt_alloc_exportable(size, ptr, &ctx);
  if (st != PN_OK) return st;
  st = insert(reg, *ptr, size, elem_size, ctx, true, key);
  if (st != PN_OK) pn::rt_release(ctx);
  return st;
}

PN_API pn_status pn_export(pn_registry* reg, uint64_t key, pn_export_handle* out) {
  if (reg == nullptr || out == nullptr) return pn::fail(PN_ERR_INVALID, "NULL argument");
  // Under the lock: a concurrent pn_deregister of this key releases the allocation.
  std::lock_guard<std::mutex> lock(reg->mutex);
  auto it = reg->by_key.find(key);
  if (it == reg->by_key.end())
    return pn::fail(PN_ERR_NOT_FOUND, "segment key %llu is not registered", static_cast<unsigned long long>(key));
  if (!it->second.exported_alloc)
    return pn::fail(PN_ERR_UNSUPPORTED, "segment %llu was not allocated by alloc_exportable and cannot be exported",
                    static_cast<unsigned long long>(key));
  return pn::rt_export(it->second.exportable, out);
}

PN_API pn_status pn_import(pn_registry* reg, const pn_export_handle* handle, uint32_t elem_size, void** ptr,
                           uint64_t* key) {
  if (reg == nullptr || handle == nullptr || ptr == nullptr || key == nullptr)
    return pn::fail(PN_ERR_INVALID, "NULL argument");
  pn::Exportable* ctx = nullptr;
  pn_status st = pn::rt_import(handle, ptr, &ctx);
  if (st != PN_OK) return st;
  st = insert(reg, *ptr, handle->size, elem_size, ctx, false, key);
  if (st != PN_OK) pn::rt_release(ctx);
  return st;
}

}  // extern "C"
