// cuda-samples' reduction instantiates thread_block_tile<blockSize> for every block size and
// uses it only when the size fits a warp: a tile wider than the warp must compile, and only
// fault if a thread actually uses one.
#include <cstdio>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

template <unsigned Size> __global__ void sum(const int* x, int* out) {
  int v = x[threadIdx.x];
  if (Size <= 32) {
    cg::thread_block_tile<Size> tile = cg::tiled_partition<Size>(cg::this_thread_block());
    for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);
    if (tile.thread_rank() == 0) atomicAdd(out, v);
  } else {
    atomicAdd(out, v);
  }
}

int main() {
  int *x, *out;
  cudaMallocManaged(&x, 128 * sizeof(int));
  cudaMallocManaged(&out, 2 * sizeof(int));
  for (int i = 0; i < 128; ++i) x[i] = i;
  out[0] = out[1] = 0;
  sum<32><<<1, 128>>>(x, out);
  sum<256><<<1, 128>>>(x, out + 1);
  cudaDeviceSynchronize();
  printf("%d %d\n", out[0], out[1]);
  return 0;
}
