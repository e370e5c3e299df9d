// rocm-port `port emulate`, part of emu_runtime.h: CUDA graphs, built by stream capture or by
// adding nodes, and replayed.
//
// Work on a stream completes before its call returns here, so a graph is the list of that work,
// kept instead of done: while a stream captures, a kernel launch (its arguments copied, as a
// kernel node keeps its parameters), an asynchronous copy or memset, a host function or a cuBLAS
// call on it is appended to the capturing graph; a stream that waits on an event recorded in a
// capturing stream joins that capture. Nodes run in the order they were added, which respects
// every dependency (a node can only depend on nodes added before it): one of the orders a GPU
// may run the graph in. cudaGraphLaunch runs an instantiated copy of the list. Kernel nodes
// (a void* kernel and its parameters) are in emu_kernels.h; conditional and memory-allocation
// nodes are refused by the refusal scan; cudaGraphics* (graphics interop) is another feature,
// refused too.
#pragma once
#include <atomic>
// std::function without <functional>, which brings <algorithm>'s names along (libstdc++'s
// <functional> includes bits/stl_algo.h for its searchers): see emu_base.h
#if __has_include(<bits/std_function.h>)
#include <bits/std_function.h>
#else
#include <functional>
#endif
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

enum cudaStreamCaptureMode { cudaStreamCaptureModeGlobal = 0, cudaStreamCaptureModeThreadLocal = 1,
                             cudaStreamCaptureModeRelaxed = 2 };
enum cudaStreamCaptureStatus { cudaStreamCaptureStatusNone = 0, cudaStreamCaptureStatusActive = 1,
                               cudaStreamCaptureStatusInvalidated = 2 };
enum cudaGraphNodeType {
  cudaGraphNodeTypeKernel = 0, cudaGraphNodeTypeMemcpy = 1, cudaGraphNodeTypeMemset = 2, cudaGraphNodeTypeHost = 3,
  cudaGraphNodeTypeGraph = 4, cudaGraphNodeTypeEmpty = 5
};
enum cudaGraphExecUpdateResult { cudaGraphExecUpdateSuccess = 0, cudaGraphExecUpdateError = 1 };
struct emu_graph_node {
  cudaGraphNodeType type;
  std::function<void()> run;
  std::shared_ptr<void> kernel;  // a kernel node's parameters (emu_kernels.h)
};
struct emu_graph { std::vector<std::unique_ptr<emu_graph_node>> nodes; };
struct emu_graph_exec {
  std::vector<std::function<void()>> ops;
  std::unordered_map<const emu_graph_node*, size_t> index;  // a node's place in ops
};
typedef emu_graph* cudaGraph_t;
typedef emu_graph_node* cudaGraphNode_t;
typedef emu_graph_exec* cudaGraphExec_t;
struct cudaGraphExecUpdateResultInfo { cudaGraphExecUpdateResult result; cudaGraphNode_t errorNode, errorFromNode; };
struct cudaHostNodeParams { cudaHostFn_t fn; void* userData; };
struct cudaMemsetParams { void* dst; size_t pitch; unsigned int value, elementSize; size_t width, height; };
#define cudaGraphInstantiateFlagAutoFreeOnLaunch 1
#define cudaGraphInstantiateFlagUpload 2
#define cudaGraphInstantiateFlagDeviceLaunch 4
#define cudaGraphInstantiateFlagUseNodePriority 8

