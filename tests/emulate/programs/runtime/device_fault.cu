// A memory fault in device code: CUDA aborts the grid, the error cudaErrorIllegalAddress (700) is
// sticky (every runtime call returns it until cudaDeviceReset) and the host program goes on. A
// fault in host code, or an emulated thread's stack overflow, still ends the process.
//   device_fault null | wild | read | barrier   a device fault of that kind, then the host goes on
//   device_fault thread                         a null store in a kernel a second host thread launches
//   device_fault host                           a null store in host code after a clean launch
//   device_fault overflow                       a kernel recursing past its stack
#include <cstdio>
#include <cstring>
#include <thread>
#include <cuda_runtime.h>

__global__ void count_then_fault(int* ran, int* target, int bad_block, int bad_thread, int mode) {
  atomicAdd(ran, 1);
  if (blockIdx.x == bad_block && threadIdx.x == bad_thread) {
    if (mode == 0) *target = 42;                                    // null store
    if (mode == 1) *(volatile int*)(0x8000000000000000ull) = 1;     // a wild (non-canonical) pointer
    if (mode == 2) atomicAdd(ran, *(volatile int*)target);          // null load
  }
}

__global__ void barrier_then_fault(int* ran, int* target) {
  __shared__ int seen[128];
  seen[threadIdx.x] = threadIdx.x;
  __syncthreads();  // every thread of the block waits here: the fault leaves the others suspended
  atomicAdd(ran, seen[127 - threadIdx.x] >= 0);
  if (threadIdx.x == 70) *target = 1;
  __syncthreads();
  atomicAdd(ran, 1000);
}

__device__ int deep(volatile char* up, int n) {
  volatile char frame[4096];
  frame[0] = up ? up[0] + 1 : 0;
  return n == 0 ? frame[0] : deep(frame, n - 1) + frame[1 % 4096];
}
__global__ void recurse(int* out, int n) { *out = deep(nullptr, n); }

static void report(const char* what, cudaError_t e) {
  std::printf("%s: %d %s (%s)\n", what, (int)e, cudaGetErrorName(e), cudaGetErrorString(e));
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "null";
  int* ran = nullptr;
  cudaMallocManaged(&ran, sizeof(int));
  *ran = 0;
  if (std::strcmp(mode, "host") == 0) {
    count_then_fault<<<2, 64>>>(ran, ran, -1, -1, 0);
    report("clean launch", cudaDeviceSynchronize());
    std::printf("ran %d\n", *ran);
    std::fflush(stdout);
    volatile int* volatile p = nullptr;
    *p = 1;  // host code: the process ends here, as it would natively
    return 0;
  }
  if (std::strcmp(mode, "overflow") == 0) {
    recurse<<<1, 1>>>(ran, 1 << 20);
    report("after overflow", cudaDeviceSynchronize());
    return 0;
  }
  if (std::strcmp(mode, "thread") == 0) {
    std::thread([ran] {
      count_then_fault<<<4, 64>>>(ran, nullptr, 2, 0, 0);
      report("in the thread", cudaDeviceSynchronize());
    }).join();
    std::printf("threads that ran: %d\n", *ran);
    report("in main", cudaGetLastError());
    return 0;
  }
  if (std::strcmp(mode, "barrier") == 0)
    barrier_then_fault<<<2, 128>>>(ran, nullptr);
  else
    count_then_fault<<<4, 64>>>(ran, nullptr, 1, 5, std::strcmp(mode, "wild") == 0 ? 1 : std::strcmp(mode, "read") == 0 ? 2 : 0);
  std::printf("threads that ran: %d\n", *ran);
  report("cudaGetLastError", cudaGetLastError());
  report("cudaGetLastError again", cudaGetLastError());
  report("cudaDeviceSynchronize", cudaDeviceSynchronize());
  int host = 7;
  report("cudaMemcpy", cudaMemcpy(&host, ran, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("host copy untouched: %d\n", host);
  int* more = nullptr;
  report("cudaMalloc", cudaMalloc(&more, 16));
  count_then_fault<<<1, 32>>>(ran, ran, -1, -1, 0);  // the context is lost: nothing runs
  report("launch after the fault", cudaPeekAtLastError());
  std::printf("threads that ran: %d\n", *ran);
  report("cudaDeviceReset", cudaDeviceReset());
  int* sink = nullptr;
  report("cudaMallocManaged", cudaMallocManaged(&sink, sizeof(int)));
  *ran = 0;
  barrier_then_fault<<<2, 128>>>(ran, sink);  // every thread again, on the stacks the fault left
  report("launch after the reset", cudaDeviceSynchronize());
  std::printf("threads that ran: %d\n", *ran);
  return 0;
}
