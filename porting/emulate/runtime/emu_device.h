// rocm-port `port emulate`, part of emu_runtime.h (programs include that umbrella header):
// the fiber scheduler's entry points, launch templates, barriers, fences and warp collectives
// (defined in emu_scheduler.cpp, emu_warp.cpp and emu_launch.cpp).
#pragma once
#include "emu_host_api.h"
#include "emu_sites.h"

// ---- device side: the fiber scheduler's entry points ----------------------------------------
namespace emu {
// a lane mask as the program's API returns it: HIP's is 64 bits at any width, CUDA's 32
#if defined(EMU_HIP)
using lanemask_t = unsigned long long;
#else
using lanemask_t = std::conditional_t<EMU_WARP == 64, unsigned long long, unsigned int>;
#endif
enum Op : int {
  SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR, BALLOT, ANY, ALL, ACTIVEMASK, SYNCWARP,
  MATCH_ANY, MATCH_ALL, RED_ADD, RED_MIN, RED_MAX, RED_AND, RED_OR, RED_XOR, LANE_ID
};
// One lane's arrival at a warp collective; the scheduler fills `out` once every active lane
// of the warp has arrived (the call site is the return address of arrive()).
struct Arrival {
  const char* name;
  int op;
  int synced;                   // a *_sync form: `mask` names the participating lanes
  unsigned long long mask;
  const void* in;               // this lane's operand (it lives on the lane's own stack)
  int size;
  int is_signed;
  int arg;                      // source lane / delta / xor mask
  int width;
  void* out;
  int pred_out;
  const void* site;
  const char* file = nullptr;   // the program's call site (EMU_SITE: emu_sites.h), for emu: site lines
  int line = 0;
};
void arrive(Arrival* a);
extern unsigned char dynamic_shared[];
[[noreturn]] void fault(const char* what);
[[noreturn]] void unsupported(const char* what);
unsigned long long clock_ticks();

struct LaunchConfig {
  dim3 grid, block;
  size_t shmem;
  cudaStream_t stream;
  const char* name = nullptr;  // the kernel as the launch spelled it (port emulate's rewrite), for reports
  LaunchConfig named(const char* kernel) const { LaunchConfig c = *this; c.name = kernel; return c; }
};
EMU_INL LaunchConfig config(dim3 g, dim3 b, size_t sh = 0, cudaStream_t s = nullptr) { return LaunchConfig{g, b, sh, s, nullptr}; }
// Runs threads first, first + 1, ... of a block (linear ids, x fastest) in order on the calling
// stack, each to its end, until `last` or until the one just run waited (it suspended at a barrier
// or a collective, was resumed by the scheduler and has finished since); returns the last thread
// run. The scheduler (emu_scheduler.cpp) gives the threads after it stacks of their own.
using RunThreads = int (*)(void* ctx, int first, int last);
void run_grid(const LaunchConfig& c, RunThreads run, void* ctx);
// Dynamic parallelism: true while the calling OS thread runs a kernel, whose launches are then
// child grids. A child is queued (its arguments copied, as a GPU copies them at the launch) and
// run after the grid that launched it, before that grid's launch returns: one of the orders a
// GPU may run it in, since a parent that does not wait sees its children only once it is done.
bool in_device_code();
void defer_grid(const LaunchConfig& c, RunThreads run, void* ctx, void (*release)(void*));
extern unsigned long long suspensions;  // every suspension of a thread counts one

// The per-block loop is compiled into the program with the kernel inlined: a thread that never
// waits costs its own body plus storing threadIdx. When the kernel makes no call the scheduler
// could suspend in, the compiler keeps `suspensions` in a register for the whole loop.
template <class K> EMU_INL int run_threads(int first, int last, const K& kernel) {
  const unsigned bx = blockDim.x, by = blockDim.y;
  unsigned x = (unsigned)first % bx, y = (unsigned)first / bx % by, z = (unsigned)first / bx / by;
  const unsigned long long before = suspensions;
  for (int t = first;; ++t) {
    threadIdx = uint3{x, y, z};
    kernel();
    if (t + 1 >= last || suspensions != before) return t;
    if (++x == bx) {
      x = 0;
      if (++y == by) { y = 0; ++z; }
    }
  }
}

// A launch: the arguments are evaluated and copied once on the host (as a GPU launch does);
// every thread then calls the kernel with its own copies of them.
template <class F, class... A> void launch(const LaunchConfig& c, F f, A&&... a) {
  struct Ctx { F f; std::tuple<std::decay_t<A>...> args; };
  RunThreads run = [](void* p, int first, int last) {
    Ctx* x = static_cast<Ctx*>(p);
    return run_threads(first, last, [x] { std::apply(x->f, x->args); });
  };
  if (capturing(c.stream)) {  // a kernel node of the graph c.stream captures: it keeps its arguments
    auto kept = std::make_shared<Ctx>(Ctx{f, std::tuple<std::decay_t<A>...>(std::forward<A>(a)...)});
    capture(c.stream, cudaGraphNodeTypeKernel, [c, run, kept] { run_grid(c, run, kept.get()); });
    return;
  }
  if (in_device_code()) {  // a child grid: its arguments outlive this thread's frame
    defer_grid(c, run, new Ctx{f, std::tuple<std::decay_t<A>...>(std::forward<A>(a)...)},
               [](void* p) { delete static_cast<Ctx*>(p); });
    return;
  }
  Ctx ctx{f, std::tuple<std::decay_t<A>...>(std::forward<A>(a)...)};
  run_grid(c, run, &ctx);
}
template <class... P, std::size_t... I>
cudaError_t launch_packed(void (*f)(P...), const LaunchConfig& c, void** args, std::index_sequence<I...>) {
  launch(c, [f](auto&&... a) { f(a...); }, *static_cast<std::decay_t<P>*>(args[I])...);
  return cudaGetLastError();
}

template <class T> EMU_INL T exchange(const char* name, int op, int synced, unsigned long long mask, const T& v, int arg, int width,
                                      const char* file = nullptr, int line = 0) {
  static_assert(std::is_trivially_copyable<T>::value, "warp shuffles move trivially copyable values");
  typename std::aligned_storage<sizeof(T), alignof(T)>::type out;
  Arrival a{name, op, synced, mask, &v, (int)sizeof(T), std::is_signed<T>::value, arg, width, &out, 0, nullptr, file, line};
  arrive(&a);
  return *reinterpret_cast<T*>(&out);
}
EMU_INL unsigned long long vote(const char* name, int op, int synced, unsigned long long mask, int pred,
                                const char* file = nullptr, int line = 0) {
  unsigned long long out = 0;
  Arrival a{name, op, synced, mask, &pred, (int)sizeof(int), 1, 0, EMU_WARP, &out, 0, nullptr, file, line};
  arrive(&a);
  return out;
}
template <class T> EMU_INL T reduce(const char* name, int op, unsigned long long mask, T v, const char* file = nullptr, int line = 0) {
  T out = 0;
  Arrival a{name, op, 1, mask, &v, (int)sizeof(T), std::is_signed<T>::value, 0, EMU_WARP, &out, 0, nullptr, file, line};
  arrive(&a);
  return out;
}
constexpr unsigned long long kFull = EMU_WARP == 64 ? ~0ull : 0xffffffffull;
}  // namespace emu