namespace emu {
// which graph each capturing stream appends to (host threads may capture on their own streams)
struct Captures {
  std::atomic<int> active{0};  // streams capturing: a launch outside any capture takes no lock
  std::mutex lock;
  std::unordered_map<cudaStream_t, cudaGraph_t> by_stream;
  std::unordered_map<cudaEvent_t, cudaGraph_t> events;  // recorded in a capturing stream
};
inline Captures captures;

inline cudaGraph_t capturing(cudaStream_t s) {
  if (s == nullptr || captures.active.load(std::memory_order_relaxed) == 0) return nullptr;
  std::lock_guard<std::mutex> g(captures.lock);
  auto it = captures.by_stream.find(s);
  return it == captures.by_stream.end() ? nullptr : it->second;
}
inline cudaGraphNode_t add_node(cudaGraph_t g, cudaGraphNodeType type, std::function<void()> run) {
  g->nodes.push_back(std::unique_ptr<emu_graph_node>(new emu_graph_node{type, std::move(run)}));
  return g->nodes.back().get();
}
// append `op` to the graph `s` is capturing into, if it is; true when it was captured
inline bool capture(cudaStream_t s, cudaGraphNodeType type, const std::function<void()>& op) {
  cudaGraph_t g = capturing(s);
  if (g == nullptr) return false;
  add_node(g, type, op);
  return true;
}
// run `op` now, or capture it
inline void on_stream(cudaStream_t s, cudaGraphNodeType type, const std::function<void()>& op) {
  if (!capture(s, type, op)) op();
}
inline void count_captures() {
  captures.active.store(int(captures.by_stream.size()), std::memory_order_relaxed);
}
inline void capture_event(cudaEvent_t e, cudaStream_t s) {
  cudaGraph_t g = capturing(s);
  std::lock_guard<std::mutex> lock(captures.lock);
  if (g) captures.events[e] = g;
  else captures.events.erase(e);
}
inline void capture_wait(cudaStream_t s, cudaEvent_t e) {
  std::lock_guard<std::mutex> lock(captures.lock);
  auto it = captures.events.find(e);
  if (it != captures.events.end() && s != nullptr) captures.by_stream[s] = it->second;  // s joins the capture
  count_captures();
}
}  // namespace emu

inline cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode = cudaStreamCaptureModeGlobal) {
  if (s == nullptr) return cudaErrorInvalidValue;  // the legacy default stream cannot capture
  std::lock_guard<std::mutex> lock(emu::captures.lock);
  if (emu::captures.by_stream.count(s)) return cudaErrorInvalidValue;
  emu::captures.by_stream[s] = new emu_graph{};
  emu::count_captures();
  return cudaSuccess;
}
inline cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t*, const void*, size_t,
                                                 cudaStreamCaptureMode = cudaStreamCaptureModeGlobal) {
  std::lock_guard<std::mutex> lock(emu::captures.lock);
  emu::captures.by_stream[s] = g;
  emu::count_captures();
  return cudaSuccess;
}
// ends the capture of `s` and of every stream that joined it
inline cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* out) {
  std::lock_guard<std::mutex> lock(emu::captures.lock);
  auto it = emu::captures.by_stream.find(s);
  if (it == emu::captures.by_stream.end()) return cudaErrorInvalidValue;
  cudaGraph_t g = it->second;
  for (auto i = emu::captures.by_stream.begin(); i != emu::captures.by_stream.end();)
    i = i->second == g ? emu::captures.by_stream.erase(i) : std::next(i);
  for (auto i = emu::captures.events.begin(); i != emu::captures.events.end();)
    i = i->second == g ? emu::captures.events.erase(i) : std::next(i);
  emu::count_captures();
  if (out) *out = g;
  return cudaSuccess;
}
inline cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus* status) {
  *status = emu::capturing(s) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}
inline cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode*) { return cudaSuccess; }

inline cudaError_t cudaGraphCreate(cudaGraph_t* g, unsigned int = 0) { *g = new emu_graph{}; return cudaSuccess; }
inline cudaError_t cudaGraphDestroy(cudaGraph_t g) { delete g; return cudaSuccess; }
inline cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t* nodes, size_t* n) {
  if (nodes)
    for (size_t i = 0; i < *n && i < g->nodes.size(); ++i) nodes[i] = g->nodes[i].get();
  else
    *n = g->nodes.size();
  return cudaSuccess;
}
inline cudaError_t cudaGraphNodeGetType(cudaGraphNode_t n, cudaGraphNodeType* t) { *t = n->type; return cudaSuccess; }
inline cudaError_t cudaGraphClone(cudaGraph_t* out, cudaGraph_t g) {
  *out = new emu_graph{};
  for (auto& n : g->nodes) emu::add_node(*out, n->type, n->run);
  return cudaSuccess;
}
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t g, unsigned long long = 0) {
  *exec = new emu_graph_exec{};
  for (auto& n : g->nodes) {
    (*exec)->index[n.get()] = (*exec)->ops.size();
    (*exec)->ops.push_back(n->run);
  }
  return cudaSuccess;
}
// CUDA 11's form, with an error node and a log buffer
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t g, cudaGraphNode_t* err, char* log, size_t n) {
  if (err) *err = nullptr;
  if (log && n) log[0] = '\0';
  return cudaGraphInstantiate(exec, g, 0ULL);
}
inline cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t g, unsigned long long flags = 0) {
  return cudaGraphInstantiate(exec, g, flags);
}
inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e) { delete e; return cudaSuccess; }
inline cudaError_t cudaGraphUpload(cudaGraphExec_t, cudaStream_t) { return cudaSuccess; }
// the executable graph takes the new graph's nodes (their parameters) in full
inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, cudaGraphExecUpdateResultInfo* info) {
  e->ops.clear();
  e->index.clear();
  for (auto& n : g->nodes) {
    e->index[n.get()] = e->ops.size();
    e->ops.push_back(n->run);
  }
  if (info) *info = cudaGraphExecUpdateResultInfo{cudaGraphExecUpdateSuccess, nullptr, nullptr};
  return cudaSuccess;
}
inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, cudaGraphNode_t* err, cudaGraphExecUpdateResult* r) {
  if (err) *err = nullptr;
  if (r) *r = cudaGraphExecUpdateSuccess;
  return cudaGraphExecUpdate(e, g, static_cast<cudaGraphExecUpdateResultInfo*>(nullptr));
}
inline cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s) {
  if (e == nullptr) return cudaErrorInvalidValue;
  auto ops = e->ops;  // launched inside another capture: the child's work, as it is now
  emu::on_stream(s, cudaGraphNodeTypeGraph, [ops] { for (auto& op : ops) op(); });
  return cudaSuccess;
}

