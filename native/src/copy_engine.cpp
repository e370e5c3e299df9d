// The copy engine: asynchronous one-sided reads/writes between registered segments.
// Copies run in order on one stream; event ids are increasing, so completion of event i
// implies completion of every earlier event (used to retire finished events).
#include <map>
#include <memory>
#include <mutex>
#include <new>

#include "registry.h"

struct pn_engine {
  pn_registry* reg = nullptr;
  pn::Stream* stream = nullptr;
  std::mutex mutex;
  uint64_t next_event = 1;
  uint64_t retired = 0;  // every event id <= retired has completed
  std::map<uint64_t, std::shared_ptr<pn::Event>> pending;  // deleter: rt_event_destroy
};

namespace {

void retire_upto(pn_engine* eng, uint64_t id) {  // caller holds eng->mutex
  while (!eng->pending.empty() && eng->pending.begin()->first <= id) {
    eng->pending.erase(eng->pending.begin());
  }
  if (id > eng->retired) eng->retired = id;
}

pn_status check_event(pn_engine* eng, uint64_t id) {
  if (id == 0 || id >= eng->next_event)
    return pn::fail(PN_ERR_NOT_FOUND, "event %llu was never issued by this engine",
                    static_cast<unsigned long long>(id));
  return PN_OK;
}

}  // namespace

extern "C" {

PN_API pn_status pn_engine_create(pn_registry* reg, pn_engine** out) {
  if (reg == nullptr || out == nullptr) return pn::fail(PN_ERR_INVALID, "registry or out is NULL");
  auto* eng = new (std::nothrow) pn_engine();
  if (eng == nullptr) return pn::fail(PN_ERR_RUNTIME, "out of memory");
  eng->reg = reg;
  pn_status st = pn::rt_stream_create(&eng->stream);
  if (st != PN_OK) {
    delete eng;
    return st;
  }
  *out = eng;
  return PN_OK;
}

PN_API void pn_engine_destroy(pn_engine* eng) {
  if (eng == nullptr) return;
  pn::rt_stream_destroy(eng->stream);
  delete eng;
}

PN_API pn_status pn_engine_copy(pn_engine* eng, uint64_t dst_key, uint64_t dst_off, uint64_t src_key,
                                uint64_t src_off, uint64_t nbytes, uint64_t* event) {
  if (eng == nullptr || event == nullptr) return pn::fail(PN_ERR_INVALID, "engine or event is NULL");
  void* dst = nullptr;
  void* src = nullptr;
  pn_status st = pn::resolve(eng->reg, dst_key, dst_off, nbytes, "destination", &dst);
  if (st != PN_OK) return st;
  st = pn::resolve(eng->reg, src_key, src_off, nbytes, "source", &src);
  if (st != PN_OK) return st;
  const auto d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  if (nbytes != 0 && d < s + nbytes && s < d + nbytes)
    return pn::fail(PN_ERR_OVERLAP, "source and destination ranges overlap (%llu bytes at %p and %p)",
                    static_cast<unsigned long long>(nbytes), src, dst);
  std::lock_guard<std::mutex> lock(eng->mutex);
  pn::Event* ev = nullptr;
  st = pn::rt_copy_async(eng->stream, dst, src, nbytes, &ev);
  if (st != PN_OK) return st;
  const uint64_t id = eng->next_event++;
  eng->pending[id] = std::shared_ptr<pn::Event>(ev, pn::rt_event_destroy);
  *event = id;
  return PN_OK;
}

PN_API pn_status pn_event_query(pn_engine* eng, uint64_t event, int32_t* done) {
  if (eng == nullptr || done == nullptr) return pn::fail(PN_ERR_INVALID, "engine or done is NULL");
  std::lock_guard<std::mutex> lock(eng->mutex);
  pn_status st = check_event(eng, event);
  if (st != PN_OK) return st;
  if (event <= eng->retired) {
    *done = 1;
    return PN_OK;
  }
  bool finished = false;
  st = pn::rt_event_query(eng->pending.at(event).get(), &finished);
  if (st != PN_OK) return st;
  if (finished) retire_upto(eng, event);
  *done = finished ? 1 : 0;
  return PN_OK;
}

PN_API pn_status pn_event_wait(pn_engine* eng, uint64_t event) {
  if (eng == nullptr) return pn::fail(PN_ERR_INVALID, "engine is NULL");
  std::shared_ptr<pn::Event> ev;
  {
    std::lock_guard<std::mutex> lock(eng->mutex);
    pn_status st = check_event(eng, event);
    if (st != PN_OK) return st;
    if (event <= eng->retired) return PN_OK;
    ev = eng->pending.at(event);
  }
  pn_status st = pn::rt_event_wait(ev.get());  // `ev` keeps the event alive if another thread retires it
  if (st != PN_OK) return st;
  std::lock_guard<std::mutex> lock(eng->mutex);
  retire_upto(eng, event);
  return PN_OK;
}

PN_API pn_status pn_engine_synchronize(pn_engine* eng) {
  if (eng == nullptr) return pn::fail(PN_ERR_INVALID, "engine is NULL");
  pn_status st = pn::rt_stream_synchronize(eng->stream);
  if (st != PN_OK) return st;
  std::lock_guard<std::mutex> lock(eng->mutex);
  retire_upto(eng, eng->next_event - 1);
  return PN_OK;
}

}  // extern "C"
