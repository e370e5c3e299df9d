// Dynamic parallelism: a kernel that launches kernels (as the books' nestedHelloWorld). Each
// level writes its depth into a slot and launches the next level with half the threads and an
// argument computed in its own frame (gone by the time the child runs: the launch copies it).
// "sync" adds a device-side cudaDeviceSynchronize after the launch (removed in CUDA 12), which
// waits for the child: the emulator, which runs children after their parent, refuses it.
#include <cstdio>
#include <cstring>

__global__ void level(int* slots, int threads, int depth, int sync) {
  int local = depth * 10 + 1;  // lives in this thread's frame only
  slots[depth * 64 + threadIdx.x] = local;
  if (threadIdx.x == 0 && threads > 1) {
    level<<<1, threads / 2>>>(slots, threads / 2, depth + 1, sync);
    if (sync) cudaDeviceSynchronize();
  }
}

__global__ void fan(int* counts) {
  atomicAdd(&counts[blockIdx.x], 1);
}

__global__ void parent(int* counts) {
  // every block launches its own child grid: blockIdx.x + 1 blocks of 32 threads
  if (threadIdx.x == 0) fan<<<blockIdx.x + 1, 32>>>(counts);
}

int main(int argc, char** argv) {
  int sync = argc > 1 && std::strcmp(argv[1], "sync") == 0;
  int *slots, *counts;
  cudaMallocManaged(&slots, 8 * 64 * sizeof(int));
  cudaMallocManaged(&counts, 8 * sizeof(int));
  std::memset(slots, 0, 8 * 64 * sizeof(int));
  std::memset(counts, 0, 8 * sizeof(int));
  level<<<1, 64>>>(slots, 64, 0, sync);
  parent<<<4, 64>>>(counts);
  cudaError_t e = cudaDeviceSynchronize();
  for (int d = 0; d < 8; ++d) {
    int n = 0, v = 0;
    for (int t = 0; t < 64; ++t)
      if (slots[d * 64 + t]) { ++n; v = slots[d * 64 + t]; }
    printf("depth %d: %d threads wrote %d\n", d, n, v);
  }
  printf("counts %d %d %d %d %d, %s\n", counts[0], counts[1], counts[2], counts[3], counts[4], cudaGetErrorString(e));
  return 0;
}
