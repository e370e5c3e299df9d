// rocm-port `port emulate`, part of emu_runtime.h: CUDA graphs, built by stream capture or by
// adding nodes, and replayed.
//
// Work on a stream completes before its call returns here, so a graph is the list of that work,
// kept instead of done: while a stream captures, a kernel launch (its arguments copied, as a
// kernel node keeps its parameters), an asynchronous copy or memset, a host function or a cuBLAS
// call on it is appended to the capturing graph; a stream that waits on an event recorded in a
// capturing stream joins that capture. Nodes run in the order they were added, which respects
// every dependency (a node can only depend on nodes added before it): one of the orders a GPU
// may run the graph in. cudaGraphLaunch runs an instantiated copy of the list (emu_graph.cpp). Kernel nodes
// (a void* kernel and its parameters) are in emu_kernels.h; conditional and memory-allocation
// nodes are refused by the refusal scan; cudaGraphics* (graphics interop) is another feature,
// refused too.
#pragma once
#include "emu_work.h"

enum cudaStreamCaptureMode { cudaStreamCaptureModeGlobal = 0, cudaStreamCaptureModeThreadLocal = 1,
                             cudaStreamCaptureModeRelaxed = 2 };
enum cudaStreamCaptureStatus { cudaStreamCaptureStatusNone = 0, cudaStreamCaptureStatusActive = 1,
                               cudaStreamCaptureStatusInvalidated = 2 };
enum cudaGraphNodeType {
  cudaGraphNodeTypeKernel = 0, cudaGraphNodeTypeMemcpy = 1, cudaGraphNodeTypeMemset = 2, cudaGraphNodeTypeHost = 3,
  cudaGraphNodeTypeGraph = 4, cudaGraphNodeTypeEmpty = 5
};
enum cudaGraphExecUpdateResult { cudaGraphExecUpdateSuccess = 0, cudaGraphExecUpdateError = 1 };
// the graphs themselves live in the runtime object (emu_graph.cpp): their containers stay out of
// the program's translation units (emu_work.h)
struct emu_graph;
struct emu_graph_node;
struct emu_graph_exec;
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
// the graph `s` is capturing into (host threads may capture on their own streams), or null
cudaGraph_t capturing(cudaStream_t s);
cudaGraphNode_t add_node(cudaGraph_t g, cudaGraphNodeType type, Work run);
// append `op` to the graph `s` is capturing into, if it is; true when it was captured
bool capture(cudaStream_t s, cudaGraphNodeType type, const Work& op);
// run `op` now, or capture it
void on_stream(cudaStream_t s, cudaGraphNodeType type, const Work& op);
void capture_event(cudaEvent_t e, cudaStream_t s);
void capture_wait(cudaStream_t s, cudaEvent_t e);
}  // namespace emu

cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode = cudaStreamCaptureModeGlobal);
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t*, const void*, size_t,
                                          cudaStreamCaptureMode = cudaStreamCaptureModeGlobal);
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* out);
cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus* status);
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode*);
cudaError_t cudaGraphCreate(cudaGraph_t* g, unsigned int = 0);
cudaError_t cudaGraphDestroy(cudaGraph_t g);
cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t* nodes, size_t* n);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t n, cudaGraphNodeType* t);
cudaError_t cudaGraphClone(cudaGraph_t* out, cudaGraph_t g);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t g, unsigned long long = 0);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t g, cudaGraphNode_t* err, char* log, size_t n);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t g, unsigned long long flags = 0);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e);
cudaError_t cudaGraphUpload(cudaGraphExec_t, cudaStream_t);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, cudaGraphExecUpdateResultInfo* info);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, cudaGraphNode_t* err, cudaGraphExecUpdateResult* r);
cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, const cudaHostNodeParams* p);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, const cudaMemsetParams* p);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, void* dst,
                                     const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, cudaGraph_t child);
cudaError_t cudaGraphAddDependencies(cudaGraph_t, const cudaGraphNode_t*, const cudaGraphNode_t*, size_t);

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
