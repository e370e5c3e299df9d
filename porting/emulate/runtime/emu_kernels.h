// rocm-port `port emulate`, part of emu_runtime.h: kernels named by a void*.
//
// cudaLaunchKernel((void*)k, ...), cudaKernelNodeParams::func and the like pass a kernel as
// an untyped pointer, but calling it on the CPU needs its parameter types. port emulate's
// rewrite (porting.emulate.rewrite) turns every cast of a __global__ function of the program to
// void* into ::emu::kernel_ptr(k), which records, for that address, a launcher made from k's
// own type; the void* forms look it up. A void* no cast recorded (a kernel taken from a library,
// or cast in a way the rewrite does not see) stops the run, named (exit 2).
#pragma once
#include "emu_work.h"

namespace emu {
struct KernelEntry {
  // run now (or capture: emu::launch decides) with the arguments behind args
  void (*launch)(const void* f, const LaunchConfig& c, void** args);
  // copy the arguments now (as a kernel node keeps its parameters) and run later
  Work (*bind)(const void* f, const LaunchConfig& c, void** args);
  // point args[i] into a buffer packed as the driver API's `extra` and cuParamSet* lay it out
  // (each parameter at the next multiple of its alignment); returns the buffer's size
  std::size_t (*point)(char* buffer, void** args);
};
// the registry, in the runtime object (emu_graph.cpp): record_kernel for an address, and
// kernel_entry, which stops the run, named, for an address no cast recorded
void record_kernel(const void* f, const KernelEntry& e);
const KernelEntry& kernel_entry(const void* f);

template <class... P> struct KernelOps {
  using Fn = void (*)(P...);
  static void launch(const void* f, const LaunchConfig& c, void** args) {
    launch_packed(reinterpret_cast<Fn>(const_cast<void*>(f)), c, args, std::index_sequence_for<P...>{});
  }
  template <std::size_t... I>
  static Work bind_at(Fn fn, const LaunchConfig& c, void** args, std::index_sequence<I...>) {
    Pack<std::decay_t<P>...> kept(PackFrom{}, *static_cast<std::decay_t<P>*>(args[I])...);
    return [fn, c, kept]() mutable {
      auto run = [&](auto&... a) { emu::launch(c, [fn](auto&&... x) { fn(x...); }, a...); };
      kept.apply(run);
    };
  }
  static std::size_t point(char* buffer, void** args) {
    std::size_t at = 0, i = 0;
    ((at = (at + alignof(std::decay_t<P>) - 1) / alignof(std::decay_t<P>) * alignof(std::decay_t<P>),
      args[i++] = buffer + at, at += sizeof(std::decay_t<P>)), ...);
    return at;
  }
  static Work bind(const void* f, const LaunchConfig& c, void** args) {
    return bind_at(reinterpret_cast<Fn>(const_cast<void*>(f)), c, args, std::index_sequence_for<P...>{});
  }
  static constexpr KernelEntry entry{&launch, &bind, &point};
};

// a kernel cast to void* (the rewrite's replacement of `(void*)k`)
template <class... P> inline void* kernel_ptr(void (*f)(P...)) {
  record_kernel(reinterpret_cast<const void*>(f), KernelOps<P...>::entry);
  return reinterpret_cast<void*>(f);
}

// the driver API's names (emu_driver.h: cuModuleGetFunction, cuModuleGetGlobal): port emulate's
// rewrite registers each `extern "C"` kernel and file-scope device variable of a program that
// loads modules, with the translation unit it is defined in (porting/emulate/rewrite.py); the
// tables are in the runtime object (emu_graph.cpp)
namespace driver {
struct Named { const void* address; KernelEntry entry; size_t bytes; };
void add(bool kernel, const char* name, const Named& n, const char* unit);
// the definition of `name` in the translation unit whose stem is module_stem, or null
const Named* find(bool kernel, const char* name, const char* module_stem);
template <class... P> inline bool register_kernel(const char* name, void (*f)(P...), const char* unit) {
  add(true, name, Named{reinterpret_cast<const void*>(f), KernelOps<P...>::entry, 0}, unit);
  return true;
}
template <class T> inline bool register_global(const char* name, T* v, size_t bytes, const char* unit) {
  add(false, name, Named{static_cast<const void*>(v), KernelEntry{}, bytes}, unit);
  return true;
}
}  // namespace driver
}  // namespace emu

inline cudaError_t cudaLaunchKernel(const void* f, dim3 g, dim3 b, void** args, size_t sh = 0, cudaStream_t s = nullptr) {
  emu::kernel_entry(f).launch(f, emu::config(g, b, sh, s), args);
  return cudaGetLastError();
}

// ---- graph kernel nodes ---------------------------------------------------------------------
struct cudaKernelNodeParams {
  void* func;
  dim3 gridDim, blockDim;
  unsigned int sharedMemBytes;
  void** kernelParams;
  void** extra;
};
namespace emu {
inline Work kernel_node(const cudaKernelNodeParams* p) {
  return kernel_entry(p->func).bind(p->func, config(p->gridDim, p->blockDim, p->sharedMemBytes, nullptr), p->kernelParams);
}
// the graph's side of a kernel node (emu_graph.cpp)
void set_kernel_node(cudaGraphNode_t n, const cudaKernelNodeParams& p, Work run);
const cudaKernelNodeParams* kernel_node_params(cudaGraphNode_t n);
bool set_exec_node(cudaGraphExec_t e, cudaGraphNode_t n, Work run);
}  // namespace emu
inline cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, const cudaKernelNodeParams* p) {
  if (p == nullptr || p->extra != nullptr) return cudaErrorInvalidValue;  // `extra` packing is not modelled
  *n = emu::add_node(g, cudaGraphNodeTypeKernel, emu::Work{});
  emu::set_kernel_node(*n, *p, emu::kernel_node(p));
  return cudaSuccess;
}
inline cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t n, cudaKernelNodeParams* p) {
  const cudaKernelNodeParams* kept = emu::kernel_node_params(n);
  if (kept == nullptr) return cudaErrorInvalidValue;
  *p = *kept;
  return cudaSuccess;
}
inline cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t n, const cudaKernelNodeParams* p) {
  emu::set_kernel_node(n, *p, emu::kernel_node(p));
  return cudaSuccess;
}
// an instantiated graph keeps its own copy of each node's work: only that copy changes
inline cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t n, const cudaKernelNodeParams* p) {
  return emu::set_exec_node(e, n, emu::kernel_node(p)) ? cudaSuccess : cudaErrorInvalidValue;
}
#define hipKernelNodeParams cudaKernelNodeParams
#define hipGraphAddKernelNode cudaGraphAddKernelNode
#define hipGraphKernelNodeGetParams cudaGraphKernelNodeGetParams
#define hipGraphKernelNodeSetParams cudaGraphKernelNodeSetParams
#define hipGraphExecKernelNodeSetParams cudaGraphExecKernelNodeSetParams
