// out[x][y] = texel (x, y), one thread per texel: threadIdx.x is the row y, threadIdx.y the column x.
#include <cuda.h>

extern "C" __global__ void transpose_tex(float* out, int w, int h, CUtexObject tex) {
  int y = threadIdx.x, x = threadIdx.y;
  if (x < w && y < h) out[x * h + y] = tex2D<float>(tex, x + 0.5f, y + 0.5f);
}
