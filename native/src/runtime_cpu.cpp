// CPU runtime backend: host memory, POSIX shared-memory export, and a worker-thread "stream".
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

#include "internal.h"

namespace pn {

struct Exportable {
  void* ptr = nullptr;
  uint64_t size = 0;
  char name[PN_HANDLE_BYTES] = "";
  bool owner = false;  // allocated here (unlink on release) vs imported (unmap only)
};

namespace {

std::atomic<uint64_t> g_shm_counter{0};

struct Job {
  void* dst;
  const void* src;
  uint64_t nbytes;
};

struct StreamState {
  std::mutex mutex;
  std::condition_variable wake;  // work queued or stop requested
  std::condition_variable done;  // a job completed
  std::deque<Job> queue;
  uint64_t issued = 0;
  uint64_t completed = 0;
  bool stop = false;
  std::thread worker;

  void run() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      wake.wait(lock, [this] { return stop || !queue.empty(); });
      if (queue.empty()) return;  // stop requested and drained
      Job job = queue.front();
      lock.unlock();
      if (job.nbytes) std::memmove(job.dst, job.src, job.nbytes);
      lock.lock();
      queue.pop_front();
      ++completed;
      done.notify_all();
    }
  }
};

}  // namespace

struct Stream {
  std::shared_ptr<StreamState> state;
};
struct Event {
  std::shared_ptr<StreamState> state;
  uint64_t seq;
};

const char* rt_backend_name() { return "cpu"; }

pn_status rt_device_count(int32_t* count) {
  *count = 0;
  return PN_OK;
}

pn_status rt_classify(const void*, pn_pointer_info* out) {
  out->kind = PN_MEM_HOST;
  out->device = -1;
  out->pci_bus_id[0] = '\0';
  return PN_OK;
}

pn_status rt_alloc_exportable(uint64_t size, void** ptr, Exportable** ctx) {
  auto* ex = new (std::nothrow) Exportable();
  if (ex == nullptr) return fail(PN_ERR_RUNTIME, "out of memory");
  std::snprintf(ex->name, sizeof ex->name, "/pn-%d-%llu", static_cast<int>(getpid()),
                static_cast<unsigned long long>(g_shm_counter.fetch_add(1)));
  int fd = shm_open(ex->name, O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    pn_status st = fail(PN_ERR_RUNTIME, "shm_open(%s): %s", ex->name, std::strerror(errno));
    delete ex;
    return st;
  }
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    pn_status st = fail(PN_ERR_RUNTIME, "ftruncate(%s, %llu): %s", ex->name, static_cast<unsigned long long>(size),
                        std::strerror(errno));
    close(fd);
    shm_unlink(ex->name);
    delete ex;
    return st;
  }
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    pn_status st = fail(PN_ERR_RUNTIME, "mmap(%s): %s", ex->name, std::strerror(errno));
    shm_unlink(ex->name);
    delete ex;
    return st;
  }
  ex->ptr = p;
  ex->size = size;
  ex->owner = true;
  *ptr = p;
  *ctx = ex;
  return PN_OK;
}

pn_status rt_export(Exportable* ctx, pn_export_handle* out) {
  std::memset(out, 0, sizeof *out);
  out->kind = 2;
  out->device = -1;
  out->size = ctx->size;
  out->offset = 0;
  std::memcpy(out->bytes, ctx->name, std::strlen(ctx->name) + 1);
  return PN_OK;
}

pn_status rt_import(const pn_export_handle* handle, void** ptr, Exportable** ctx) {
  if (handle->kind != 2)
    return fail(PN_ERR_UNSUPPORTED, "handle kind %d is not a shared-memory handle (the cpu build imports kind 2)",
                handle->kind);
  const char* name = reinterpret_cast<const char*>(handle->bytes);
  if (memchr(name, '\0', PN_HANDLE_BYTES) == nullptr || std::strncmp(name, "/pn-", 4) != 0)
    return fail(PN_ERR_INVALID, "malformed shared-memory handle");
  if (handle->size == 0) return fail(PN_ERR_INVALID, "handle describes a zero-size segment");
  int fd = shm_open(name, O_RDWR, 0);
  if (fd < 0) return fail(PN_ERR_NOT_FOUND, "shared memory %s: %s (was it released?)", name, std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) < handle->offset + handle->size) {
    close(fd);
    return fail(PN_ERR_BOUNDS, "shared memory %s is smaller than the handle's %llu bytes", name,
                static_cast<unsigned long long>(handle->size));
  }
  void* p = mmap(nullptr, handle->offset + handle->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return fail(PN_ERR_RUNTIME, "mmap(%s): %s", name, std::strerror(errno));
  auto* ex = new (std::nothrow) Exportable();
  if (ex == nullptr) {
    munmap(p, handle->offset + handle->size);
    return fail(PN_ERR_RUNTIME, "out of memory");
  }
  ex->ptr = p;
  ex->size = handle->offset + handle->size;
  std::memcpy(ex->name, name, std::strlen(name) + 1);
  *ptr = static_cast<char*>(p) + handle->offset;
  *ctx = ex;
  return PN_OK;
}

void rt_release(Exportable* ctx) {
  if (ctx == nullptr) return;
  munmap(ctx->ptr, ctx->size);
  if (ctx->owner) shm_unlink(ctx->name);
  delete ctx;
}

pn_status rt_stream_create(Stream** out) {
  auto* s = new (std::nothrow) Stream();
  if (s == nullptr) return fail(PN_ERR_RUNTIME, "out of memory");
  try {
    s->state = std::make_shared<StreamState>();
    StreamState* state = s->state.get();
    s->state->worker = std::thread([state] { state->run(); });
  } catch (const std::exception& exc) {
    delete s;
    return fail(PN_ERR_RUNTIME, "cannot start the copy stream: %s", exc.what());
  }
  *out = s;
  return PN_OK;
}

void rt_stream_destroy(Stream* stream) {
  if (stream == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(stream->state->mutex);
    stream->state->stop = true;
  }
  stream->state->wake.notify_all();
  if (stream->state->worker.joinable()) stream->state->worker.join();
  delete stream;
}

pn_status rt_copy_async(Stream* stream, void* dst, const void* src, uint64_t nbytes, Event** event) {
  auto* ev = new (std::nothrow) Event();
  if (ev == nullptr) return fail(PN_ERR_RUNTIME, "out of memory");
  ev->state = stream->state;
  {
    std::lock_guard<std::mutex> lock(stream->state->mutex);
    stream->state->queue.push_back(Job{dst, src, nbytes});
    ev->seq = ++stream->state->issued;
  }
  stream->state->wake.notify_one();
  *event = ev;
  return PN_OK;
}

pn_status rt_event_query(Event* event, bool* done) {
  std::lock_guard<std::mutex> lock(event->state->mutex);
  *done = event->state->completed >= event->seq;
  return PN_OK;
}

pn_status rt_event_wait(Event* event) {
  std::unique_lock<std::mutex> lock(event->state->mutex);
  event->state->done.wait(lock, [event] { return event->state->completed >= event->seq; });
  return PN_OK;
}

void rt_event_destroy(Event* event) { delete event; }

pn_status rt_stream_synchronize(Stream* stream) {
  std::unique_lock<std::mutex> lock(stream->state->mutex);
  const uint64_t target = stream->state->issued;
  stream->state->done.wait(lock, [&] { return stream->state->completed >= target; });
  return PN_OK;
}

}  // namespace pn
