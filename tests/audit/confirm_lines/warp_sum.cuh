// --confirm per line: a header has no main(); using_header.cu beside it includes it, so the
// header's findings are judged on that program's run (the reduction from 16 adds one half only).
#pragma once
__device__ inline float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(__activemask(), v, offset);
  return v;
}
