// rocm-port `port emulate`: a launch runs the blocks of the grid one after another on the calling
// OS thread (emu_scheduler.cpp runs each block); the fault exits of the runtime.
#include "emu_internal.h"

#include <chrono>
#include <csignal>
#include <cstdarg>
#include <mutex>

#include <ucontext.h>
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
thread_local bool t_launching = false;

// Whether the faulting thread had run off the bottom of its stack: it touched a guard page, or
// its stack pointer (x86-64) lies in no stack's usable bytes but within the 64 MiB below one
// (a frame that stepped over the guard page). A GPU's stack per thread is far smaller than this
// emulator's (EMU_STACK_KB, 256 KiB by default), so it is a device fault there too; the finding
// says which.
bool stack_overflow(const Runtime& r, const siginfo_t* info, const void* context) {
  auto addr = static_cast<const char*>(info->si_addr);
  for (char* floor : r.floors)
    if (addr < floor && addr >= floor - r.page) return true;
#if defined(__x86_64__)
  auto sp = reinterpret_cast<const char*>(static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_RSP]);
  bool below = false;
  for (size_t i = 0; i < r.floors.size(); ++i) {
    if (sp >= r.floors[i] && sp <= r.stacks[i]) return false;
    below = below || (sp < r.floors[i] && sp >= r.floors[i] - (64 << 20));
  }
  return below;
#else
  (void)context;
  return false;
#endif
}

// A memory fault while this OS thread runs device code: CUDA aborts the grid and the context's
// error becomes cudaErrorIllegalAddress, sticky; the host program goes on. The finding names
// the kernel and the thread (the scheduler's order is the same at both widths, so is the
// thread); it leaves through siglongjmp to the grid loop (run_blocks), off this handler's stack.
void device_fault(Runtime& r, int sig, bool overflow) {
  char buf[640];
  uint3 t = r.cur == &r.looping || r.cur == nullptr || r.cur == &r.sched ? threadIdx : r.cur->tid;
  int n = std::snprintf(buf, sizeof buf,
                        "emu: finding: kernel '%s': an illegal memory access (%s%s): the launch is aborted and "
                        "every CUDA call returns cudaErrorIllegalAddress from here on, as on a GPU "
                        "[warp %d: block (%u,%u,%u) thread (%u,%u,%u)]\n",
                        r.kernel_name ? r.kernel_name : "(unnamed)", sig == SIGBUS ? "SIGBUS" : "SIGSEGV",
                        overflow ? ", a stack overflow: the thread's stack is EMU_STACK_KB, 256 KiB by default" : "", EMU_WARP,
                        blockIdx.x, blockIdx.y, blockIdx.z, t.x, t.y, t.z);
  ssize_t ignored = write(2, buf, (size_t)std::min(n, (int)sizeof buf - 1));
  (void)ignored;
  r.fault_armed = false;
  siglongjmp(r.fault_jump, sig);
}

// A death by signal is named on stderr ("emu: signal: N") before the default action ends the
// process: inside bwrap a killed program's exit status is 128 + N, which an exit(128 + N) also
// gives, and two crashed runs must not be judged the same (porting/emulate/run.py). The handler
// runs on its own stack (a fiber's overflow cannot stop it) and only writes, unless the signal
// is a memory fault in device code (device_fault).
void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  Runtime& r = rt();
  bool memory = sig == SIGSEGV || sig == SIGBUS;
  if (memory && t_launching && r.in_kernel && r.fault_armed && info->si_code > 0)
    device_fault(r, sig, stack_overflow(r, info, context));
  char msg[24] = "emu: signal: ";
  int n = 13;
  if (sig >= 10) msg[n++] = (char)('0' + sig / 10 % 10);
  msg[n++] = (char)('0' + sig % 10);
  msg[n++] = '\n';
  ssize_t ignored = write(2, msg, (size_t)n);
  (void)ignored;
  // the default action from now on: a fault raises the signal again as the instruction reruns,
  // abort() raises it again itself; a signal another process sent is raised here
  signal(sig, SIG_DFL);
  if (info->si_code <= 0) raise(sig);
}
// The main thread's handler stack is set up below; another host thread that launches (pthreads,
// OpenMP) gets its own at its first launch, so a device fault on an overflowed fiber stack is
// still handled there. Kept for the thread's life (a few per program).
void give_thread_an_alternate_stack() {
  static thread_local bool done = false;
  if (done) return;
  done = true;
  stack_t now{};
  if (sigaltstack(nullptr, &now) != 0 || !(now.ss_flags & SS_DISABLE)) return;
  stack_t ss{};
  ss.ss_size = 64 * 1024;
  ss.ss_sp = std::malloc(ss.ss_size);
  if (ss.ss_sp != nullptr) sigaltstack(&ss, nullptr);
}

