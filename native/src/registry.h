// The segment registry (shared by registry.cpp and copy_engine.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>

#include "internal.h"

struct pn_registry {
  struct Segment {
    uintptr_t begin = 0;
    uint64_t size = 0;
    uint32_t elem_size = 1;
    pn_pointer_info info{};
    pn::Exportable* exportable = nullptr;  // owned allocation or import, else NULL (user memory)
    bool exported_alloc = false;           // allocated by pn_alloc_exportable (can be exported)
  };
  std::mutex mutex;
  uint64_t next_key = 1;
  std::unordered_map<uint64_t, Segment> by_key;
  std::map<uintptr_t, uint64_t> by_begin;  // begin -> key, for overlap checks
};

namespace pn {
// Resolve [offset, offset+nbytes) of segment `key` to a pointer, checking key, bounds and alignment.
pn_status resolve(pn_registry* reg, uint64_t key, uint64_t offset, uint64_t nbytes, const char* role,
                  void** ptr);
}  // namespace pn
