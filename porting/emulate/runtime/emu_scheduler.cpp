// rocm-port `port emulate`: the fiber scheduler of the CPU runtime.
//
// A launch runs the blocks of the grid one after another on the calling OS thread. Every
// thread of a block is a fiber with its own stack. A fiber runs until it exits, reaches
// __syncthreads, or reaches a warp collective; when no fiber can run, the scheduler first
// completes the warp collectives (per warp, the lanes waiting at the same call site are the
// active lanes), and only when none is pending releases the barrier. Exited lanes, lanes of a
// partial last warp and lanes waiting elsewhere are inactive. Compiled once per warp width.
#include "emu_internal.h"

#include <sys/mman.h>
#include <unistd.h>

namespace emu {
namespace {
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

}  // namespace

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

void init_stacks(Runtime& r) {
  if (r.stack_bytes) return;
  r.page = (size_t)sysconf(_SC_PAGESIZE);
  const char* kb = std::getenv("EMU_STACK_KB");  // deep recursion in a kernel may need more
  size_t want = (kb && std::atol(kb) > 0) ? (size_t)std::atol(kb) * 1024 : 256 * 1024;
  r.stack_bytes = (want + r.page - 1) / r.page * r.page;
}

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
