// A CUDA graph captured from two streams (forked and joined through events), replayed three
// times, then a graph built from explicit nodes. Captured work must not run at capture time and
// must run, in order, at every replay; -DWARP_BUG makes the captured reduction start its
// shuffles at offset 16, a 32-lane assumption that loses half of each 64-lane wavefront.
#include <cstdio>

__global__ void add(float* v, float x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += x;
}
__global__ void warp_total(const float* v, float* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = i < n ? v[i] : 0.0f;
#ifdef WARP_BUG
  for (int o = 16; o > 0; o /= 2) x += __shfl_down_sync(__activemask(), x, o);
#else
  for (int o = warpSize / 2; o > 0; o /= 2) x += __shfl_down_sync(__activemask(), x, o);
#endif
  if (threadIdx.x % warpSize == 0) atomicAdd(total, x);
}
static int host_calls = 0;
static void count_call(void*) { ++host_calls; }

int main() {
  const int n = 128;
  float *v, *w, *total, h[n], t;
  cudaMalloc(&v, n * sizeof(float));
  cudaMalloc(&w, n * sizeof(float));
  cudaMalloc(&total, sizeof(float));
  cudaMemset(v, 0, n * sizeof(float));
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaEvent_t fork, join;
  cudaEventCreate(&fork);
  cudaEventCreate(&join);

  cudaGraph_t g;
  cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal);
  cudaStreamCaptureStatus st;
  cudaStreamIsCapturing(s1, &st);
  add<<<2, 64, 0, s1>>>(v, 1.0f, n);
  cudaEventRecord(fork, s1);
  cudaStreamWaitEvent(s2, fork, 0);        // s2 joins the capture
  cudaMemcpyAsync(w, v, n * sizeof(float), cudaMemcpyDeviceToDevice, s2);
  add<<<2, 64, 0, s2>>>(w, 0.5f, n);
  cudaEventRecord(join, s2);
  cudaStreamWaitEvent(s1, join, 0);
  cudaMemsetAsync(total, 0, sizeof(float), s1);
  warp_total<<<2, 64, 0, s1>>>(w, total, n);
  cudaLaunchHostFunc(s1, count_call, nullptr);
  cudaStreamEndCapture(s1, &g);
  size_t nodes = 0;
  cudaGraphGetNodes(g, nullptr, &nodes);
  cudaMemcpy(h, v, sizeof h, cudaMemcpyDeviceToHost);
  printf("captured %zu nodes, capturing %d, nothing ran: v[0] %g, host calls %d\n", nodes,
         st == cudaStreamCaptureStatusActive, h[0], host_calls);

  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, g, 0);
  for (int r = 1; r <= 3; ++r) {
    cudaGraphLaunch(exec, s1);
    cudaStreamSynchronize(s1);
    cudaMemcpy(&t, total, sizeof t, cudaMemcpyDeviceToHost);
    cudaMemcpy(h, w, sizeof h, cudaMemcpyDeviceToHost);
    printf("replay %d: w[0] %g total %g host calls %d\n", r, h[0], t, host_calls);
  }

  // explicit nodes: memset, host, 1D copy, and the captured graph as a child
  cudaGraph_t e;
  cudaGraphCreate(&e, 0);
  cudaGraphNode_t set, host, copy, child;
  cudaMemsetParams mp = {};
  mp.dst = v;
  mp.value = 0;
  mp.elementSize = 4;
  mp.width = n;
  mp.height = 1;
  cudaGraphAddMemsetNode(&set, e, nullptr, 0, &mp);
  cudaHostNodeParams hp = {count_call, nullptr};
  cudaGraphAddHostNode(&host, e, &set, 1, &hp);
  cudaGraphAddChildGraphNode(&child, e, &host, 1, g);
  cudaGraphAddMemcpyNode1D(&copy, e, &child, 1, h, w, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaGraphExec_t eexec;
  cudaGraphInstantiate(&eexec, e, 0);
  cudaGraphLaunch(eexec, s1);
  cudaStreamSynchronize(s1);
  cudaMemcpy(&t, total, sizeof t, cudaMemcpyDeviceToHost);
  printf("explicit: w[0] %g w[%d] %g total %g host calls %d\n", h[0], n - 1, h[n - 1], t, host_calls);

  cudaGraphExecDestroy(exec);
  cudaGraphExecDestroy(eexec);
  cudaGraphDestroy(g);
  cudaGraphDestroy(e);
  return 0;
}