// ---- barriers, fences -----------------------------------------------------------------------
void __syncthreads();
namespace emu {
// inline PTX's named barriers (bar.sync/arrive/red id, count), emu_scheduler.cpp
int named_barrier(unsigned id, unsigned count, int wait, int pred, int reduce);
}  // namespace emu
int __syncthreads_count(int pred);
int __syncthreads_and(int pred);
int __syncthreads_or(int pred);
EMU_INL void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
EMU_INL void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
EMU_INL void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
EMU_INL void __trap() { emu::fault("__trap() called"); }
EMU_INL void __brkpt() { emu::fault("__brkpt() called"); }
EMU_INL void __nanosleep(unsigned int) {}
EMU_INL long long clock64() { return (long long)emu::clock_ticks(); }
EMU_INL long long __clock64() { return (long long)emu::clock_ticks(); }
EMU_INL long long wall_clock64() { return (long long)emu::clock_ticks(); }
EMU_INL unsigned long long __globaltimer() { return emu::clock_ticks(); }

// ---- warp collectives -----------------------------------------------------------------------
template <class T> EMU_INL T __shfl_sync(unsigned long long m, T v, int src, int w = warpSize, EMU_SITE) { return emu::exchange("__shfl_sync", emu::SHFL_IDX, 1, m, v, src, w, EMU_SITE_ARGS); }
template <class T> EMU_INL T __shfl_up_sync(unsigned long long m, T v, unsigned int d, int w = warpSize, EMU_SITE) { return emu::exchange("__shfl_up_sync", emu::SHFL_UP, 1, m, v, (int)d, w, EMU_SITE_ARGS); }
template <class T> EMU_INL T __shfl_down_sync(unsigned long long m, T v, unsigned int d, int w = warpSize, EMU_SITE) { return emu::exchange("__shfl_down_sync", emu::SHFL_DOWN, 1, m, v, (int)d, w, EMU_SITE_ARGS); }
template <class T> EMU_INL T __shfl_xor_sync(unsigned long long m, T v, int x, int w = warpSize, EMU_SITE) { return emu::exchange("__shfl_xor_sync", emu::SHFL_XOR, 1, m, v, x, w, EMU_SITE_ARGS); }
template <class T> EMU_INL T __shfl(T v, int src, int w = warpSize, EMU_SITE) { return emu::exchange("__shfl", emu::SHFL_IDX, 0, 0, v, src, w, EMU_SITE_ARGS); }
template <class T> EMU_INL T __shfl_up(T v, unsigned int d, int w = warpSize, EMU_SITE) { return emu::exchange("__shfl_up", emu::SHFL_UP, 0, 0, v, (int)d, w, EMU_SITE_ARGS); }
template <class T> EMU_INL T __shfl_down(T v, unsigned int d, int w = warpSize, EMU_SITE) { return emu::exchange("__shfl_down", emu::SHFL_DOWN, 0, 0, v, (int)d, w, EMU_SITE_ARGS); }
template <class T> EMU_INL T __shfl_xor(T v, int x, int w = warpSize, EMU_SITE) { return emu::exchange("__shfl_xor", emu::SHFL_XOR, 0, 0, v, x, w, EMU_SITE_ARGS); }
// CUDA returns a 32-bit mask; HIP returns 64 bits on a 64-lane wavefront.
EMU_INL emu::lanemask_t __ballot_sync(unsigned long long m, int p, EMU_SITE) { return (emu::lanemask_t)emu::vote("__ballot_sync", emu::BALLOT, 1, m, p, EMU_SITE_ARGS); }
EMU_INL emu::lanemask_t __ballot(int p, EMU_SITE) { return (emu::lanemask_t)emu::vote("__ballot", emu::BALLOT, 0, 0, p, EMU_SITE_ARGS); }
EMU_INL int __any_sync(unsigned long long m, int p, EMU_SITE) { return (int)emu::vote("__any_sync", emu::ANY, 1, m, p, EMU_SITE_ARGS); }
EMU_INL int __all_sync(unsigned long long m, int p, EMU_SITE) { return (int)emu::vote("__all_sync", emu::ALL, 1, m, p, EMU_SITE_ARGS); }
EMU_INL int __any(int p, EMU_SITE) { return (int)emu::vote("__any", emu::ANY, 0, 0, p, EMU_SITE_ARGS); }
EMU_INL int __all(int p, EMU_SITE) { return (int)emu::vote("__all", emu::ALL, 0, 0, p, EMU_SITE_ARGS); }
EMU_INL int __uni_sync(unsigned long long m, int p, EMU_SITE) { return __all_sync(m, p, EMU_SITE_ARGS) || !__any_sync(m, p, EMU_SITE_ARGS); }
EMU_INL emu::lanemask_t __activemask(EMU_SITE) { return (emu::lanemask_t)emu::vote("__activemask", emu::ACTIVEMASK, 0, 0, 1, EMU_SITE_ARGS); }
EMU_INL void __syncwarp(unsigned long long m = emu::kFull, EMU_SITE) { emu::vote("__syncwarp", emu::SYNCWARP, 1, m, 1, EMU_SITE_ARGS); }
template <class T> EMU_INL emu::lanemask_t __match_any_sync(unsigned long long m, T v, EMU_SITE) {
  unsigned long long out = 0;
  emu::Arrival a{"__match_any_sync", emu::MATCH_ANY, 1, m, &v, (int)sizeof(T), 0, 0, EMU_WARP, &out, 0, nullptr, EMU_SITE_ARGS};
  emu::arrive(&a);
  return (emu::lanemask_t)out;
}
template <class T> EMU_INL emu::lanemask_t __match_all_sync(unsigned long long m, T v, int* pred, EMU_SITE) {
  unsigned long long out = 0;
  emu::Arrival a{"__match_all_sync", emu::MATCH_ALL, 1, m, &v, (int)sizeof(T), 0, 0, EMU_WARP, &out, 0, nullptr, EMU_SITE_ARGS};
  emu::arrive(&a);
  *pred = a.pred_out;
  return (emu::lanemask_t)out;
}
EMU_INL unsigned __reduce_add_sync(unsigned long long m, unsigned v, EMU_SITE) { return emu::reduce("__reduce_add_sync", emu::RED_ADD, m, v, EMU_SITE_ARGS); }
EMU_INL int __reduce_add_sync(unsigned long long m, int v, EMU_SITE) { return emu::reduce("__reduce_add_sync", emu::RED_ADD, m, v, EMU_SITE_ARGS); }
EMU_INL unsigned __reduce_min_sync(unsigned long long m, unsigned v, EMU_SITE) { return emu::reduce("__reduce_min_sync", emu::RED_MIN, m, v, EMU_SITE_ARGS); }
EMU_INL int __reduce_min_sync(unsigned long long m, int v, EMU_SITE) { return emu::reduce("__reduce_min_sync", emu::RED_MIN, m, v, EMU_SITE_ARGS); }
EMU_INL unsigned __reduce_max_sync(unsigned long long m, unsigned v, EMU_SITE) { return emu::reduce("__reduce_max_sync", emu::RED_MAX, m, v, EMU_SITE_ARGS); }
EMU_INL int __reduce_max_sync(unsigned long long m, int v, EMU_SITE) { return emu::reduce("__reduce_max_sync", emu::RED_MAX, m, v, EMU_SITE_ARGS); }
EMU_INL unsigned __reduce_and_sync(unsigned long long m, unsigned v, EMU_SITE) { return emu::reduce("__reduce_and_sync", emu::RED_AND, m, v, EMU_SITE_ARGS); }
EMU_INL unsigned __reduce_or_sync(unsigned long long m, unsigned v, EMU_SITE) { return emu::reduce("__reduce_or_sync", emu::RED_OR, m, v, EMU_SITE_ARGS); }
EMU_INL unsigned __reduce_xor_sync(unsigned long long m, unsigned v, EMU_SITE) { return emu::reduce("__reduce_xor_sync", emu::RED_XOR, m, v, EMU_SITE_ARGS); }
// HIP's lane queries (no collective needed: the lane follows from the linear thread id).
EMU_INL unsigned __lane_id() {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % EMU_WARP;
}
EMU_INL emu::lanemask_t __lanemask_eq() { return (emu::lanemask_t)(1ull << __lane_id()); }
EMU_INL emu::lanemask_t __lanemask_lt() { return (emu::lanemask_t)((1ull << __lane_id()) - 1); }
EMU_INL emu::lanemask_t __lanemask_le() { return (emu::lanemask_t)(((1ull << __lane_id()) - 1) | (1ull << __lane_id())); }
EMU_INL emu::lanemask_t __lanemask_gt() { return (emu::lanemask_t)(emu::kFull & ~(((1ull << __lane_id()) - 1) | (1ull << __lane_id()))); }
EMU_INL emu::lanemask_t __lanemask_ge() { return (emu::lanemask_t)(emu::kFull & ~((1ull << __lane_id()) - 1)); }
