// rocm-port `port emulate`: the fiber scheduler and the host API of the CPU runtime.
//
// A launch runs the blocks of the grid one after another on the calling OS thread. Every
// thread of a block is a fiber with its own stack. A fiber runs until it exits, reaches
// __syncthreads, or reaches a warp collective; when no fiber can run, the scheduler first
// completes the warp collectives (per warp, the lanes waiting at the same call site are the
// active lanes), and only when none is pending releases the barrier. Exited lanes, lanes of a
// partial last warp and lanes waiting elsewhere are inactive. Compiled once per warp width.
#include "emu_runtime.h"

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <mutex>
#include <vector>

#if defined(__x86_64__) && !defined(EMU_UCONTEXT)
#define EMU_ASM_SWITCH 1
#else
#include <ucontext.h>
#endif

uint3 threadIdx;
uint3 blockIdx;
dim3 blockDim;
dim3 gridDim;

namespace emu {
alignas(256) unsigned char dynamic_shared[256 * 1024];

namespace {
constexpr int kMaxThreads = 1024;
constexpr int kExitFault = 3;        // a kernel trapped (bad mask, __trap, assert): as a GPU fault
constexpr int kExitUnsupported = 4;  // the program needs something the emulator does not model

enum State : unsigned char { NEW, READY, AT_BARRIER, AT_WARP, DONE };

struct Fiber {
#ifdef EMU_ASM_SWITCH
  void* sp = nullptr;
#else
  ucontext_t uc;
#endif
  char* stack = nullptr;
  uint3 tid{};
  State state = NEW;
  Arrival* arrival = nullptr;
  int bar_pred = 0;
};

struct Runtime {
  // the launch being run
  void (*invoke)(void*) = nullptr;
  void* ctx = nullptr;
  int nthreads = 0;
  bool in_kernel = false;
  std::vector<Fiber> fibers = std::vector<Fiber>(kMaxThreads);
  Fiber* cur = nullptr;
  Fiber sched;
  int bar_count = 0, bar_arrived = 0;
  // the runner (run_on_runner): threads that never wait run one after another on one stack
  char* runner_stack = nullptr;
  int runner_thread = -1;      // the thread on the runner's stack now, -1 when it is free
  bool runner_waited = false;  // that thread suspended: the threads after it have their own fibers
  int runner_last = -1;        // the last thread the runner started (threads before it are done)
  Fiber runner;                // only its stack and initial context are used
  // stacks are reused: a fiber that ran to completion hands its stack to the next one
  std::vector<char*> free_stacks;
  size_t stack_bytes = 0;
  size_t page = 0;
  std::vector<const void*> warned_sites;
  std::vector<const void*> finding_sites;  // call sites a finding was reported at (once each)
  cudaError_t last_error = cudaSuccess;
  cudaDeviceProp prop{};
  unsigned device_flags = 0;
};

Runtime& rt() {
  static Runtime r;
  return r;
}

[[noreturn]] void die(int code, const char* kind, const char* what) {
  std::fflush(stdout);
  Runtime& r = rt();
  if (r.in_kernel && r.cur != nullptr && r.cur != &r.sched) {
    std::fprintf(stderr, "emu: %s: %s [warp %d: block (%u,%u,%u) thread (%u,%u,%u)]\n", kind, what, EMU_WARP,
                 blockIdx.x, blockIdx.y, blockIdx.z, r.cur->tid.x, r.cur->tid.y, r.cur->tid.z);
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

// ---- context switching ----------------------------------------------------------------------
#ifdef EMU_ASM_SWITCH
// Saves the callee-saved registers, MXCSR and the x87 control word on the current stack, stores
// the stack pointer in *save and continues on `to` (System V x86-64). ucontext's swapcontext
// costs a signal-mask system call per switch; this is ~20 instructions.
extern "C" void emu_switch(void** save, void* to);
asm(R"(
  .text
  .p2align 4
  .globl emu_switch
  .hidden emu_switch
  .type emu_switch,@function
emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size emu_switch,.-emu_switch
)");

void context_init(Fiber& f, void (*entry)()) {
  auto top = reinterpret_cast<uintptr_t>(f.stack + rt().stack_bytes) & ~uintptr_t(15);
  auto* sp = reinterpret_cast<uint64_t*>(top);
  *--sp = 0;                                   // entry's return address: it never returns
  *--sp = reinterpret_cast<uint64_t>(entry);   // where emu_switch's `ret` goes
  for (int i = 0; i < 6; ++i) *--sp = 0;       // rbp rbx r12 r13 r14 r15
  --sp;
  uint32_t csr;
  uint16_t cw;
  asm volatile("stmxcsr %0" : "=m"(csr));
  asm volatile("fnstcw %0" : "=m"(cw));
  std::memcpy(sp, &csr, 4);
  std::memcpy(reinterpret_cast<char*>(sp) + 4, &cw, 2);
  f.sp = sp;
}
inline void context_switch(Fiber& from, Fiber& to) { emu_switch(&from.sp, to.sp); }
#else
void context_init(Fiber& f, void (*entry)()) {
  getcontext(&f.uc);
  f.uc.uc_stack.ss_sp = f.stack;
  f.uc.uc_stack.ss_size = rt().stack_bytes;
  f.uc.uc_link = nullptr;
  makecontext(&f.uc, entry, 0);
}
inline void context_switch(Fiber& from, Fiber& to) { swapcontext(&from.uc, &to.uc); }
#endif

char* take_stack(Runtime& r) {
  if (!r.free_stacks.empty()) {
    char* s = r.free_stacks.back();
    r.free_stacks.pop_back();
    return s;
  }
  // a guard page below each stack turns an overflow into SIGSEGV instead of silent corruption
  void* m = mmap(nullptr, r.stack_bytes + r.page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) die(kExitUnsupported, "unsupported", "cannot map a fiber stack");
  mprotect(m, r.page, PROT_NONE);
  return static_cast<char*>(m) + r.page;
}

[[noreturn]] void fiber_entry() {
  Runtime& r = rt();
  r.invoke(r.ctx);
  r.cur->state = DONE;
  context_switch(*r.cur, r.sched);
  __builtin_unreachable();
}

void resume(Runtime& r, Fiber& f) {
  if (f.state == NEW) {
    f.stack = take_stack(r);
    context_init(f, fiber_entry);
  }
  f.state = READY;
  r.cur = &f;
  threadIdx = f.tid;
  context_switch(r.sched, f);
  r.cur = &r.sched;
  if (f.state == DONE && f.stack != nullptr) {
    r.free_stacks.push_back(f.stack);
    f.stack = nullptr;
  }
}

// The fast path for the common kernel, which never waits (no barrier, no warp collective): the
// scheduler would start each thread on a stack of its own and switch to it and back. Instead one
// runner fiber calls the kernel for thread t, t+1, ... in turn on a single stack, the order the
// scheduler itself would run them in. A thread that does wait (at a barrier, a collective) is
// suspended right there, on the runner's stack, like any fiber: the runner then starts no more
// threads (the scheduler gives the rest fibers of their own, as before) and finishes once that
// thread has. So the semantics are the scheduler's; only the switches and stacks are saved.
[[noreturn]] void runner_entry() {
  Runtime& r = rt();
  for (;;) {
    Fiber& f = r.fibers[r.runner_thread];
    r.runner_last = r.runner_thread;
    f.state = READY;
    r.cur = &f;
    threadIdx = f.tid;
    r.invoke(r.ctx);
    f.state = DONE;
    int next = r.runner_thread + 1;
    if (r.runner_waited || next >= r.nthreads || r.fibers[next].state != NEW) break;
    r.runner_thread = next;
  }
  r.runner_thread = -1;
  context_switch(*r.cur, r.sched);
  __builtin_unreachable();
}

bool runner_enabled() {
  static const bool on = std::getenv("EMU_NO_RUNNER") == nullptr;  // bench/: the fibers-only baseline
  return on;
}

// Returns the last thread it started: every thread from t up to it has run, and all but that
// one are done (it may be waiting).
int run_on_runner(Runtime& r, int t) {
  if (r.runner_stack == nullptr) r.runner_stack = take_stack(r);
  r.runner.stack = r.runner_stack;
  context_init(r.runner, runner_entry);
  r.runner_thread = t;
  r.runner_waited = false;
  context_switch(r.sched, r.runner);
  r.cur = &r.sched;
  return r.runner_last;
}

Fiber& current(Runtime& r) {
  if (!r.in_kernel || r.cur == nullptr || r.cur == &r.sched) die(kExitFault, "error", "a device intrinsic was called outside a kernel");
  return *r.cur;
}

void suspend(State s) {
  Runtime& r = rt();
  Fiber* f = &current(r);
  f->state = s;
  if (r.runner_thread >= 0 && f == &r.fibers[r.runner_thread]) r.runner_waited = true;
  context_switch(*f, r.sched);
  threadIdx = f->tid;
}

// ---- warp collectives -----------------------------------------------------------------------
inline uint64_t bit(int lane) { return 1ull << lane; }

void warn_inactive_source(Runtime& r, const Arrival* a, int lane, int src) {
  if (std::find(r.warned_sites.begin(), r.warned_sites.end(), a->site) != r.warned_sites.end()) return;
  r.warned_sites.push_back(a->site);
  std::fprintf(stderr, "emu: warning: %s: lane %d reads lane %d, which is not active at this call; a GPU "
               "returns an undefined value, the emulator the caller's own [warp %d]\n", a->name, lane, src, EMU_WARP);
}

// How a *_sync call whose mask is wrong goes on (port emulate sets these from its options):
//   EMU_MASK_FAULTS=stop (default) | report: a 32-bit mask at 64 lanes that leaves out the caller
//     faults, or is reported once per call site as a finding and widened to both halves
//     (mask | mask << 32: what the 32-lane code meant), so the run's results can still be compared;
//   EMU_SYNC=hardware (default) | strict: a mask naming a lane that waits at another call site is
//     undefined in CUDA but runs on NVIDIA GPUs (independent thread scheduling): reported once
//     per call site and resolved with the lanes that arrived, or a fault under strict.
bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, value) == 0;
}
bool mask_report() { static const bool on = env_is("EMU_MASK_FAULTS", "report"); return on; }
bool sync_strict() { static const bool on = env_is("EMU_SYNC", "strict"); return on; }

void finding(Runtime& r, const Arrival* a, const char* fmt, ...) {
  if (std::find(r.finding_sites.begin(), r.finding_sites.end(), a->site) != r.finding_sites.end()) return;
  r.finding_sites.push_back(a->site);
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "emu: finding: %s [warp %d: block (%u,%u,%u) thread (%u,%u,%u)]\n", buf, EMU_WARP,
               blockIdx.x, blockIdx.y, blockIdx.z, r.cur->tid.x, r.cur->tid.y, r.cur->tid.z);
}

// A 32-bit mask at 64 lanes that leaves out a caller: under EMU_MASK_FAULTS=report, every such
// mask of the group is widened before any lane completes, so all lanes see one consistent group.
void widen_narrow_masks(Runtime& r, int base, const int* lanes, int n) {
  if (EMU_WARP != 64 || !mask_report()) return;
  for (int i = 0; i < n; ++i) {
    Arrival* a = r.fibers[base + lanes[i]].arrival;
    if (!a->synced || (a->mask & bit(lanes[i])) || (a->mask >> 32) != 0) continue;
    r.cur = &r.fibers[base + lanes[i]];
    finding(r, a, "%s: lane %d is not in its mask 0x%llx (a 32-bit mask leaves out lanes 32-63 of a 64-lane "
            "wavefront); continuing with the mask widened to 0x%llx", a->name, lanes[i], a->mask,
            (a->mask & 0xffffffffull) | (a->mask << 32));
    for (int j = 0; j < n; ++j) {
      Arrival* b = r.fibers[base + lanes[j]].arrival;
      if (b->synced && (b->mask >> 32) == 0) b->mask |= b->mask << 32;
    }
    return;
  }
}

void check_mask(Runtime& r, int lane, const Arrival* a, uint64_t active, uint64_t gone) {
  uint64_t m = a->mask & kFull;
  if (!(m & bit(lane))) {
    faultf("%s: lane %d is not in its mask 0x%llx%s", a->name, lane, a->mask,
           (EMU_WARP == 64 && (a->mask >> 32) == 0) ? " (a 32-bit mask leaves out lanes 32-63 of a 64-lane wavefront)" : "");
  }
  uint64_t missing = m & ~active & ~gone;
  if (missing && sync_strict()) {
    faultf("%s: mask 0x%llx names lane %d, which has not exited but does not reach this call "
           "(it waits at another call site or barrier)", a->name, a->mask, __builtin_ctzll(missing));
  }
  if (missing) {
    finding(r, a, "%s: mask 0x%llx names lane %d, which waits at another call site or barrier (undefined in "
            "CUDA; NVIDIA GPUs run it under independent thread scheduling): continuing with the lanes that "
            "arrived", a->name, a->mask, __builtin_ctzll(missing));
  }
}

int shuffle_source(Runtime& r, const Arrival* a, int lane) {
  int w = a->width;
  if (w < 1 || w > EMU_WARP || (w & (w - 1)) != 0) {
    faultf("%s: width %d is not a power of two in [1, %d]", a->name, w, EMU_WARP);
  }
  int src = lane;
  switch (a->op) {  // the index arithmetic of HIP's amd_warp_functions.h (CUDA's is the same)
    case SHFL_IDX: src = (a->arg & (w - 1)) + (lane & ~(w - 1)); break;
    case SHFL_UP: src = lane - a->arg; if (src < (lane & ~(w - 1))) src = lane; break;
    case SHFL_DOWN: src = lane + a->arg; if ((lane & (w - 1)) + a->arg >= w) src = lane; break;
    case SHFL_XOR: src = lane ^ a->arg; if (src >= ((lane + w) & ~(w - 1))) src = lane; break;
    default: break;
  }
  return src;
}

uint32_t reduce32(const Arrival* const* at, uint64_t part, int op, bool is_signed) {
  int64_t acc = 0;
  bool first = true;
  for (int p = 0; p < EMU_WARP; ++p) {
    if (!(part & bit(p))) continue;
    uint32_t u;
    std::memcpy(&u, at[p]->in, 4);
    int64_t v = is_signed ? (int64_t)(int32_t)u : (int64_t)u;
    if (first) { acc = (op == RED_ADD) ? (int64_t)u : v; first = false; continue; }
    switch (op) {
      case RED_ADD: acc = (int64_t)(uint32_t)((uint32_t)acc + u); break;
      case RED_MIN: acc = std::min(acc, v); break;
      case RED_MAX: acc = std::max(acc, v); break;
      case RED_AND: acc = (int64_t)((uint32_t)acc & u); break;
      case RED_OR: acc = (int64_t)((uint32_t)acc | u); break;
      default: acc = (int64_t)((uint32_t)acc ^ u); break;
    }
  }
  return (uint32_t)acc;
}

int pred_of(const Arrival* a) { return *static_cast<const int*>(a->in) != 0; }

void complete(Runtime& r, int base, int lane, Arrival* a, const Arrival* const* at, uint64_t part, uint64_t active) {
  uint64_t out = 0;
  switch (a->op) {
    case SHFL_IDX: case SHFL_UP: case SHFL_DOWN: case SHFL_XOR: {
      int src = shuffle_source(r, a, lane);
      if (src < 0 || src >= EMU_WARP || !(active & bit(src))) {
        warn_inactive_source(r, a, lane, src);
        src = lane;
      }
      std::memcpy(a->out, at[src]->in, a->size);
      return;
    }
    case BALLOT: for (int p = 0; p < EMU_WARP; ++p) if ((part & bit(p)) && pred_of(at[p])) out |= bit(p); break;
    case ANY: for (int p = 0; p < EMU_WARP; ++p) if ((part & bit(p)) && pred_of(at[p])) out = 1; break;
    case ALL: out = 1; for (int p = 0; p < EMU_WARP; ++p) if ((part & bit(p)) && !pred_of(at[p])) out = 0; break;
    case ACTIVEMASK: out = active; break;
    case SYNCWARP: return;
    case MATCH_ANY: case MATCH_ALL: {
      uint64_t same = 0;
      for (int p = 0; p < EMU_WARP; ++p)
        if ((part & bit(p)) && std::memcmp(at[p]->in, a->in, a->size) == 0) same |= bit(p);
      if (a->op == MATCH_ANY) { out = same; break; }
      a->pred_out = same == part;
      out = same == part ? part : 0;
      break;
    }
    default: {
      uint32_t v = reduce32(at, part, a->op, a->is_signed);
      std::memcpy(a->out, &v, 4);
      return;
    }
  }
  std::memcpy(a->out, &out, sizeof out);
  (void)base;
}

void resolve_group(Runtime& r, int base, const int* lanes, int n, uint64_t gone) {
  const Arrival* at[64] = {};
  uint64_t active = 0;
  for (int i = 0; i < n; ++i) {
    at[lanes[i]] = r.fibers[base + lanes[i]].arrival;
    active |= bit(lanes[i]);
  }
  widen_narrow_masks(r, base, lanes, n);
  for (int i = 0; i < n; ++i) {
    Arrival* a = r.fibers[base + lanes[i]].arrival;
    r.cur = &r.fibers[base + lanes[i]];  // a fault names this lane's thread
    if (a->synced) check_mask(r, lanes[i], a, active, gone);
    uint64_t part = a->synced ? (a->mask & kFull & active) : active;
    complete(r, base, lanes[i], a, at, part, active);
  }
  r.cur = &r.sched;
  for (int i = 0; i < n; ++i) r.fibers[base + lanes[i]].state = READY;
}

bool resolve_warp(Runtime& r, int w) {
  int base = w * EMU_WARP;
  uint64_t gone = 0;
  int waiting[64];
  int nw = 0;
  for (int l = 0; l < EMU_WARP; ++l) {
    int t = base + l;
    if (t >= r.nthreads || r.fibers[t].state == DONE) gone |= bit(l);
    else if (r.fibers[t].state == AT_WARP) waiting[nw++] = l;
  }
  if (nw == 0) return false;
  // the lanes waiting at one call site are that collective's active lanes
  bool taken[64] = {};
  int group[64];
  for (int i = 0; i < nw; ++i) {
    if (taken[i]) continue;
    const void* site = r.fibers[base + waiting[i]].arrival->site;
    int n = 0;
    for (int j = i; j < nw; ++j) {
      if (!taken[j] && r.fibers[base + waiting[j]].arrival->site == site) {
        taken[j] = true;
        group[n++] = waiting[j];
      }
    }
    resolve_group(r, base, group, n, gone);
  }
  return true;
}

void release_barrier(Runtime& r) {
  r.bar_count = r.bar_arrived = 0;
  for (int t = 0; t < r.nthreads; ++t) {
    Fiber& f = r.fibers[t];
    if (f.state != AT_BARRIER) continue;
    r.bar_arrived += 1;
    r.bar_count += f.bar_pred;
    f.state = READY;
  }
}

void run_block(Runtime& r) {
  int n = r.nthreads;
  int nwarps = (n + EMU_WARP - 1) / EMU_WARP;
  for (int t = 0; t < n; ++t) r.fibers[t].state = NEW;
  for (;;) {
    int live = 0;
    for (int t = 0; t < n; ++t) {
      Fiber& f = r.fibers[t];
      if (f.state == NEW && r.runner_thread < 0 && runner_enabled()) {
        t = run_on_runner(r, t);  // the threads it ran before t are done: no need to look at them
        live += r.fibers[t].state != DONE;
        continue;
      }
      if (f.state == NEW || f.state == READY) resume(r, f);
      live += f.state != DONE;
    }
    if (live == 0) return;
    bool progressed = false;
    for (int w = 0; w < nwarps; ++w) progressed |= resolve_warp(r, w);
    if (!progressed) release_barrier(r);  // every live thread waits at __syncthreads
  }
}

bool valid_config(const LaunchConfig& c) {
  const dim3& b = c.block;
  const dim3& g = c.grid;
  if (b.x == 0 || b.y == 0 || b.z == 0 || g.x == 0 || g.y == 0 || g.z == 0) return false;
  if (b.x > 1024 || b.y > 1024 || b.z > 64 || (size_t)b.x * b.y * b.z > kMaxThreads) return false;
  return g.y <= 65535 && g.z <= 65535 && g.x <= 2147483647u;
}

void init_stacks(Runtime& r) {
  if (r.stack_bytes) return;
  r.page = (size_t)sysconf(_SC_PAGESIZE);
  const char* kb = std::getenv("EMU_STACK_KB");  // deep recursion in a kernel may need more
  size_t want = (kb && std::atol(kb) > 0) ? (size_t)std::atol(kb) * 1024 : 256 * 1024;
  r.stack_bytes = (want + r.page - 1) / r.page * r.page;
}
}  // namespace

