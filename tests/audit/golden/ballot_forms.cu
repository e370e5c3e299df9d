// ballot-32bit over every 32-bit spelling the rule knows, with the legacy (pre-CUDA 9) __ballot()
// as well as __ballot_sync; each 64-bit spelling next to it is not a finding.
typedef unsigned int u32;
__global__ void forms(const float* x, unsigned long long* out) {
  float v = x[threadIdx.x];
  int32_t a = __ballot(v > 0);  // expect: ballot-32bit
  u32 b = __ballot(v > 1);  // expect: ballot-32bit
  unsigned int c = __ballot(v > 2);  // expect: ballot-32bit
  int32_t d = __ballot_sync(~0ull, v > 3);  // expect: ballot-32bit
  u32 e = __ballot_sync(~0ull, v > 4);  // expect: ballot-32bit
  unsigned int f = __ballot_sync(~0ull, v > 5);  // expect: ballot-32bit
  unsigned i = __ballot(v > 11);  // expect: ballot-32bit
  uint64_t g = __ballot(v > 6);
  unsigned long long h = __ballot(v > 7);
  u32 later;
  later = __ballot(v > 8);  // expect: ballot-32bit
  unsigned int later2;
  later2 = __ballot_sync(~0ull, v > 12);  // expect: ballot-32bit
  int n = __popc(__ballot(v > 9));  // expect: ballot-32bit
  out[0] = a + b + c + d + e + f + g + h + i + later + later2 + n + __popcll(__ballot(v > 10));
}
