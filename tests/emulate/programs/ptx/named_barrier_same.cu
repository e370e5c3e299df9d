// Warp specialisation with named barriers (inline PTX bar.sync / bar.arrive / bar.red /
// barrier.sync with thread counts): threads 0-63 produce a tile into shared memory, threads
// 64-127 consume it; barrier 1 says "tile ready", barrier 2 "tile consumed". The consumers'
// reduction follows warpSize and __activemask, so it is right at any width.
#include <cstdio>

__device__ unsigned count_positive(int x) {
  unsigned c;
  asm volatile("{\n\t.reg .pred p;\n\tsetp.gt.s32 p, %1, 0;\n\tbar.red.popc.u32 %0, 3, p;\n\t}" : "=r"(c) : "r"(x));
  return c;
}

__global__ void pipeline(const int* in, int* out, unsigned* positives, int n) {
  __shared__ int tile[64];
  int t = threadIdx.x;
  for (int base = 0; base < n; base += 64) {
    if (t < 64) {
      tile[t] = in[base + t] * 2;
      asm volatile("bar.arrive 1, 128;");
      asm volatile("bar.sync 2, 128;");
    } else {
      asm volatile("bar.sync 1, 128;");
      int v = tile[t - 64];
      for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(__activemask(), v, o);
      if (t % warpSize == 0) atomicAdd(out, v);
      asm volatile("bar.arrive 2, 128;");
    }
  }
  unsigned c = count_positive(in[t] - 60);  // every thread of the block, barrier 3 with no count
  if (t == 0) *positives = c;
  asm volatile("barrier.sync 4, 128;");
}

int main() {
  const int n = 64 * 8;
  int *in, *out;
  unsigned* positives;
  cudaMallocManaged(&in, n * sizeof(int));
  cudaMallocManaged(&out, sizeof(int));
  cudaMallocManaged(&positives, sizeof(unsigned));
  for (int i = 0; i < n; ++i) in[i] = i % 100;
  *out = 0;
  pipeline<<<1, 128>>>(in, out, positives, n);
  cudaDeviceSynchronize();
  printf("sum %d, positive %u\n", *out, *positives);
  return 0;
}
