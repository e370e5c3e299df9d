// The order the scheduler runs threads in, and what they see, as kernel printf lines (the
// emulator prints them in execution order). argv[1] selects the case; tests/emulate/
// test_scheduler.py derives each expected sequence from the documented rules.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

// every thread of a 3-D block in a 2-D grid: no thread waits
__global__ void plain() {
  int b = blockIdx.x + gridDim.x * blockIdx.y;
  int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  printf("plain %d %d %u %u %u\n", b, t, threadIdx.x, threadIdx.y, threadIdx.z);
}

// some threads of some blocks wait at a barrier (blocks without a wait between them)
__global__ void some_wait() {
  int t = threadIdx.x;
  printf("a %u %d\n", blockIdx.x, t);
  if (blockIdx.x != 1 && t % 9 == 4) {
    int c = __syncthreads_count(t % 2);
    printf("b %u %d %d\n", blockIdx.x, t, c);
  }
  printf("c %u %d\n", blockIdx.x, t);
}

// exited lanes, a warp collective and a barrier at once: the collectives complete first
__global__ void collective_then_barrier() {
  int t = threadIdx.x;
  if (t % 4 == 3) return;
  printf("a %d\n", t);
  if (t % 4 == 1) {
    unsigned long long m = __activemask();
    printf("w %d %d\n", t, __popcll(m));
  } else if (t % 4 == 2) {
    __syncthreads();
    printf("s %d\n", t);
  }
  printf("e %d\n", t);
}

// the first, a middle and the last thread wait twice; a 2-D block
__global__ void wait_twice() {
  int t = threadIdx.x + blockDim.x * threadIdx.y;
  printf("a %d\n", t);
  if (t == 0 || t == 17 || t == 39) {
    __syncthreads();
    printf("b %d\n", t);
    __syncthreads();
    printf("c %d %u %u\n", t, threadIdx.x, threadIdx.y);
  }
  printf("e %d\n", t);
}

// a fault names the thread it happened in: one that never waited, or one that had
__global__ void trap_in(int after_barrier) {
  if (after_barrier && threadIdx.x == 5) __syncthreads();
  if (blockIdx.x == 2 && threadIdx.x == (after_barrier ? 5 : 37)) __trap();
}

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "plain")) plain<<<dim3(2, 2), dim3(5, 3, 2)>>>();
  if (!strcmp(what, "some_wait")) some_wait<<<3, 70>>>();
  if (!strcmp(what, "collective")) collective_then_barrier<<<1, 100>>>();
  if (!strcmp(what, "twice")) wait_twice<<<1, dim3(20, 2)>>>();
  if (!strcmp(what, "trap_loop")) trap_in<<<3, 64>>>(0);
  if (!strcmp(what, "trap_fiber")) trap_in<<<3, 64>>>(1);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