struct FatalSignals {
  FatalSignals() {
    static char alt[64 * 1024];
    stack_t ss{};
    ss.ss_sp = alt;
    ss.ss_size = sizeof alt;
    sigaltstack(&ss, nullptr);
    struct sigaction sa {};
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_ONSTACK | SA_SIGINFO;
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
int run_blocks(Runtime& r, const LaunchConfig& c);
void abort_grid(Runtime& r);
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
    Launching() { t_launching = true; give_thread_an_alternate_stack(); }
    ~Launching() { t_launching = false; }
  } launching;
  run_one_grid(r, c, run, ctx);
  // the children, and theirs, in launch order: a grid is complete when its children are (after
  // a device fault none runs: the context is lost)
  for (size_t i = 0; i < deferred().size(); ++i) {
    Deferred d = deferred()[i];
    run_one_grid(r, d.config, d.run, d.ctx);
    d.release(d.ctx);
  }
  deferred().clear();
}

cudaError_t sticky_error() { return rt().sticky; }
void clear_sticky_error() { rt().sticky = cudaSuccess; }

namespace {
void run_one_grid(Runtime& r, const LaunchConfig& c, RunThreads run, void* ctx) {
  if (r.sticky != cudaSuccess) { r.last_error = r.sticky; return; }
  if (!valid_config(c)) { r.last_error = cudaErrorInvalidConfiguration; return; }
  if (c.shmem > sizeof dynamic_shared) { r.last_error = cudaErrorInvalidValue; return; }
  init_stacks(r);
  r.device_ns += (unsigned long long)c.grid.x * c.grid.y * c.grid.z * c.block.x * c.block.y * c.block.z;
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
  r.kernel_name = c.name;
  if (run_blocks(r, c) != 0) abort_grid(r);
  r.in_kernel = false;
  r.cur = nullptr;
  threadIdx = uint3{0, 0, 0};
  blockIdx = uint3{0, 0, 0};
}

// Runs the blocks in order; returns 0, or the signal of a memory fault in device code that
// ended the grid there (device_fault jumps back here; nothing after sigsetjmp is kept in a
// register across the jump but `r`, which does not change).
int run_blocks(Runtime& r, const LaunchConfig& c) {
  int sig = sigsetjmp(r.fault_jump, 1);
  if (sig != 0) return sig;
  r.fault_armed = true;
  for (unsigned z = 0; z < c.grid.z; ++z)
    for (unsigned y = 0; y < c.grid.y; ++y)
      for (unsigned x = 0; x < c.grid.x; ++x) {
        blockIdx = uint3{x, y, z};
        run_block(r);
      }
  r.fault_armed = false;
  return 0;
}

// After a device fault: no thread of the grid runs any more, nor any grid after it (CUDA's
// context is lost). The suspended threads' stacks are free again (none runs), the block's
// barrier state is cleared; the child grids queued are released unrun (run_one_grid refuses them).
void abort_grid(Runtime& r) {
  r.sticky = r.last_error = cudaErrorIllegalAddress;
  r.free_stacks = r.stacks;
  r.tracking = false;
  r.waiting_warp = 0;
  r.next_count = r.next_arrived = 0;
}
}  // namespace

void fault(const char* what) { die(kExitFault, "error", what); }
void unsupported(const char* what) { die(kExitUnsupported, "unsupported", what); }
unsigned long long clock_ticks() {
  return (unsigned long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace emu

