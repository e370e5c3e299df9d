// rocm-port `port emulate`, part of emu_runtime.h: kernels named by a void*.
//
// cudaLaunchKernel((void*)k, ...), cudaKernelNodeParams::func and the like pass a kernel as
// an untyped pointer, but calling it on the CPU needs its parameter types. port emulate's
// rewrite (porting.emulate.rewrite) turns every cast of a __global__ function of the program to
// void* into ::emu::kernel_ptr(k), which records, for that address, a launcher made from k's
// own type; the void* forms look it up. A void* no cast recorded (a kernel taken from a library,
// or cast in a way the rewrite does not see) stops the run, named (exit 2).
#pragma once
// std::function without <functional>, which brings <algorithm>'s names along (libstdc++'s
// <functional> includes bits/stl_algo.h for its searchers): see emu_base.h
#if __has_include(<bits/std_function.h>)
#include <bits/std_function.h>
#else
#include <functional>
#endif
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>
#include <unordered_map>

namespace emu {
struct KernelEntry {
  // run now (or capture: emu::launch decides) with the arguments behind args
  void (*launch)(const void* f, const LaunchConfig& c, void** args);
  // copy the arguments now (as a kernel node keeps its parameters) and run later
  std::function<void()> (*bind)(const void* f, const LaunchConfig& c, void** args);
  // point args[i] into a buffer packed as the driver API's `extra` and cuParamSet* lay it out
  // (each parameter at the next multiple of its alignment); returns the buffer's size
  std::size_t (*point)(char* buffer, void** args);
};
struct KernelRegistry {
  std::mutex lock;
  std::unordered_map<const void*, KernelEntry> by_address;
};
inline KernelRegistry kernel_registry;

template <class... P> struct KernelOps {
  using Fn = void (*)(P...);
  static void launch(const void* f, const LaunchConfig& c, void** args) {
    launch_packed(reinterpret_cast<Fn>(const_cast<void*>(f)), c, args, std::index_sequence_for<P...>{});
  }
  template <std::size_t... I>
  static std::function<void()> bind_at(Fn fn, const LaunchConfig& c, void** args, std::index_sequence<I...>) {
    auto kept = std::make_shared<std::tuple<std::decay_t<P>...>>(*static_cast<std::decay_t<P>*>(args[I])...);
    return [fn, c, kept] { std::apply([&](auto&... a) { emu::launch(c, [fn](auto&&... x) { fn(x...); }, a...); }, *kept); };
  }
  static std::size_t point(char* buffer, void** args) {
    std::size_t at = 0, i = 0;
    ((at = (at + alignof(std::decay_t<P>) - 1) / alignof(std::decay_t<P>) * alignof(std::decay_t<P>),
      args[i++] = buffer + at, at += sizeof(std::decay_t<P>)), ...);
    return at;
  }
  static std::function<void()> bind(const void* f, const LaunchConfig& c, void** args) {
    return bind_at(reinterpret_cast<Fn>(const_cast<void*>(f)), c, args, std::index_sequence_for<P...>{});
  }
};

// a kernel cast to void* (the rewrite's replacement of `(void*)k`)
template <class... P> inline void* kernel_ptr(void (*f)(P...)) {
  std::lock_guard<std::mutex> g(kernel_registry.lock);
  kernel_registry.by_address[reinterpret_cast<const void*>(f)] = KernelEntry{&KernelOps<P...>::launch, &KernelOps<P...>::bind, &KernelOps<P...>::point};
  return reinterpret_cast<void*>(f);
}
inline const KernelEntry& kernel_entry(const void* f) {
  std::lock_guard<std::mutex> g(kernel_registry.lock);
  auto it = kernel_registry.by_address.find(f);
  if (it == kernel_registry.by_address.end())
    emu::unsupported("a kernel passed as a void* that no (void*) cast of a __global__ function of the program named");
  return it->second;
}

// the driver API's names (emu_driver.h: cuModuleGetFunction, cuModuleGetGlobal): port emulate's
// rewrite registers each `extern "C"` kernel and file-scope device variable of a program that
// loads modules, with the translation unit it is defined in (porting/emulate/rewrite.py)
namespace driver {
struct Named { const void* address; KernelEntry entry; size_t bytes; std::vector<std::string> units; };
inline std::unordered_map<std::string, Named>& kernels() { static std::unordered_map<std::string, Named> m; return m; }
inline std::unordered_map<std::string, Named>& globals() { static std::unordered_map<std::string, Named> m; return m; }
// the stem of a translation unit's path: the module a definition belongs to
inline std::string unit_stem(const char* path) {
  std::string p(path);
  size_t slash = p.find_last_of('/');
  p = slash == std::string::npos ? p : p.substr(slash + 1);
  size_t dot = p.rfind('.');
  return dot == std::string::npos ? p : p.substr(0, dot);
}
inline void add(std::unordered_map<std::string, Named>& m, const char* name, Named n, const char* unit) {
  auto& e = m.emplace(name, n).first->second;
  e.units.push_back(unit_stem(unit));
}
template <class... P> inline bool register_kernel(const char* name, void (*f)(P...), const char* unit) {
  add(kernels(), name, Named{reinterpret_cast<const void*>(f), KernelEntry{&KernelOps<P...>::launch, &KernelOps<P...>::bind, &KernelOps<P...>::point}, 0, {}}, unit);
  return true;
}
template <class T> inline bool register_global(const char* name, T* v, size_t bytes, const char* unit) {
  add(globals(), name, Named{static_cast<const void*>(v), KernelEntry{}, bytes, {}}, unit);
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
inline std::function<void()> kernel_node(const cudaKernelNodeParams* p) {
  return kernel_entry(p->func).bind(p->func, config(p->gridDim, p->blockDim, p->sharedMemBytes, nullptr), p->kernelParams);
}
}  // namespace emu
inline cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, const cudaKernelNodeParams* p) {
  if (p == nullptr || p->extra != nullptr) return cudaErrorInvalidValue;  // `extra` packing is not modelled
  *n = emu::add_node(g, cudaGraphNodeTypeKernel, emu::kernel_node(p));
  (*n)->kernel = std::make_shared<cudaKernelNodeParams>(*p);
  return cudaSuccess;
}
inline cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t n, cudaKernelNodeParams* p) {
  if (!n->kernel) return cudaErrorInvalidValue;
  *p = *std::static_pointer_cast<cudaKernelNodeParams>(n->kernel);
  return cudaSuccess;
}
inline cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t n, const cudaKernelNodeParams* p) {
  n->run = emu::kernel_node(p);
  n->kernel = std::make_shared<cudaKernelNodeParams>(*p);
  return cudaSuccess;
}
// an instantiated graph keeps its own copy of each node's work: only that copy changes
inline cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t n, const cudaKernelNodeParams* p) {
  auto at = e->index.find(n);
  if (at == e->index.end()) return cudaErrorInvalidValue;
  e->ops[at->second] = emu::kernel_node(p);
  return cudaSuccess;
}
#define hipKernelNodeParams cudaKernelNodeParams
#define hipGraphAddKernelNode cudaGraphAddKernelNode
#define hipGraphKernelNodeGetParams cudaGraphKernelNodeGetParams
#define hipGraphKernelNodeSetParams cudaGraphKernelNodeSetParams
#define hipGraphExecKernelNodeSetParams cudaGraphExecKernelNodeSetParams
