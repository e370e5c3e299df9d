// rocm-port `port emulate`: a launch runs the blocks of the grid one after another on the calling
// OS thread (emu_scheduler.cpp runs each block); the fault exits of the runtime.
#include "emu_internal.h"

#include <chrono>
#include <csignal>
#include <cstdarg>
#include <mutex>

#include <unistd.h>

uint3 threadIdx;
uint3 blockIdx;
dim3 blockDim;
dim3 gridDim;

namespace emu {
alignas(256) unsigned char dynamic_shared[kDynamicSharedBytes];

[[noreturn]] void die(int code, const char* kind, const char* what) {
  std::fflush(stdout);
  Runtime& r = rt();
  if (r.in_kernel && r.cur != nullptr && r.cur != &r.sched) {
    uint3 t = r.cur == &r.looping ? threadIdx : r.cur->tid;  // a loop's running thread is threadIdx
    std::fprintf(stderr, "emu: %s: %s [warp %d: block (%u,%u,%u) thread (%u,%u,%u)]\n", kind, what, EMU_WARP,
                 blockIdx.x, blockIdx.y, blockIdx.z, t.x, t.y, t.z);
  } else {
    std::fprintf(stderr, "emu: %s: %s [warp %d]\n", kind, what, EMU_WARP);
  }
  std::fflush(stderr);
  std::_Exit(code);
}

[[noreturn]] void faultf(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  die(kExitFault, "error", buf);
}

namespace {
// A death by signal is named on stderr ("emu: signal: N") before the default action ends the
// process: inside bwrap a killed program's exit status is 128 + N, which an exit(128 + N) also
// gives, and two crashed runs must not be judged the same (porting/emulate/run.py). The handler
// runs on its own stack (a fiber's overflow cannot stop it) and only writes.
void on_fatal_signal(int sig) {
  char msg[24] = "emu: signal: ";
  int n = 13;
  if (sig >= 10) msg[n++] = (char)('0' + sig / 10 % 10);
  msg[n++] = (char)('0' + sig % 10);
  msg[n++] = '\n';
  ssize_t ignored = write(2, msg, (size_t)n);
  (void)ignored;
}  // SA_RESETHAND: the signal, raised again by the fault or by abort(), then takes its default action
struct FatalSignals {
  FatalSignals() {
    static char alt[64 * 1024];
    stack_t ss{};
    ss.ss_sp = alt;
    ss.ss_size = sizeof alt;
    sigaltstack(&ss, nullptr);
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (int s : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(s, &sa, nullptr);
  }
} fatal_signals;

bool valid_config(const LaunchConfig& c) {
  const dim3& b = c.block;
  const dim3& g = c.grid;
  if (b.x == 0 || b.y == 0 || b.z == 0 || g.x == 0 || g.y == 0 || g.z == 0) return false;
  if (b.x > 1024 || b.y > 1024 || b.z > 64 || (size_t)b.x * b.y * b.z > kMaxThreads) return false;
  return g.y <= 65535 && g.z <= 65535 && g.x <= 2147483647u;
}

thread_local bool t_launching = false;
std::mutex& launch_lock() {
  static std::mutex m;
  return m;
}

// child grids launched from device code and not yet run, in launch order
struct Deferred {
  LaunchConfig config;
  RunThreads run;
  void* ctx;
  void (*release)(void*);
};
std::vector<Deferred>& deferred() {
  static std::vector<Deferred> q;
  return q;
}

void run_one_grid(Runtime& r, const LaunchConfig& c, RunThreads run, void* ctx);
}  // namespace

bool in_device_code() { return t_launching && rt().in_kernel; }

void defer_grid(const LaunchConfig& c, RunThreads run, void* ctx, void (*release)(void*)) {
  deferred().push_back(Deferred{c, run, ctx, release});
}

bool children_pending() { return !deferred().empty(); }

void run_grid(const LaunchConfig& c, RunThreads run, void* ctx) {
  Runtime& r = rt();
  // Host threads that launch at once (pthreads, OpenMP) take turns: there is one scheduler and
  // one set of thread coordinates. (A launch from device code never gets here: launch() defers it.)
  std::lock_guard<std::mutex> hold(launch_lock());
  struct Launching {
    Launching() { t_launching = true; }
    ~Launching() { t_launching = false; }
  } launching;
  run_one_grid(r, c, run, ctx);
  // the children, and theirs, in launch order: a grid is complete when its children are
  for (size_t i = 0; i < deferred().size(); ++i) {
    Deferred d = deferred()[i];
    run_one_grid(r, d.config, d.run, d.ctx);
    d.release(d.ctx);
  }
  deferred().clear();
}

namespace {
void run_one_grid(Runtime& r, const LaunchConfig& c, RunThreads run, void* ctx) {
  if (!valid_config(c)) { r.last_error = cudaErrorInvalidConfiguration; return; }
  if (c.shmem > sizeof dynamic_shared) { r.last_error = cudaErrorInvalidValue; return; }
  init_stacks(r);
  r.run = run;
  r.ctx = ctx;
  r.nthreads = (int)(c.block.x * c.block.y * c.block.z);
  blockDim = c.block;
  gridDim = c.grid;
  int t = 0;
  for (unsigned z = 0; z < c.block.z; ++z)
    for (unsigned y = 0; y < c.block.y; ++y)
      for (unsigned x = 0; x < c.block.x; ++x) r.fibers[t++].tid = uint3{x, y, z};
  r.in_kernel = true;
  for (unsigned z = 0; z < c.grid.z; ++z)
    for (unsigned y = 0; y < c.grid.y; ++y)
      for (unsigned x = 0; x < c.grid.x; ++x) {
        blockIdx = uint3{x, y, z};
        run_block(r);
      }
  r.in_kernel = false;
  r.cur = nullptr;
  threadIdx = uint3{0, 0, 0};
  blockIdx = uint3{0, 0, 0};
}
}  // namespace

void fault(const char* what) { die(kExitFault, "error", what); }
void unsupported(const char* what) { die(kExitUnsupported, "unsupported", what); }
unsigned long long clock_ticks() {
  return (unsigned long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace emu

