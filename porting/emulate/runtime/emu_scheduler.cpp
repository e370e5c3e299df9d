// rocm-port `port emulate`: the fiber scheduler of the CPU runtime.
//
// A launch runs the blocks of the grid one after another on the calling OS thread. A block starts
// as one loop over its threads (run_threads, compiled into the program with the kernel inlined),
// on one stack: a thread that never waits costs its own body. A thread that waits (__syncthreads,
// a warp collective) becomes a fiber right there, holding that stack, and the threads after it
// continue on a new loop and stack. Fibers switch straight to the next thread that can run, in
// thread order; when none can, the scheduler first completes the warp collectives (per warp, the
// lanes waiting at the same call site are the active lanes), and only when none is pending
// releases the barrier. Exited lanes, lanes of a partial last warp and lanes waiting elsewhere
// are inactive. The order threads run in is the same as when every thread had a fiber of its own
// from the start (EMU_NO_RUNNER=1 does that). Compiled once per warp width.
#include "emu_internal.h"

#include <sys/mman.h>
#include <unistd.h>

namespace emu {
namespace {
// ---- context switching ----------------------------------------------------------------------
#ifdef EMU_ASM_SWITCH
// Saves the callee-saved registers on the current stack, stores the stack pointer in *save and
// continues on `to` (System V x86-64). ucontext's swapcontext costs a signal-mask system call per
// switch; this is 16 instructions. The floating-point control state (MXCSR, the x87 control word)
// is not switched: it is the OS thread's, shared by every emulated thread, as device code has no
// way to change it (a GPU rounds per instruction: __fadd_rz, __float2int_rd, ...), and one
// STMXCSR alone costs more than the rest of the switch (about 20 ns on the benchmark machine).
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
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size emu_switch,.-emu_switch
)");

void context_init(Fiber& f, void (*entry)(), char* stack_top) {
  auto top = reinterpret_cast<uintptr_t>(stack_top) & ~uintptr_t(15);
  auto* sp = reinterpret_cast<uint64_t*>(top);
  *--sp = 0;                                   // entry's return address: it never returns
  *--sp = reinterpret_cast<uint64_t>(entry);   // where emu_switch's `ret` goes
  for (int i = 0; i < 6; ++i) *--sp = 0;       // rbp rbx r12 r13 r14 r15
  f.sp = sp;
}
inline void context_switch(Fiber& from, Fiber& to) { emu_switch(&from.sp, to.sp); }
#else
void context_init(Fiber& f, void (*entry)(), char* stack_top) {
  getcontext(&f.uc);
  f.uc.uc_stack.ss_sp = stack_top - rt().stack_bytes;  // take_stack leaves at least stack_bytes below
  f.uc.uc_stack.ss_size = rt().stack_bytes;
  f.uc.uc_link = nullptr;
  makecontext(&f.uc, entry, 0);
}
inline void context_switch(Fiber& from, Fiber& to) { swapcontext(&from.uc, &to.uc); }
#endif

// Returns the top of a stack. A guard page below each turns an overflow into SIGSEGV instead of
// silent corruption. The tops are staggered by 64-byte lines across a page: a barrier touches
// the top of every waiting thread's stack in turn, and tops at one page offset would all compete
// for the same few cache sets.
char* take_stack(Runtime& r) {
  if (!r.free_stacks.empty()) {
    char* s = r.free_stacks.back();
    r.free_stacks.pop_back();
    return s;
  }
  size_t bytes = r.page + r.stack_bytes + r.page;  // guard, the stack, room for the stagger
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) die(kExitUnsupported, "unsupported", "cannot map a fiber stack");
  mprotect(m, r.page, PROT_NONE);
  size_t stagger = (r.stacks_mapped++ * 64) % r.page;
  char* top = static_cast<char*>(m) + bytes - stagger;
  r.stacks.push_back(top);
  r.floors.push_back(static_cast<char*>(m) + r.page);
  return top;
}

bool runner_enabled() {
  // EMU_NO_RUNNER=1: every loop runs one thread (the scheduler starts each thread on its own);
  // the same semantics, a test of the paths a waiting thread takes
  static const bool on = std::getenv("EMU_NO_RUNNER") == nullptr;
  return on;
}

[[noreturn]] void loop_entry();