// explicit nodes: dependencies are on nodes already added, so the order of addition obeys them
inline cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t) {
  *n = emu::add_node(g, cudaGraphNodeTypeEmpty, [] {});
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, const cudaHostNodeParams* p) {
  cudaHostNodeParams q = *p;
  *n = emu::add_node(g, cudaGraphNodeTypeHost, [q] { q.fn(q.userData); });
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, const cudaMemsetParams* p) {
  cudaMemsetParams q = *p;
  *n = emu::add_node(g, cudaGraphNodeTypeMemset, [q] {
    for (size_t row = 0; row < (q.height ? q.height : 1); ++row)
      for (size_t i = 0; i < q.width; ++i) {
        char* at = static_cast<char*>(q.dst) + row * q.pitch + i * q.elementSize;
        if (q.elementSize == 1) *reinterpret_cast<unsigned char*>(at) = (unsigned char)q.value;
        else if (q.elementSize == 2) *reinterpret_cast<unsigned short*>(at) = (unsigned short)q.value;
        else *reinterpret_cast<unsigned int*>(at) = q.value;
      }
  });
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, void* dst,
                                            const void* src, size_t count, cudaMemcpyKind kind) {
  *n = emu::add_node(g, cudaGraphNodeTypeMemcpy, [=] { cudaMemcpy(dst, src, count, kind); });
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, cudaGraph_t child) {
  std::vector<std::function<void()>> ops;
  for (auto& c : child->nodes) ops.push_back(c->run);
  *n = emu::add_node(g, cudaGraphNodeTypeGraph, [ops] { for (auto& op : ops) op(); });
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddDependencies(cudaGraph_t, const cudaGraphNode_t*, const cudaGraphNode_t*, size_t) { return cudaSuccess; }

#define hipGraph_t cudaGraph_t
#define hipGraphExec_t cudaGraphExec_t
#define hipGraphNode_t cudaGraphNode_t
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamEndCapture cudaStreamEndCapture
#define hipStreamIsCapturing cudaStreamIsCapturing
#define hipStreamCaptureModeGlobal cudaStreamCaptureModeGlobal
#define hipStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define hipStreamCaptureModeRelaxed cudaStreamCaptureModeRelaxed
#define hipGraphCreate cudaGraphCreate
#define hipGraphDestroy cudaGraphDestroy
#define hipGraphInstantiate cudaGraphInstantiate
#define hipGraphInstantiateWithFlags cudaGraphInstantiateWithFlags
#define hipGraphLaunch cudaGraphLaunch
#define hipGraphExecDestroy cudaGraphExecDestroy
#define hipGraphGetNodes cudaGraphGetNodes
#define hipGraphAddHostNode cudaGraphAddHostNode
#define hipGraphAddMemsetNode cudaGraphAddMemsetNode
#define hipGraphAddMemcpyNode1D cudaGraphAddMemcpyNode1D
#define hipGraphAddEmptyNode cudaGraphAddEmptyNode
#define hipGraphAddChildGraphNode cudaGraphAddChildGraphNode
#define hipHostNodeParams cudaHostNodeParams
#define hipMemsetParams cudaMemsetParams
