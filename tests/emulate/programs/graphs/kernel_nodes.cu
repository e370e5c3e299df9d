// A kernel passed as a void*: cudaLaunchKernel((void*)k, ...) and graph kernel nodes built from
// cudaKernelNodeParams, whose parameters are copied when the node is added; then the executable
// graph's node is given new parameters (cudaGraphExecKernelNodeSetParams). A template kernel
// and one declared in this file before its definition are both named by (void*) casts.
#include <cstdio>

__global__ void scale(float* v, float by, int n);

template <int STEP>
__global__ void __launch_bounds__(128) stride_add(float* v, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * STEP;
  if (i < n) v[i] += 1.0f;
}

int main() {
  const int n = 64;
  float *v, h[n];
  cudaMalloc(&v, n * sizeof(float));
  cudaMemset(v, 0, n * sizeof(float));
  float by = 3.0f;
  int count = n;
  void* add_args[] = {&v, &count};
  cudaLaunchKernel((void*)stride_add<1>, dim3(1), dim3(64), add_args, 0, nullptr);  // v = 1
  void* scale_args[] = {&v, &by, &count};
  cudaLaunchKernel(reinterpret_cast<void*>(scale), dim3(2), dim3(32), scale_args);  // v = 3
  cudaMemcpy(h, v, sizeof h, cudaMemcpyDeviceToHost);
  printf("launched: %g %g\n", h[0], h[n - 1]);

  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaKernelNodeParams p = {};
  p.func = (void*)stride_add<2>;  // even elements + 1
  p.gridDim = dim3(1);
  p.blockDim = dim3(32);
  p.kernelParams = add_args;
  cudaGraphNode_t add_node, scale_node;
  cudaGraphAddKernelNode(&add_node, g, nullptr, 0, &p);
  cudaKernelNodeParams q = {};
  q.func = (void *)&scale;
  q.gridDim = dim3(1);
  q.blockDim = dim3(64);
  q.kernelParams = scale_args;
  cudaGraphAddKernelNode(&scale_node, g, &add_node, 1, &q);
  by = 100.0f;  // the node copied 3.0 when it was added
  cudaGraphExec_t e;
  cudaGraphInstantiate(&e, g, 0);
  cudaGraphLaunch(e, 0);  // v[even] = (3 + 1) * 3 = 12, v[odd] = 9
  cudaMemcpy(h, v, sizeof h, cudaMemcpyDeviceToHost);
  printf("graph: %g %g\n", h[0], h[1]);
  by = 0.5f;
  cudaGraphExecKernelNodeSetParams(e, scale_node, &q);  // now halves
  cudaGraphLaunch(e, 0);  // v[even] = (12 + 1) / 2 = 6.5, v[odd] = 4.5
  cudaKernelNodeParams back;
  cudaGraphKernelNodeGetParams(scale_node, &back);
  cudaMemcpy(h, v, sizeof h, cudaMemcpyDeviceToHost);
  printf("updated: %g %g (node kept its func: %d)\n", h[0], h[1], back.func == (void*)scale);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
  return 0;
}

__global__ void scale(float* v, float by, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= by;
}