namespace {
thread_local bool t_launching = false;
std::mutex& launch_lock() {
  static std::mutex m;
  return m;
}
}  // namespace

void run_grid(const LaunchConfig& c, void (*invoke)(void*), void* ctx) {
  Runtime& r = rt();
  // Host threads that launch at once (pthreads, OpenMP) take turns: there is one scheduler and
  // one set of thread coordinates. A launch from the OS thread already running a kernel is a
  // launch from device code.
  if (t_launching) unsupported("a kernel launch from device code (dynamic parallelism)");
  std::lock_guard<std::mutex> hold(launch_lock());
  struct Launching {
    Launching() { t_launching = true; }
    ~Launching() { t_launching = false; }
  } launching;
  if (!valid_config(c)) { r.last_error = cudaErrorInvalidConfiguration; return; }
  if (c.shmem > sizeof dynamic_shared) { r.last_error = cudaErrorInvalidValue; return; }
  init_stacks(r);
  r.invoke = invoke;
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
  threadIdx = uint3{0, 0, 0};
  blockIdx = uint3{0, 0, 0};
}

__attribute__((noinline)) void arrive(Arrival* a) {
  a->site = __builtin_return_address(0);  // the call site in the kernel: lanes meet per site
  Runtime& r = rt();
  current(r).arrival = a;
  suspend(AT_WARP);
}

