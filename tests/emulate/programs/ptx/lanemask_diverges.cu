// A 32-lane assumption in inline PTX: the rank of a lane among the voting lanes is counted from
// %lanemask_lt held in a 32-bit register, and the ballot in 32 bits. At 64 lanes the upper half
// of both masks is lost (as in a 32-bit register on a 64-lane wavefront), so lanes 32-63 of each
// wavefront compute the wrong rank and the compacted output differs.
#include <cstdio>

__global__ void compact(const int* in, int* out, int* count) {
  unsigned t = threadIdx.x, lt, ballot, lane;
  int keep = in[t] % 3 == 0;
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0; vote.sync.ballot.b32 %0, p, -1; }" : "=r"(ballot) : "r"(keep));
  __shared__ int base, warp_bases[4];
  if (t == 0) base = 0;
  __syncthreads();
  if (lane == 0) warp_bases[t / warpSize] = atomicAdd(&base, __popc(ballot));   // warps in any order
  __syncthreads();
  const int warp_base = warp_bases[t / warpSize];
  if (keep) out[warp_base + __popc(ballot & lt)] = in[t];
  __syncthreads();
  if (t == 0) *count = base;
  (void)lane;
}

int main() {
  int *in, *out, *count;
  cudaMallocManaged(&in, 128 * sizeof(int)); cudaMallocManaged(&out, 128 * sizeof(int)); cudaMallocManaged(&count, 4);
  for (int i = 0; i < 128; ++i) { in[i] = i; out[i] = -1; }
  compact<<<1, 128>>>(in, out, count);
  cudaDeviceSynchronize();
  printf("kept %d:", *count);
  for (int i = 0; i < 44; ++i) printf(" %d", out[i]);
  printf("\n");
  return 0;
}
