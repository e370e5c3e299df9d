// Cooperative groups at block and tile scope: a tile-of-32 reduction, scans, tile ballots and a
// warp-aggregated atomic over coalesced_threads(). Tile semantics do not depend on the warp
// width, so the results must be the same at 32 and 64 lanes.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>

namespace cg = cooperative_groups;

__global__ void block_sum(const int* in, int* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  __shared__ int partial[1024 / 32];
  int i = blockIdx.x * blockDim.x + block.thread_rank();
  int v = i < n ? in[i] : 0;
  v = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;
  block.sync();
  if (block.thread_rank() == 0) {
    int s = 0;
    for (unsigned t = 0; t < tile.meta_group_size(); ++t) s += partial[t];
    out[blockIdx.x] = s;
  }
}

__global__ void scans_and_votes(int* scan, unsigned* votes, int* counter, int* slots) {
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  int t = threadIdx.x;
  scan[t] = cg::inclusive_scan(tile, t % 5) * 100 + cg::exclusive_scan(tile, 1);
  votes[t] = (unsigned)tile.ballot(t % 3 == 0) + (tile.any(t == 7) << 20) + (tile.all(t < 1000) << 21);
  if (t % 3 != 1) {  // warp-aggregated increment: one atomic per group of active lanes
    cg::coalesced_group active = cg::coalesced_threads();
    int base = 0;
    if (active.thread_rank() == 0) base = atomicAdd(counter, (int)active.size());
    base = active.shfl(base, 0);
    slots[t] = base + (int)active.thread_rank();  // a unique slot per participating thread
  }
}

int main() {
  const int n = 5000, threads = 256, blocks = (n + threads - 1) / threads;
  static int h[n];
  for (int i = 0; i < n; ++i) h[i] = i % 17;
  int *in, *out;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, blocks * sizeof(int));
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  block_sum<<<blocks, threads>>>(in, out, n);
  int r[blocks];
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  long total = 0;
  for (int b = 0; b < blocks; ++b) total += r[b];
  printf("sum %ld\n", total);

  int *scan, *counter, *slots;
  unsigned* votes;
  cudaMalloc(&scan, 128 * sizeof(int));
  cudaMalloc(&votes, 128 * sizeof(unsigned));
  cudaMallocManaged(&counter, sizeof(int));
  cudaMalloc(&slots, 128 * sizeof(int));
  *counter = 0;
  scans_and_votes<<<1, 128>>>(scan, votes, counter, slots);
  cudaDeviceSynchronize();
  int hs[128];
  unsigned hv[128];
  cudaMemcpy(hs, scan, sizeof hs, cudaMemcpyDeviceToHost);
  cudaMemcpy(hv, votes, sizeof hv, cudaMemcpyDeviceToHost);
  for (int t = 0; t < 20; ++t) printf("%d:%d:%x ", t, hs[t], hv[t]);
  int hslots[128], seen[128] = {0};
  cudaMemcpy(hslots, slots, sizeof hslots, cudaMemcpyDeviceToHost);
  bool unique = true;
  for (int t = 0; t < 128; ++t)
    if (t % 3 != 1) unique = unique && hslots[t] >= 0 && hslots[t] < *counter && !seen[hslots[t]]++;
  printf("\ncounter %d, slots %s\n", *counter, unique ? "unique" : "clash");
  return 0;
}
