// rocm-port `port emulate`: CUDA graphs (emu_graph.h) and the registry of kernels named by a
// void* or by name (emu_kernels.h), kept in the runtime object so that their containers (and the
// standard names they declare) stay out of the program's translation units (emu_work.h).
#include "emu_internal.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

struct emu_graph_node {
  cudaGraphNodeType type;
  emu::Work run;
  bool has_kernel = false;
  cudaKernelNodeParams kernel{};  // a kernel node's parameters (emu_kernels.h)
};
struct emu_graph { std::vector<std::unique_ptr<emu_graph_node>> nodes; };
struct emu_graph_exec {
  std::vector<emu::Work> ops;
  std::unordered_map<const emu_graph_node*, size_t> index;  // a node's place in ops
};

namespace emu {
namespace {
// which graph each capturing stream appends to (host threads may capture on their own streams)
struct Captures {
  std::atomic<int> active{0};  // streams capturing: a launch outside any capture takes no lock
  std::mutex lock;
  std::unordered_map<cudaStream_t, cudaGraph_t> by_stream;
  std::unordered_map<cudaEvent_t, cudaGraph_t> events;  // recorded in a capturing stream
};
Captures& captures() {
  static Captures c;
  return c;
}
void count_captures() {
  captures().active.store(int(captures().by_stream.size()), std::memory_order_relaxed);
}
// the work of a graph's nodes as they are now, run in order (a child graph, a launch captured)
Work run_all(std::vector<Work> ops) {
  return [ops] { for (const Work& op : ops) op(); };
}
void instantiate(emu_graph_exec* e, cudaGraph_t g) {
  e->ops.clear();
  e->index.clear();
  for (auto& n : g->nodes) {
    e->index[n.get()] = e->ops.size();
    e->ops.push_back(n->run);
  }
}
}  // namespace

cudaGraph_t capturing(cudaStream_t s) {
  if (s == nullptr || captures().active.load(std::memory_order_relaxed) == 0) return nullptr;
  std::lock_guard<std::mutex> g(captures().lock);
  auto it = captures().by_stream.find(s);
  return it == captures().by_stream.end() ? nullptr : it->second;
}
cudaGraphNode_t add_node(cudaGraph_t g, cudaGraphNodeType type, Work run) {
  g->nodes.push_back(std::unique_ptr<emu_graph_node>(new emu_graph_node{type, std::move(run)}));
  return g->nodes.back().get();
}
bool capture(cudaStream_t s, cudaGraphNodeType type, const Work& op) {
  cudaGraph_t g = capturing(s);
  if (g == nullptr) return false;
  add_node(g, type, op);
  return true;
}
void on_stream(cudaStream_t s, cudaGraphNodeType type, const Work& op) {
  if (!capture(s, type, op)) op();
}
void capture_event(cudaEvent_t e, cudaStream_t s) {
  cudaGraph_t g = capturing(s);
  std::lock_guard<std::mutex> lock(captures().lock);
  if (g) captures().events[e] = g;
  else captures().events.erase(e);
}
void capture_wait(cudaStream_t s, cudaEvent_t e) {
  std::lock_guard<std::mutex> lock(captures().lock);
  auto it = captures().events.find(e);
  if (it != captures().events.end() && s != nullptr) captures().by_stream[s] = it->second;  // s joins the capture
  count_captures();
}

// ---- kernel nodes (emu_kernels.h) -------------------------------------------------------------
void set_kernel_node(cudaGraphNode_t n, const cudaKernelNodeParams& p, Work run) {
  n->run = std::move(run);
  n->kernel = p;
  n->has_kernel = true;
}
const cudaKernelNodeParams* kernel_node_params(cudaGraphNode_t n) { return n->has_kernel ? &n->kernel : nullptr; }
bool set_exec_node(cudaGraphExec_t e, cudaGraphNode_t n, Work run) {
  auto at = e->index.find(n);
  if (at == e->index.end()) return false;
  e->ops[at->second] = std::move(run);
  return true;
}

// ---- kernels named by a void* or by name (emu_kernels.h) ---------------------------------------
namespace {
struct KernelRegistry {
  std::mutex lock;
  std::unordered_map<const void*, KernelEntry> by_address;
};
KernelRegistry& registry() {
  static KernelRegistry r;
  return r;
}
}  // namespace

void record_kernel(const void* f, const KernelEntry& e) {
  std::lock_guard<std::mutex> g(registry().lock);
  registry().by_address[f] = e;
}
const KernelEntry& kernel_entry(const void* f) {
  std::lock_guard<std::mutex> g(registry().lock);
  auto it = registry().by_address.find(f);
  if (it == registry().by_address.end())
    unsupported("a kernel passed as a void* that no (void*) cast of a __global__ function of the program named");
  return it->second;
}

namespace driver {
namespace {
struct Defined {
  Named named;
  std::vector<std::string> units;  // the stems of the translation units defining it
};
std::unordered_map<std::string, Defined>& table(bool kernel) {
  static std::unordered_map<std::string, Defined> kernels, globals;
  return kernel ? kernels : globals;
}
// the stem of a translation unit's path: the module a definition belongs to
std::string unit_stem(const char* path) {
  std::string p(path);
  size_t slash = p.find_last_of('/');
  p = slash == std::string::npos ? p : p.substr(slash + 1);
  size_t dot = p.rfind('.');
  return dot == std::string::npos ? p : p.substr(0, dot);
}
}  // namespace

void add(bool kernel, const char* name, const Named& n, const char* unit) {
  auto& e = table(kernel).emplace(name, Defined{n, {}}).first->second;
  e.units.push_back(unit_stem(unit));
}
const Named* find(bool kernel, const char* name, const char* module_stem) {
  auto it = table(kernel).find(name ? name : "");
  if (it == table(kernel).end()) return nullptr;
  for (const auto& u : it->second.units)
    if (u == module_stem) return &it->second.named;
  return nullptr;
}
}  // namespace driver
}  // namespace emu