void fault(const char* what) { die(kExitFault, "error", what); }
void unsupported(const char* what) { die(kExitUnsupported, "unsupported", what); }
unsigned long long clock_ticks() {
  return (unsigned long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace emu

namespace emu {
namespace {
// a block-wide barrier; returns how many arriving threads passed a non-zero predicate
int barrier(int pred) {
  Runtime& r = rt();
  current(r).bar_pred = pred != 0;
  suspend(AT_BARRIER);
  return r.bar_count;
}
}  // namespace
}  // namespace emu

void __syncthreads() { emu::barrier(0); }
int __syncthreads_count(int pred) { return emu::barrier(pred); }
int __syncthreads_and(int pred) { return emu::barrier(pred) == emu::rt().bar_arrived; }
int __syncthreads_or(int pred) { return emu::barrier(pred) > 0; }

// ---- host API: device memory is host memory, every call completes before it returns ---------
struct emu_stream { int flags; };
struct emu_event { std::chrono::steady_clock::time_point at; };

namespace emu {
namespace {
cudaError_t set(cudaError_t e) {
  if (e != cudaSuccess) rt().last_error = e;
  return e;
}
cudaError_t host_alloc(void** p, size_t n) {
  if (p == nullptr) return set(cudaErrorInvalidValue);
  *p = nullptr;
  if (n == 0) return cudaSuccess;
  return posix_memalign(p, 256, n) == 0 ? cudaSuccess : set(cudaErrorMemoryAllocation);
}
cudaError_t copy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  if ((unsigned)kind > (unsigned)cudaMemcpyDefault) return set(cudaErrorInvalidMemcpyDirection);
  if (n && (dst == nullptr || src == nullptr)) return set(cudaErrorInvalidValue);
  if (n) std::memmove(dst, src, n);
  return cudaSuccess;
}
const cudaDeviceProp& props() {
  Runtime& r = rt();
  cudaDeviceProp& p = r.prop;
  if (p.warpSize) return p;
  // the same device at both widths except warpSize, so width is the only difference a run sees
  std::snprintf(p.name, sizeof p.name, "rocm-port CPU emulator");
  std::snprintf(p.gcnArchName, sizeof p.gcnArchName, "emulated");
  p.totalGlobalMem = (size_t)16 << 30;
  p.sharedMemPerBlock = 64 * 1024;
  p.sharedMemPerBlockOptin = sizeof dynamic_shared;
  p.sharedMemPerMultiprocessor = p.maxSharedMemoryPerMultiProcessor = sizeof dynamic_shared;
  p.totalConstMem = 64 * 1024;
  p.memPitch = (size_t)1 << 31;
  p.textureAlignment = p.texturePitchAlignment = 256;
  p.regsPerBlock = p.regsPerMultiprocessor = 65536;
  p.warpSize = EMU_WARP;
  p.maxThreadsPerBlock = kMaxThreads;
  p.maxThreadsDim[0] = p.maxThreadsDim[1] = 1024;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 2147483647;
  p.maxGridSize[1] = p.maxGridSize[2] = 65535;
  p.clockRate = p.memoryClockRate = 1000000;
  p.memoryBusWidth = 4096;
  p.major = 8;
  p.minor = 0;
  p.multiProcessorCount = 1;
  p.l2CacheSize = 4 << 20;
  p.maxThreadsPerMultiProcessor = 2048;
  p.maxBlocksPerMultiProcessor = 32;
  p.concurrentKernels = p.deviceOverlap = p.asyncEngineCount = 1;
  p.canMapHostMemory = p.unifiedAddressing = p.managedMemory = 1;
  p.concurrentManagedAccess = p.pageableMemoryAccess = p.directManagedMemAccessFromHost = 1;
  return p;
}
}  // namespace
}  // namespace emu

using emu::set;

cudaError_t cudaMalloc(void** p, size_t n) { return emu::host_alloc(p, n); }
cudaError_t cudaMallocHost(void** p, size_t n) { return emu::host_alloc(p, n); }
cudaError_t cudaHostAlloc(void** p, size_t n, unsigned int) { return emu::host_alloc(p, n); }
cudaError_t cudaMallocManaged(void** p, size_t n, unsigned int) { return emu::host_alloc(p, n); }
cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t) { return emu::host_alloc(p, n); }
cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height) {
  if (pitch == nullptr) return set(cudaErrorInvalidValue);
  *pitch = (width + 255) / 256 * 256;
  return emu::host_alloc(p, *pitch * height);
}
cudaError_t cudaFree(void* p) { std::free(p); return cudaSuccess; }
cudaError_t cudaFreeHost(void* p) { std::free(p); return cudaSuccess; }
cudaError_t cudaFreeAsync(void* p, cudaStream_t) { std::free(p); return cudaSuccess; }
cudaError_t cudaHostRegister(void*, size_t, unsigned int) { return cudaSuccess; }
cudaError_t cudaHostUnregister(void*) { return cudaSuccess; }
cudaError_t cudaHostGetDevicePointer(void** d, void* h, unsigned int) {
  if (d == nullptr) return set(cudaErrorInvalidValue);
  *d = h;
  return cudaSuccess;
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p) {
  if (a == nullptr) return set(cudaErrorInvalidValue);
  a->type = cudaMemoryTypeManaged;
  a->device = 0;
  a->devicePointer = a->hostPointer = const_cast<void*>(p);
  return cudaSuccess;
}
cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind k) { return emu::copy(d, s, n, k); }
cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind k, cudaStream_t) { return emu::copy(d, s, n, k); }
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height, cudaMemcpyKind k) {
  if (width > dpitch || width > spitch) return set(cudaErrorInvalidValue);
  for (size_t row = 0; row < height; ++row) {
    cudaError_t e = emu::copy(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch, width, k);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h, cudaMemcpyKind k, cudaStream_t) {
  return cudaMemcpy2D(dst, dp, src, sp, w, h, k);
}
cudaError_t cudaMemset(void* p, int v, size_t n) {
  if (n && p == nullptr) return set(cudaErrorInvalidValue);
  if (n) std::memset(p, v, n);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t) { return cudaMemset(p, v, n); }
cudaError_t cudaMemset2D(void* p, size_t pitch, int v, size_t width, size_t height) {
  for (size_t row = 0; row < height; ++row) std::memset(static_cast<char*>(p) + row * pitch, v, width);
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (free_bytes) *free_bytes = (size_t)sysconf(_SC_AVPHYS_PAGES) * page;
  if (total_bytes) *total_bytes = (size_t)sysconf(_SC_PHYS_PAGES) * page;
  return cudaSuccess;
}
cudaError_t cudaMemPrefetchAsync(const void*, size_t, int, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
cudaError_t cudaThreadSynchronize() { return cudaSuccess; }
cudaError_t cudaDeviceReset() { emu::rt().last_error = cudaSuccess; return cudaSuccess; }
cudaError_t cudaThreadExit() { return cudaDeviceReset(); }
cudaError_t cudaGetLastError() {
  cudaError_t e = emu::rt().last_error;
  emu::rt().last_error = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError() { return emu::rt().last_error; }
const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidSymbol: return "cudaErrorInvalidSymbol";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchTimeout: return "cudaErrorLaunchTimeout";
    case cudaErrorAssert: return "cudaErrorAssert";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    default: return "cudaErrorUnknown";
  }
}
const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorNotReady: return "device not ready";
    default: return cudaGetErrorName(e);
  }
}
cudaError_t cudaGetDeviceCount(int* n) { if (!n) return set(cudaErrorInvalidValue); *n = 1; return cudaSuccess; }
cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : set(cudaErrorInvalidDevice); }
cudaError_t cudaGetDevice(int* d) { if (!d) return set(cudaErrorInvalidValue); *d = 0; return cudaSuccess; }
cudaError_t cudaSetDeviceFlags(unsigned int f) { emu::rt().device_flags = f; return cudaSuccess; }
cudaError_t cudaGetDeviceFlags(unsigned int* f) { if (!f) return set(cudaErrorInvalidValue); *f = emu::rt().device_flags; return cudaSuccess; }
cudaError_t cudaChooseDevice(int* d, const cudaDeviceProp*) { return cudaGetDevice(d); }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) {
  if (p == nullptr) return set(cudaErrorInvalidValue);
  if (d != 0) return set(cudaErrorInvalidDevice);
  *p = emu::props();
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int d) {
  if (v == nullptr) return set(cudaErrorInvalidValue);
  if (d != 0) return set(cudaErrorInvalidDevice);
  const cudaDeviceProp& p = emu::props();
  switch (a) {
    case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *v = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *v = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *v = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *v = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *v = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *v = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = (int)p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrTotalConstantMemory: *v = (int)p.totalConstMem; break;
    case cudaDevAttrWarpSize: *v = p.warpSize; break;
    case cudaDevAttrMaxRegistersPerBlock: *v = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *v = p.clockRate; break;
    case cudaDevAttrMemoryClockRate: *v = p.memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: *v = p.memoryBusWidth; break;
    case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; break;
    case cudaDevAttrComputeCapabilityMajor: *v = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *v = p.minor; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrL2CacheSize: *v = p.l2CacheSize; break;
    case cudaDevAttrIntegrated: *v = p.integrated; break;
    case cudaDevAttrCooperativeLaunch: case cudaDevAttrCooperativeMultiDeviceLaunch: *v = 0; break;
    case cudaDevAttrComputeMode: *v = cudaComputeModeDefault; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *v = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *v = p.regsPerMultiprocessor; break;
    case cudaDevAttrKernelExecTimeout: case cudaDevAttrEccEnabled: case cudaDevAttrTccDriver:
    case cudaDevAttrPciBusId: case cudaDevAttrPciDeviceId: case cudaDevAttrMaxPersistingL2CacheSize:
      *v = 0;
      break;
    default: *v = 1; break;  // capabilities a CPU process has: managed memory, host atomics, ...
  }
  return cudaSuccess;
}
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }
cudaError_t cudaDriverGetVersion(int* v) { if (!v) return set(cudaErrorInvalidValue); *v = CUDART_VERSION; return cudaSuccess; }
cudaError_t cudaRuntimeGetVersion(int* v) { return cudaDriverGetVersion(v); }
cudaError_t cudaStreamCreate(cudaStream_t* s) { return cudaStreamCreateWithFlags(s, 0); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int flags) {
  if (s == nullptr) return set(cudaErrorInvalidValue);
  *s = new emu_stream{(int)flags};
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned int flags, int) { return cudaStreamCreateWithFlags(s, flags); }
cudaError_t cudaStreamDestroy(cudaStream_t s) { delete s; return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) { return cudaSuccess; }
cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void* data, unsigned int) {
  cb(s, cudaSuccess, data);  // work on a stream is already complete when it is queued
  return cudaSuccess;
}
cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t fn, void* data) { fn(data); return cudaSuccess; }
cudaError_t cudaEventCreate(cudaEvent_t* e) { return cudaEventCreateWithFlags(e, 0); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) {
  if (e == nullptr) return set(cudaErrorInvalidValue);
  *e = new emu_event{std::chrono::steady_clock::now()};
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  if (e == nullptr) return set(cudaErrorInvalidResourceHandle);
  e->at = std::chrono::steady_clock::now();
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  if (ms == nullptr || a == nullptr || b == nullptr) return set(cudaErrorInvalidValue);
  *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return cudaSuccess; }
cudaError_t cudaProfilerStart() { return cudaSuccess; }
cudaError_t cudaProfilerStop() { return cudaSuccess; }
cudaError_t emu_func_attributes(cudaFuncAttributes* a) {
  if (a == nullptr) return set(cudaErrorInvalidValue);
  *a = cudaFuncAttributes{};
  a->maxThreadsPerBlock = 1024;
  a->maxDynamicSharedSizeBytes = (int)sizeof emu::dynamic_shared;
  return cudaSuccess;
}
