// Issue 26: what a 32-lane assumption means on a 64-lane wavefront, judged per function.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// class 1: self-consistent 32-lane code (offsets 16..1, leader at lane % 32 == 0, / 32 slots):
// each half of a wavefront is its own warp, the result is the same at 64; only the mask is wrong
__device__ float half_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(~0ull, v, o);  // expect: warp32-logical
  return v;
}
__global__ void rows32(const float* x, float* out, int n) {
  __shared__ float part[32];
  int lane = threadIdx.x % 32;  // expect: warp32-logical
  int wid = threadIdx.x / 32;  // expect: warp32-logical
  float v = half_sum(x[threadIdx.x]);
  if (lane == 0) part[wid] = v;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}

// class 2: explicit 32-lane tiles are right at 64 too
__global__ void tiles(const float* x, float* out) {
  cg::thread_block_tile<32> t = cg::tiled_partition<32>(cg::this_thread_block());
  float v = x[threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += t.shfl_down(v, o);
  if (t.thread_rank() % 32 == 0) out[t.meta_group_rank()] = v;
}

// class 3: % 32 / >> 5 with no warp operation: data layout (an atomic work split, tile columns)
__global__ void layout(int* bins, float* tile, int n) {
  int t = threadIdx.x;
  atomicOr(&bins[t >> 5], 1 << (t & 31));
  tile[t % 32] = 0.f;
}

// class 7: a fixed source lane, no width, inside 32-lane logical warps: lanes 32-63 read the lower half
__global__ void bcast(const float* x, float* out) {
  float v = half_sum(x[threadIdx.x]);
  v = __shfl_sync(~0ull, v, 0);  // expect: shfl-fixed-lane
  float w = __shfl(v, 0);  // expect: shfl-fixed-lane
  float ok = __shfl_sync(~0ull, v, 0, 32);  // the logical width given: right at 64 (no note: the function is not consistent)
  out[threadIdx.x] = v + w + ok;
}

// the warp measured by warpSize, reduced over 32 lanes: per-warp results are partial
__global__ void rows_by_warpsize(const float* x, float* out, int rows, int cols) {
  int warp = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;
  int lane = threadIdx.x % warpSize;
  if (warp >= rows) return;
  float v = 0.f;
  for (int c = lane; c < cols; c += warpSize) v += x[warp * cols + c];
  v = half_sum(v);  // expect: warp-width-mixed
  if (lane == 0) out[warp] = v;
}

// class 9: a shared array sized 32, filled through a warpSize lane: lanes 32-63 write past its end
__global__ void stage(const float* x, float* out) {
  __shared__ float buf[32 * 4];  // expect: shared-warp32
  int lane = threadIdx.x % warpSize;
  for (int f = 0; f < 4; ++f) buf[f * warpSize + lane] = x[f * warpSize + lane];
  __syncwarp();
  out[threadIdx.x] = buf[lane] + __shfl_xor_sync(~0ull, out[0], 1);
}

// class 8: the host counts 32 threads per warp for a kernel that indexes rows by warpSize
void launch(const float* x, float* out, int rows, int cols) {
  int block = 256;
  int grid = (rows * 32 + block - 1) / block;  // expect: launch-warp32
  rows_by_warpsize<<<grid, block>>>(x, out, rows, cols);
  rows32<<<(rows * 32 + block - 1) / block, block>>>(x, out, rows);  // consistent: the kernel counts 32 too
  int m = 1 << (block / warpSize);  // a count of warps, not a lane bit
}
__global__ void warp_bits(int* out, float v) {
  v += __shfl_xor_sync(~0ull, v, 1);
  int m = (1 << (blockDim.x / warpSize)) - 1;  // a bit per warp of the block, not a lane bit
  int lane = threadIdx.x % warpSize;
  out[0] = m | (1 << lane);  // expect: warp-size-literal (a lane bit in 32 bits, lanes counted by warpSize)
}
