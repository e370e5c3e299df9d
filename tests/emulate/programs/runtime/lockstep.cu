// Lockstep and activity rules of the runtime, selected by argv[1].
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void mask_names_a_lane_elsewhere(int* out) {
  int t = threadIdx.x;
  if (t % 2 == 0) {  // even and odd lanes meet at different calls, each naming every lane
    out[t] = __shfl_sync(0xffffffffu, t, 0);
  } else {
    out[t] = __shfl_sync(0xffffffffu, t, 1) + 100;
  }
}

__global__ void partial_warp_and_exits(int* out) {
  int t = threadIdx.x;           // 40 threads: the last warp at 32 lanes has 8
  if (t % 7 == 6) return;        // exited lanes: never active, never counted by the barrier
  int before = __syncthreads_count(1);
  out[t] = before * 1000 + __popcll((unsigned long long)__activemask());
}

__global__ void reads_exited_lane(int* out) {
  int t = threadIdx.x;
  if (t == 1) return;
  out[t] = __shfl_sync(__activemask(), t * 3, 1);  // lane 1 exited: undefined on a GPU
}

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "";
  int* d;
  cudaMalloc(&d, 64 * sizeof(int));
  cudaMemset(d, 0, 64 * sizeof(int));
  int h[64];
  if (!strcmp(what, "mask")) mask_names_a_lane_elsewhere<<<1, 32>>>(d);
  if (!strcmp(what, "partial")) partial_warp_and_exits<<<1, 40>>>(d);
  if (!strcmp(what, "exited")) reads_exited_lane<<<1, 4>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 40; ++i) printf("%d ", h[i]);
  printf("\n");
  return 0;
}
