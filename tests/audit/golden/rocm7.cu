#include <nvrtc.h>
constexpr int kLanes = warpSize;  // expect: warpsize-not-constexpr
static_assert(warpSize == 64, "wave64");  // expect: warpsize-not-constexpr
__shared__ float partial[warpSize];  // expect: warpsize-not-constexpr
using R = Reducer<warpSize>;  // expect: warpsize-not-constexpr
__global__ void k(float* x) {
  int lane = threadIdx.x % warpSize;
  if (lane < warpSize / 2) x[lane] += x[lane + warpSize / 2];
  float v = x[warpSize - 1];
}
void graph(HIP_MEMSET_NODE_PARAMS* p) {  // expect: rocm7-removed
  hipMemsetParams ok;
  nvrtcProgram prog;  // expect: rocm7-hiprtc-link
  nvrtcCompileProgram(prog, 0, nullptr);
}
