#define FULL_MASK 0xffffffff  // expect: warp-mask-32bit
#define WARP_SIZE 32  // expect: warp-size-literal (used as a shuffle width below)
#define BLOCK 256
constexpr int kWarpSize = 32;  // expect: warp-size-literal
__global__ void k(float* x, int n) {
  int lane = threadIdx.x % 32;  // expect: warp-size-literal
  int warp_id = threadIdx.x / 32;  // expect: warp-size-literal
  int l2 = threadIdx.x & 31;  // expect: warp-size-literal
  int w2 = tid >> 5;  // tid is not derived from threadIdx in this file: not lane math by use
  int ok1 = threadIdx.x % warpSize;
  int blocks = (n + 31) / 32;
  int bytes = n * 32;
  bool both = lane && 31;
  float v = __shfl_down_sync(0xffffffff, x[0], 1);  // expect: warp-mask-32bit
  float v2 = __shfl_xor_sync(__activemask(), x[0], 1);  // __activemask() straight as the mask: 64-bit on HIP, right (issue 26, class 6)
  unsigned m = __ballot_sync(FULL_MASK, v > 0);  // expect: ballot-32bit
  uint32_t m2 = __ballot_sync(0xFFFFFFFFu, v > 0);  // expect: ballot-32bit, warp-mask-32bit
  unsigned long long m3 = __ballot_sync(~0ull, v > 0);
  uint64_t m4 = __activemask();  // expect: activemask
  int m5 = __activemask();  // expect: ballot-32bit
  __syncwarp(0xffffffff);  // expect: warp-mask-32bit
  __syncwarp();
  // x % 32 in a comment, and "threadIdx.x % 32" in a string, are not code
  const char* s = "threadIdx.x % 32";
}
__device__ float red(float v) {
  for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_xor_sync(~0ull, v, o, WARP_SIZE);
  int wid = threadIdx.x / kWarpSize;
  return v;
}
#define TAG_MASK 0xFFFFFFFFU
#define LOG_WARP 5  // expect: warp32-logical (threadIdx.x >> LOG_WARP below)
static const unsigned kFull = 0xffffffff;  // expect: warp-mask-32bit
__global__ void k2(unsigned* out, int n) {
  int vecLane = n % 32;  // bit packing, not a lane
  out[0] = n & TAG_MASK;
  int t = threadIdx.x;
  int lane = t & 0x1f;  // expect: warp32-logical
  bool last = lane == 31;  // expect: warp32-logical
  unsigned bit = 1u << lane;  // expect: warp32-logical
  float v = __shfl_sync(kFull, 1.0f, 0);  // a literal broadcast: the same value in both halves
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(~0ull, v, o);  // expect: warp32-logical
  int w = threadIdx.x >> LOG_WARP;
}
// a raw ballot spans the wavefront, so this 32-lane function's halves are not independent: the lane
// math gets no "consistent at 64" note (round 6), only the ballot's 32-bit stores are named
__global__ void k3(int n, int* out) {
  int lane = threadIdx.x & 0x1f;
  unsigned b;
  b = __ballot_sync(~0ull, n > 0);  // expect: ballot-32bit
  int c = __popc(__ballot_sync(~0ull, n > 0));  // expect: ballot-32bit
  out[lane] = b + c;
}
