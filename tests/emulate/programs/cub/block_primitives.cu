// CUB's block primitives as real programs use them (HeCBench: BlockReduce in 18 programs,
// BlockScan, BlockLoad/BlockStore with the transposing algorithms, DeviceReduce/DeviceScan):
// results that do not depend on the warp width, so the same at 32 and 64 lanes.
#include <cstdio>
#include <cub/cub.cuh>

constexpr int kThreads = 96;  // three 32-lane warps, or one and a half 64-lane wavefronts
constexpr int kItems = 4;

__global__ void block_ops(const int* in, int* sums, int* scanned, int* maxes, int* partial) {
  typedef cub::BlockLoad<int, kThreads, kItems, cub::BLOCK_LOAD_TRANSPOSE> Load;
  typedef cub::BlockStore<int, kThreads, kItems, cub::BLOCK_STORE_TRANSPOSE> Store;
  typedef cub::BlockScan<int, kThreads> Scan;
  typedef cub::BlockReduce<int, kThreads> Reduce;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
  } temp;
  int items[kItems];
  const int offset = blockIdx.x * kThreads * kItems;
  Load(temp.load).Load(in + offset, items);
  int total = Reduce(temp.reduce).Sum(items);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
  __syncthreads();
  int biggest = Reduce(temp.reduce).Reduce(items[0], cub::Max());
  if (threadIdx.x == 0) maxes[blockIdx.x] = biggest;
  __syncthreads();
  int first50 = Reduce(temp.reduce).Sum(items[1], 50);  // only threads 0..49 contribute
  if (threadIdx.x == 0) partial[blockIdx.x] = first50;
  __syncthreads();
  int aggregate;
  Scan(temp.scan).ExclusiveSum(items, items, aggregate);
  __syncthreads();
  Store(temp.store).Store(scanned + offset, items);
  if (threadIdx.x == 0 && aggregate != total) scanned[offset] = -1;  // the block's total, in every thread
}

int main() {
  const int blocks = 2, n = blocks * kThreads * kItems;
  int *in, *sums, *scanned, *maxes, *partial;
  cudaMallocManaged(&in, n * sizeof(int));
  cudaMallocManaged(&sums, blocks * sizeof(int));
  cudaMallocManaged(&scanned, n * sizeof(int));
  cudaMallocManaged(&maxes, blocks * sizeof(int));
  cudaMallocManaged(&partial, blocks * sizeof(int));
  for (int i = 0; i < n; ++i) in[i] = (i * 7) % 13;
  block_ops<<<blocks, kThreads>>>(in, sums, scanned, maxes, partial);
  cudaDeviceSynchronize();
  int bad = 0;
  for (int b = 0; b < blocks; ++b) {
    int run = 0;
    for (int i = 0; i < kThreads * kItems; ++i) {
      bad += scanned[b * kThreads * kItems + i] != run;
      run += in[b * kThreads * kItems + i];
    }
  }
  int* total;
  cudaMallocManaged(&total, sizeof(int));
  size_t bytes = 0;
  cub::DeviceReduce::Sum(nullptr, bytes, in, total, n);
  void* tmp;
  cudaMalloc(&tmp, bytes);
  cub::DeviceReduce::Sum(tmp, bytes, in, total, n);
  cub::DeviceScan::InclusiveSum(tmp, bytes, in, scanned, n);
  printf("sums %d %d max %d %d first50 %d %d scan errors %d device sum %d last %d\n", sums[0], sums[1], maxes[0],
         maxes[1], partial[0], partial[1], bad, *total, scanned[n - 1]);
  return 0;
}
