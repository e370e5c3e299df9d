// Teaching code that includes the whole standard library (RussWong's CUDATutorial:
// #include <bits/stdc++.h>) after the emulator's runtime header: libstdc++ 12 writes
// __attribute__((__noinline__)), and the runtime defines __noinline__ as CUDA does.
#include <bits/stdc++.h>
#include <cuda_runtime.h>

__device__ __noinline__ int twice(int v) { return 2 * v; }

__global__ void run(int* out) { out[threadIdx.x] = twice(threadIdx.x); }

int main() {
  auto holder = std::make_shared<std::vector<int>>(8);
  int* out;
  cudaMallocManaged(&out, 8 * sizeof(int));
  run<<<1, 8>>>(out);
  cudaDeviceSynchronize();
  std::copy(out, out + 8, holder->begin());
  printf("%d %d\n", (*holder)[3], std::accumulate(holder->begin(), holder->end(), 0));
  return 0;
}
