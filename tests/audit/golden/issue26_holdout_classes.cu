// Issue 26, the classes its first hold-out showed (each beside the variant that must stay quiet).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// a. 32-lane tiles whose per-warp slots are counted by warpSize: at 64 two tiles share a slot
__global__ void tile_sum(const double* x, double* sum) {
  cg::thread_block cta = cg::this_thread_block();
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
  __shared__ double warpSum[16];
  double t = x[threadIdx.x];
  for (int offset = tile32.size() / 2; offset > 0; offset /= 2) t += tile32.shfl_down(t, offset);
  if (tile32.thread_rank() == 0) warpSum[threadIdx.x / warpSize] = t;  // expect: warp-width-mixed
  cta.sync();
  if (threadIdx.x < (blockDim.x / warpSize)) {  // expect: warp-width-mixed
    t = warpSum[threadIdx.x];
    if (tile32.thread_rank() == 0) atomicAdd(sum, t);
  }
}
// ... counted by the tile itself (or by 32): consistent at 64
__global__ void tile_sum_ok(const double* x, double* sum, int n) {
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cg::this_thread_block());
  __shared__ double warpSum[16];
  double t = x[threadIdx.x];
  for (int offset = tile32.size() / 2; offset > 0; offset /= 2) t += tile32.shfl_down(t, offset);
  if (tile32.thread_rank() == 0) warpSum[tile32.meta_group_rank()] = t;
  int chunks = n / warpSize;  // a size divided by warpSize, not a thread's tile
  if (threadIdx.x == 0) sum[0] = warpSum[0] + chunks;
}

// b. a group's ballot kept in 32 bits, then counted: lanes 32-63 are lost
__global__ void partition(unsigned* out, const int* d, int pivot) {
  cg::coalesced_group active = cg::coalesced_threads();
  unsigned int greater = (d[threadIdx.x] > pivot);
  unsigned int gt_mask = active.ballot(greater);  // expect: ballot-32bit
  out[0] = __popc(gt_mask);  // expect: ballot-32bit
}
// ... a 32-lane tile's ballot has 32 meaningful bits; a wavefront ballot kept in 64 bits is right
__global__ void partition_ok(unsigned* out, const int* d, int pivot) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  unsigned int in_tile = tile.ballot(d[threadIdx.x] > pivot);
  unsigned long long all = __ballot_sync(__activemask(), d[threadIdx.x] > pivot);
  out[0] = __popc(in_tile) + __popcll(all);
}

// c. inline PTX where the preprocessor's truth on ROCm (CUDA macros undefined, 0 in #if) decides
__device__ unsigned long long stamp() {
  unsigned long long t = 0;
#if __CUDA_ARCH__ < 700
  t = 1;
#else
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
#endif
#if __CUDA_ARCH__ >= 700
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
#elif CUDART_VERSION >= 11000
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
#else
  asm volatile("mov.u32 %0, %%clock;" : "=r"(t));  // expect: inline-ptx (0 >= 700 and 0 >= 11000 are false)
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
#endif
#if __CUDA_ARCH__ < 800 && defined(USE_TIMER)
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));  // expect: inline-ptx (-DUSE_TIMER decides it)
#endif
  return t;
}

// c. a fixed-lane broadcast in a kernel every launch runs with one 32-thread warp per block
__device__ float half_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(~0ull, v, o);  // expect: warp32-logical
  return v;
}
__global__ void one_warp(const float* x, float* out) {
  float v = half_sum(x[threadIdx.x]);
  v = __shfl_sync(~0ull, v, 0);
  out[threadIdx.x] = v;
}
__global__ void two_warps(const float* x, float* out) {
  float v = half_sum(x[threadIdx.x]);
  v = __shfl_sync(~0ull, v, 0);  // expect: shfl-fixed-lane (launched with 64 threads)
  out[threadIdx.x] = v;
}
void run(const float* x, float* out, int n, int block_size) {
  block_size = 32;
  one_warp<<<n, block_size>>>(x, out);
  one_warp<<<n, dim3(32)>>>(x, out);
  two_warps<<<n, 32>>>(x, out);
  two_warps<<<n, 64>>>(x, out);
}

// a shared array with a 32-wide inner extent, its lane subscript a copy of a warpSize lane
__global__ void rows2d(const float* b, float* out) {
  __shared__ float block[8][32];  // expect: shared-warp32
  __shared__ float flags[32][8];  // its 32 extent is indexed by a block number, not by the lane
  const int warpLane = threadIdx.x % warpSize;
  const int k = warpLane;
  block[threadIdx.x / warpSize][k] = b[threadIdx.x];
  flags[blockIdx.x % 32][k % 8] = 0.f;
  out[threadIdx.x] = block[0][k] + __shfl_xor_sync(~0ull, out[0], 1);
}

// a vote spans the wavefront: two 32-lane logical warps vote together, so no "consistent" note;
// the vote itself is named (round 9): each logical warp's answer takes in the other half's lanes
__global__ void walk(const float* d, int* out) {
  int lane = threadIdx.x % 32;
  float v = d[threadIdx.x];
  if (__all_sync(~0ull, v > 0.f)) out[threadIdx.x / 32] = lane;  // expect: warp-width-mixed
}

// a lane bit for lanes counted by warpSize, in a helper with no warp operation of its own
__device__ unsigned lanemask_below() {
  const unsigned lane = threadIdx.x & (warpSize - 1);
  return (1 << lane) - 1;  // expect: warp-size-literal
}

// the #else of `#if CUDART_VERSION < 9000` is CUDA-only (0 < 9000 on ROCm): its ballot is not ROCm's
__device__ int scan_bits(bool p) {
#if (CUDART_VERSION < 9000)
  unsigned int b = __ballot(p);  // expect: ballot-32bit
  return __popc(b);  // expect: ballot-32bit
#else
  unsigned int b = __ballot_sync(~0ull, p);
  return __popc(b);
#endif
}

// a 32-lane tile striding by warpSize skips every other 32 elements at 64; striding by the tile is right
__global__ void tile_stride(const float* p, int* out, int n) {
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cg::this_thread_block());
  int cnt = 0;
  for (int i = tile32.thread_rank(); i < n; i += warpSize) cnt += __popc(tile32.ballot(p[i] > 0.f));  // expect: warp-width-mixed
  for (int i = tile32.thread_rank(); i < n; i += tile32.size()) cnt += __popc(tile32.ballot(p[i] < 0.f));
  out[tile32.meta_group_rank()] = cnt;
}
