// `using namespace std;` and globals named like standard algorithms (`count`, `find`, `sort`):
// nvcc's headers do not bring <algorithm> in, so the names are the program's alone; the
// emulator's runtime headers must not bring them in either.
// -D ASSUME_32: the warp's count comes from __popc of a ballot, a real 32-lane assumption (lanes
// 32-63 are lost at 64 lanes); without it __popcll counts either width.
#include <cstdio>
using namespace std;

__device__ unsigned int count = 0;
__device__ int find[4];
int sort = 3;

__global__ void count_lanes() {
#ifdef ASSUME_32
  unsigned int lanes = __popc(__ballot_sync(__activemask(), 1));
#else
  unsigned int lanes = __popcll(__ballot_sync(__activemask(), 1));
#endif
  if (threadIdx.x % warpSize == 0) atomicAdd(&count, lanes);
  if (threadIdx.x < 4) find[threadIdx.x] = threadIdx.x * sort;
}

int main() {
  count_lanes<<<2, 128>>>();
  unsigned int h = 0;
  int f[4];
  cudaMemcpyFromSymbol(&h, count, sizeof h);
  cudaMemcpyFromSymbol(f, find, sizeof f);
  printf("lanes counted: %u, find[3] = %d, sort = %d\n", h, f[3], sort);
  return 0;
}
