// Host threads that launch kernels at once (as cuda-samples' simpleCallback does with pthreads),
// and a host .cpp file that defines its own umin (it is a CUDA device function name): both must
// build and run, the launches taking turns.
#include <cstdio>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

unsigned host_min(unsigned a, unsigned b);

__global__ void fill(int* out, int value) { out[blockIdx.x * blockDim.x + threadIdx.x] = value + umin(threadIdx.x, 7u); }

int main() {
  const int threads = 4, n = 256;
  int* out;
  cudaMallocManaged(&out, threads * n * sizeof(int));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([=] {
      for (int rep = 0; rep < 20; ++rep) fill<<<n / 64, 64>>>(out + t * n, t * 100);
      cudaDeviceSynchronize();
    });
  for (auto& th : pool) th.join();
  long long sum = 0;
  for (int i = 0; i < threads * n; ++i) sum += out[i];
  printf("sum %lld host_min %u\n", sum, host_min(3, 9));
  return 0;
}