// Starts a loop of threads at `first` (not started yet) on a stack of its own, leaving `from`.
void start_loop(Runtime& r, int first, Fiber& from) {
  r.loop_first = first;
  r.loop_stack = take_stack(r);
  context_init(r.loop_start, loop_entry, r.loop_stack);
  r.cur = &r.looping;
  context_switch(from, r.loop_start);
}

// a suspended thread that can go on: its collective completed, or the barrier it waits at released
inline bool ready(const Runtime& r, const Fiber& f) {
  return f.state == READY || (f.state == AT_BARRIER && f.barrier_gen != r.barrier_gen) ||
         (f.state == AT_NAMED && f.barrier_gen != r.named[f.named].gen);
}

// Leaves `from` for the first thread after `after`, in thread order, that can run: a waiting one
// that is ready again, or one not started yet (on a new loop); for the scheduler when none can.
// The order is the scheduler's own pass over the block, with no switch to the scheduler between.
void switch_on(Runtime& r, int after, Fiber& from) {
  for (int u = after + 1; u < r.nthreads; ++u) {
    Fiber& g = r.fibers[u];
    if (ready(r, g)) {
      g.state = READY;
      r.cur = &g;
      threadIdx = g.tid;
      context_switch(from, g);
      return;
    }
    if (g.state == NEW) {
      start_loop(r, u, from);
      return;
    }
  }
  r.cur = &r.sched;
  context_switch(from, r.sched);
}

void mark(Runtime& r, int from, int to, State s) {
  for (int t = from; t < to; ++t) r.fibers[t].state = s;
}

// A loop runs threads first, first + 1, ... on its stack while they finish without waiting. One
// that waits is suspended on this stack like any fiber (the threads after it start on loops of
// their own); once it has finished, the loop ends there. A loop that ends goes on, on the same
// stack, with the next thread when that one has not started yet, else frees its stack.
[[noreturn]] void loop_entry() {
  Runtime& r = rt();
  char* const stack = r.loop_stack;
  for (;;) {
    int first = r.loop_first;
    int last = r.run(r.ctx, first, runner_enabled() ? r.nthreads : first + 1);
    if (r.cur == &r.looping) {  // no thread of this loop waited: first..last ran straight through
      if (!r.tracking) break;   // nor any other thread of the block: it is complete
      mark(r, first, last + 1, DONE);
    } else {                    // thread `last` waited, has been resumed and has finished now
      r.cur->state = DONE;
    }
    int u = last + 1;
    while (u < r.nthreads && r.fibers[u].state != NEW && !ready(r, r.fibers[u])) ++u;
    if (u == r.nthreads || r.fibers[u].state != NEW) {
      r.free_stacks.push_back(stack);  // nothing runs on it after the switch below
      switch_on(r, last, r.gone);
      __builtin_unreachable();
    }
    r.loop_first = u;
    r.loop_stack = stack;
    r.cur = &r.looping;
  }
  r.free_stacks.push_back(stack);
  r.cur = &r.sched;
  context_switch(r.gone, r.sched);
  __builtin_unreachable();
}

// O(1): the threads that waited at the barrier become ready as switch_on reaches them
void release_barrier(Runtime& r) {
  r.bar_count = r.next_count;
  r.bar_arrived = r.next_arrived;
  r.next_count = r.next_arrived = 0;
  ++r.barrier_gen;
}

// The thread a loop is running waits for the first time: from now on it is a fiber of its own,
// on the loop's stack (the loop ends when it has finished). The threads the loop ran before it are done; if it is the first
// thread of the block to wait, every thread after it is still to start.
Fiber& adopt_loop_thread(Runtime& r) {
  int t = (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  if (!r.tracking) {
    r.tracking = true;
    mark(r, t + 1, r.nthreads, NEW);
  }
  mark(r, r.loop_first, t, DONE);
  Fiber& f = r.fibers[t];
  r.cur = &f;
  return f;
}
}  // namespace

unsigned long long suspensions = 0;

Fiber& current(Runtime& r) {
  if (r.cur == &r.looping && r.in_kernel) return adopt_loop_thread(r);
  if (!r.in_kernel || r.cur == nullptr || r.cur == &r.sched) die(kExitFault, "error", "a device intrinsic was called outside a kernel");
  return *r.cur;
}

void suspend(State s) {
  Runtime& r = rt();
  Fiber& f = current(r);
  f.state = s;
  r.waiting_warp += s == AT_WARP;
  ++suspensions;
  switch_on(r, (int)(&f - r.fibers.data()), f);
  threadIdx = f.tid;  // resumed (whoever switched here set r.cur)
}

