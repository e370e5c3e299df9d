// libcu++ in device code: cuda::atomic_ref and cuda::atomic count multiples of 3 two ways, a warp
// ballot per warp (its first lane by warpSize) and one atomic per thread; the result is held in a
// cuda::std::array. The same at 32 and 64 lanes.
#include <cuda/atomic>
#include <cuda/std/array>
#include <cstdio>
__global__ void count(const int* v, int n, int* total, cuda::atomic<int, cuda::thread_scope_device>* hits) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool pred = i < n && v[i] % 3 == 0;
  unsigned long long b = __ballot_sync(__activemask(), pred);
  if (threadIdx.x % warpSize == 0) cuda::atomic_ref<int, cuda::thread_scope_device>(*total).fetch_add(__popcll(b));
  if (pred) hits->fetch_add(1, cuda::std::memory_order_relaxed);
}
int main() {
  const int n = 1000;
  int *v, *total;
  cuda::atomic<int, cuda::thread_scope_device>* hits;
  cudaMallocManaged(&v, n * sizeof(int));
  cudaMallocManaged(&total, sizeof(int));
  cudaMallocManaged(&hits, sizeof *hits);
  for (int i = 0; i < n; ++i) v[i] = i;
  *total = 0;
  new (hits) cuda::atomic<int, cuda::thread_scope_device>(0);
  count<<<(n + 127) / 128, 128>>>(v, n, total, hits);
  cudaDeviceSynchronize();
  cuda::std::array<int, 2> r{*total, hits->load()};
  printf("ballot count %d, atomic count %d\n", r[0], r[1]);
}
