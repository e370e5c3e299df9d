// Managed memory's placement hints (cuda-samples' UnifiedMemoryPerf, the unified-memory blog
// posts): cudaMallocManaged with cudaMemAttachHost, a range attached to a stream, advice and
// prefetches, and the properties that say so. Each is accepted (an unknown flag or advice refused); the data is one memory.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void twice(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2;
}

int main() {
  const int n = 1000;
  int* x;
  cudaMallocManaged(&x, n * sizeof(int), cudaMemAttachHost);
  for (int i = 0; i < n; ++i) x[i] = i;
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaError_t attach = cudaStreamAttachMemAsync(s, x);  // length 0: the whole allocation
  cudaError_t global = cudaStreamAttachMemAsync(s, x, 0, cudaMemAttachGlobal);
  cudaError_t bad_flags = cudaStreamAttachMemAsync(s, x, 0, 0x7);
  cudaError_t advise = cudaMemAdvise(x, n * sizeof(int), cudaMemAdviseSetReadMostly, 0);
  cudaError_t prefer = cudaMemAdvise(x, n * sizeof(int), cudaMemAdviseSetPreferredLocation, cudaCpuDeviceId);
  cudaError_t bad_advice = cudaMemAdvise(x, n * sizeof(int), (cudaMemoryAdvise)42, 0);
  cudaMemPrefetchAsync(x, n * sizeof(int), 0, s);
  cudaMemLocation host{}, nowhere{};
  host.type = cudaMemLocationTypeHost;  // CUDA 13's form (cuda-samples' UnifiedMemoryPerf)
  cudaError_t to_host = cudaMemPrefetchAsync(x, n * sizeof(int), host, 0);
  cudaError_t to_nowhere = cudaMemPrefetchAsync(x, n * sizeof(int), nowhere, 0, s);
  cudaError_t advise_at = cudaMemAdvise(x, n * sizeof(int), cudaMemAdviseSetAccessedBy, host);
  twice<<<(n + 255) / 256, 256, 0, s>>>(x, n);
  cudaStreamAttachMemAsync(s, x, 0, cudaMemAttachHost);
  cudaStreamSynchronize(s);
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += x[i];
  float *pinned, *mapped = nullptr;
  cudaMallocHost(&pinned, sizeof(float));
  cudaError_t mapped_ok = cudaHostGetDevicePointer(&mapped, pinned, 0);  // a typed pointer, as nvcc allows
  printf("location %s %s %s mapped %s %d\n", cudaGetErrorName(to_host), cudaGetErrorName(to_nowhere),
         cudaGetErrorName(advise_at), cudaGetErrorName(mapped_ok), (int)(mapped == pinned));
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int uses_host_tables = 0;
  cudaDeviceGetAttribute(&uses_host_tables, cudaDevAttrPageableMemoryAccessUsesHostPageTables, 0);
  printf("pageable %d host_tables %d %d register %d\n", prop.pageableMemoryAccess,
         prop.pageableMemoryAccessUsesHostPageTables, uses_host_tables, prop.hostRegisterSupported);
  printf("sum %ld attach %s %s bad_flags %s advise %s %s bad_advice %s\n", sum, cudaGetErrorName(attach),
         cudaGetErrorName(global), cudaGetErrorName(bad_flags), cudaGetErrorName(advise),
         cudaGetErrorName(prefer), cudaGetErrorName(bad_advice));
  cudaFree(x);
  return 0;
}
