// rocm-port `port emulate`: what the runtime's translation units share; programs never see it.
//
// The runtime is compiled once per warp width into one relocatable object (porting/emulate/build.py
// links every emu_*.cpp here with `-r`): emu_launch.cpp (launches, the grid loop, fault exits),
// emu_scheduler.cpp (fibers, context switching, the block scheduler, barriers), emu_warp.cpp (warp
// collectives) and emu_host_api.cpp (memory, streams, events, errors, device properties).
#pragma once
#include "emu_runtime.h"

#include <algorithm>
#include <csetjmp>
#include <functional>
#include <vector>

#if defined(__x86_64__) && !defined(EMU_UCONTEXT)
#define EMU_ASM_SWITCH 1
#else
#include <ucontext.h>
#endif

namespace emu {
constexpr int kMaxThreads = 1024;
constexpr int kExitFault = 3;        // a kernel trapped (bad mask, __trap, assert): as a GPU fault
constexpr int kExitUnsupported = 4;  // the program needs something the emulator does not model

// the dynamic __shared__ memory of the running block (`extern __shared__ T x[]` points here)
constexpr size_t kDynamicSharedBytes = 256 * 1024;
extern unsigned char dynamic_shared[kDynamicSharedBytes];

enum State : unsigned char { NEW, READY, AT_BARRIER, AT_NAMED, AT_WARP, DONE };
constexpr int kNamedBarriers = 16;  // PTX's barrier ids 0..15 (bar.sync id, count)

// One emulated thread of the running block. A thread that never waits needs none of this: it
// runs inside a loop over consecutive threads (run_threads) on whatever stack the loop has.
struct Fiber {
#ifdef EMU_ASM_SWITCH
  void* sp = nullptr;  // the saved context while suspended
#else
  ucontext_t uc;
#endif
  uint3 tid{};
  State state = NEW;
  Arrival* arrival = nullptr;
  unsigned barrier_gen = 0;  // the release it waits for at __syncthreads (Runtime::barrier_gen)
  unsigned char named = 0;   // the named barrier it waits at (AT_NAMED), whose gen is barrier_gen
};

// A named barrier of the running block (inline PTX bar.sync/bar.arrive id, count): it releases
// when `count` threads have arrived; the threads that wait at it go on once `gen` moved on.
struct NamedBarrier {
  int arrived = 0, passed = 0;            // the instance now filling
  int last_arrived = 0, last_passed = 0;  // what the last release counted (bar.red)
  unsigned gen = 0;
};

struct Runtime {
  // the launch being run
  RunThreads run = nullptr;
  void* ctx = nullptr;
  int nthreads = 0;
  bool in_kernel = false;
  std::vector<Fiber> fibers = std::vector<Fiber>(kMaxThreads);
  // The running thread's fiber, or one of the markers: &sched while the scheduler runs,
  // &looping while a loop runs threads that have not waited (threadIdx names the thread).
  Fiber* cur = nullptr;
  Fiber sched;
  Fiber looping;
  Fiber loop_start;  // the initial context of a new loop
  Fiber gone;        // where a finished loop's last context goes (never resumed)
  int loop_first = 0;        // the first thread of the running loop
  char* loop_stack = nullptr;  // and its stack
  // false until a thread of the block waits: until then the states in `fibers` are stale and
  // the block is one loop over all its threads
  bool tracking = false;
  // __syncthreads: the arrivals at the barrier now pending, and what the last release counted.
  // A release only moves barrier_gen on: the threads waiting for it are ready from then on.
  int bar_count = 0, bar_arrived = 0;
  int next_count = 0, next_arrived = 0;
  unsigned barrier_gen = 0;
  NamedBarrier named[kNamedBarriers];
  bool named_used = false;  // a thread of the running block arrived at a named barrier
  int waiting_warp = 0;  // threads suspended at a warp collective since the last resolution
  // stacks are reused: a loop that ended hands its stack to the next one
  std::vector<char*> free_stacks;
  std::vector<char*> stacks;  // every stack mapped (the tops), all free again after a launch aborted
  std::vector<char*> floors;  // and the lowest usable byte of each: the guard page lies below it
  size_t stack_bytes = 0;
  size_t page = 0;
  size_t stacks_mapped = 0;
  std::vector<const void*> warned_sites;
  std::vector<const void*> finding_sites;  // call sites a finding was reported at (once each)
  cudaError_t last_error = cudaSuccess;
  // A memory fault in device code (emu_launch.cpp): while `fault_armed`, SIGSEGV/SIGBUS on the
  // launching thread jumps back to the grid loop, which aborts the launch. The error it leaves is
  // sticky, as CUDA's cudaErrorIllegalAddress: every runtime call returns it until cudaDeviceReset.
  sigjmp_buf fault_jump;
  volatile bool fault_armed = false;
  const char* kernel_name = nullptr;  // the running launch's kernel, as its launch spelled it
  cudaError_t sticky = cudaSuccess;
  // the emulated device's clock (emu_host_api.cpp): events read it
  unsigned long long device_ns = 0;
  cudaDeviceProp prop{};
  unsigned device_flags = 0;
};

// one per process: an inline function's static is a single object across translation units
inline Runtime& rt() {
  static Runtime r;
  return r;
}

// ends the process with `code`, naming the running thread when a kernel is running (emu_launch.cpp)
[[noreturn]] void die(int code, const char* kind, const char* what);
[[noreturn]] void faultf(const char* fmt, ...);

// the error a device fault left (cudaSuccess when none), until cudaDeviceReset (emu_launch.cpp)
cudaError_t sticky_error();
void clear_sticky_error();

// true when device code has launched child grids not yet run (emu_launch.cpp)
bool children_pending();

// the block scheduler (emu_scheduler.cpp)
void init_stacks(Runtime& r);
void run_block(Runtime& r);
Fiber& current(Runtime& r);
void suspend(State s);

// the warp collectives (emu_warp.cpp): completes the collectives the lanes of warp w wait at;
// false when none waits
bool resolve_warp(Runtime& r, int w);
}  // namespace emu