// ---- the graph API ---------------------------------------------------------------------------
cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) {
  if (s == nullptr) return cudaErrorInvalidValue;  // the legacy default stream cannot capture
  std::lock_guard<std::mutex> lock(emu::captures().lock);
  if (emu::captures().by_stream.count(s)) return cudaErrorInvalidValue;
  emu::captures().by_stream[s] = new emu_graph{};
  emu::count_captures();
  return cudaSuccess;
}
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t*, const void*, size_t,
                                          cudaStreamCaptureMode) {
  std::lock_guard<std::mutex> lock(emu::captures().lock);
  emu::captures().by_stream[s] = g;
  emu::count_captures();
  return cudaSuccess;
}
// ends the capture of `s` and of every stream that joined it
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* out) {
  emu::Captures& c = emu::captures();
  std::lock_guard<std::mutex> lock(c.lock);
  auto it = c.by_stream.find(s);
  if (it == c.by_stream.end()) return cudaErrorInvalidValue;
  cudaGraph_t g = it->second;
  for (auto i = c.by_stream.begin(); i != c.by_stream.end();)
    i = i->second == g ? c.by_stream.erase(i) : std::next(i);
  for (auto i = c.events.begin(); i != c.events.end();)
    i = i->second == g ? c.events.erase(i) : std::next(i);
  emu::count_captures();
  if (out) *out = g;
  return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus* status) {
  *status = emu::capturing(s) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode*) { return cudaSuccess; }

cudaError_t cudaGraphCreate(cudaGraph_t* g, unsigned int) { *g = new emu_graph{}; return cudaSuccess; }
cudaError_t cudaGraphDestroy(cudaGraph_t g) { delete g; return cudaSuccess; }
cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t* nodes, size_t* n) {
  if (nodes)
    for (size_t i = 0; i < *n && i < g->nodes.size(); ++i) nodes[i] = g->nodes[i].get();
  else
    *n = g->nodes.size();
  return cudaSuccess;
}
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t n, cudaGraphNodeType* t) { *t = n->type; return cudaSuccess; }
cudaError_t cudaGraphClone(cudaGraph_t* out, cudaGraph_t g) {
  *out = new emu_graph{};
  for (auto& n : g->nodes) emu::add_node(*out, n->type, n->run);
  return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t g, unsigned long long) {
  *exec = new emu_graph_exec{};
  emu::instantiate(*exec, g);
  return cudaSuccess;
}
// CUDA 11's form, with an error node and a log buffer
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t g, cudaGraphNode_t* err, char* log, size_t n) {
  if (err) *err = nullptr;
  if (log && n) log[0] = '\0';
  return cudaGraphInstantiate(exec, g, 0ULL);
}
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t g, unsigned long long flags) {
  return cudaGraphInstantiate(exec, g, flags);
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e) { delete e; return cudaSuccess; }
cudaError_t cudaGraphUpload(cudaGraphExec_t, cudaStream_t) { return cudaSuccess; }
// the executable graph takes the new graph's nodes (their parameters) in full
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, cudaGraphExecUpdateResultInfo* info) {
  emu::instantiate(e, g);
  if (info) *info = cudaGraphExecUpdateResultInfo{cudaGraphExecUpdateSuccess, nullptr, nullptr};
  return cudaSuccess;
}
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, cudaGraphNode_t* err, cudaGraphExecUpdateResult* r) {
  if (err) *err = nullptr;
  if (r) *r = cudaGraphExecUpdateSuccess;
  return cudaGraphExecUpdate(e, g, static_cast<cudaGraphExecUpdateResultInfo*>(nullptr));
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s) {
  if (e == nullptr) return cudaErrorInvalidValue;
  // launched inside another capture: the child's work, as it is now
  emu::on_stream(s, cudaGraphNodeTypeGraph, emu::run_all(e->ops));
  return cudaSuccess;
}

// explicit nodes: dependencies are on nodes already added, so the order of addition obeys them
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t) {
  *n = emu::add_node(g, cudaGraphNodeTypeEmpty, [] {});
  return cudaSuccess;
}
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, const cudaHostNodeParams* p) {
  cudaHostNodeParams q = *p;
  *n = emu::add_node(g, cudaGraphNodeTypeHost, [q] { q.fn(q.userData); });
  return cudaSuccess;
}
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, const cudaMemsetParams* p) {
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
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, void* dst,
                                     const void* src, size_t count, cudaMemcpyKind kind) {
  *n = emu::add_node(g, cudaGraphNodeTypeMemcpy, [=] { cudaMemcpy(dst, src, count, kind); });
  return cudaSuccess;
}
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, cudaGraph_t child) {
  std::vector<emu::Work> ops;
  for (auto& c : child->nodes) ops.push_back(c->run);
  *n = emu::add_node(g, cudaGraphNodeTypeGraph, emu::run_all(std::move(ops)));
  return cudaSuccess;
}
cudaError_t cudaGraphAddDependencies(cudaGraph_t, const cudaGraphNode_t*, const cudaGraphNode_t*, size_t) { return cudaSuccess; }