// No thread can run and none waits at a warp collective: if one waits at a named barrier that
// cannot fill any more, the block is deadlocked (it would hang on a GPU); that is a fault here
void refuse_named_deadlock(Runtime& r) {
  for (int t = 0; t < r.nthreads; ++t) {
    const Fiber& f = r.fibers[t];
    if (f.state == AT_NAMED && !ready(r, f)) {
      const NamedBarrier& n = r.named[f.named];
      r.cur = &r.fibers[t];
      faultf("named barrier %d: %d thread(s) arrived, no other thread of the block can arrive (deadlock)",
             (int)f.named, n.arrived);
    }
  }
}

// Runs one block. A pass runs every thread that can, in thread order (switch_on); when none can,
// the warp collectives complete (per warp, the lanes waiting at one call site are the active
// lanes) and, only if none was pending, the barrier releases; then the next pass.
void run_block(Runtime& r) {
  for (NamedBarrier& n : r.named) n = NamedBarrier{};
  r.named_used = false;
  r.tracking = !runner_enabled();
  if (r.tracking) mark(r, 0, r.nthreads, NEW);
  start_loop(r, 0, r.sched);
  int nwarps = (r.nthreads + EMU_WARP - 1) / EMU_WARP;
  for (;;) {
    if (!r.tracking) return;  // one loop ran the whole block: no thread waited
    bool live = false, runnable = false;
    for (int t = 0; t < r.nthreads && !live; ++t) live = r.fibers[t].state != DONE;
    if (!live) return;
    // a named barrier releases when its count is reached, by a thread that goes on: the threads
    // it released that come before it in this pass run in the next one, before any warp
    // collective completes (its lanes must all have arrived or finished)
    for (int t = 0; t < r.nthreads && r.named_used && !runnable; ++t)
      runnable = r.fibers[t].state == AT_NAMED && ready(r, r.fibers[t]);
    if (runnable) {
      switch_on(r, -1, r.sched);
      continue;
    }
    if (r.waiting_warp > 0) {  // resolving every warp completes every pending collective
      for (int w = 0; w < nwarps; ++w) resolve_warp(r, w);
      r.waiting_warp = 0;
    } else {
      refuse_named_deadlock(r);
      release_barrier(r);  // every live thread waits at __syncthreads
    }
    switch_on(r, -1, r.sched);
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
  current(r).barrier_gen = r.barrier_gen;
  r.next_count += pred != 0;
  r.next_arrived += 1;
  suspend(AT_BARRIER);
  return r.bar_count;
}
}  // namespace

// bar.sync/bar.arrive/bar.red id, count (count 0: every thread of the block). The thread that
// completes the count releases the barrier and goes on; the others that wait suspend until then.
// reduce: 0 the number of arrivals with a true predicate, 1 whether all had it, 2 whether any.
int named_barrier(unsigned id, unsigned count, int wait, int pred, int reduce) {
  Runtime& r = rt();
  Fiber& f = current(r);
  if (id >= (unsigned)kNamedBarriers) faultf("named barrier %u: PTX has barriers 0..%d", id, kNamedBarriers - 1);
  int need = count == 0 ? r.nthreads : (int)count;
  if (need > r.nthreads) faultf("named barrier %u: a count of %d threads in a block of %d", id, need, r.nthreads);
  NamedBarrier& n = r.named[id];
  r.named_used = true;
  n.arrived += 1;
  n.passed += pred != 0;
  unsigned gen = n.gen;
  if (n.arrived == need) {
    n.last_arrived = n.arrived;
    n.last_passed = n.passed;
    n.arrived = n.passed = 0;
    ++n.gen;
  } else if (wait) {
    f.barrier_gen = gen;
    f.named = (unsigned char)id;
    suspend(AT_NAMED);
  }
  if (reduce == 1) return n.last_passed == n.last_arrived;
  if (reduce == 2) return n.last_passed > 0;
  return n.last_passed;
}
}  // namespace emu

void __syncthreads() { emu::barrier(0); }
int __syncthreads_count(int pred) { return emu::barrier(pred); }
int __syncthreads_and(int pred) { return emu::barrier(pred) == emu::rt().bar_arrived; }
int __syncthreads_or(int pred) { return emu::barrier(pred) > 0; }
