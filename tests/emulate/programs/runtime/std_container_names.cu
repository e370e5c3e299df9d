// `using namespace std;` and globals named like what the standard containers and functors
// declare in std (`size`, `data`, `less`, `tie`, `function`, `vector`): nvcc's headers declare none
// of them, and neither do the runtime's (emu_work.h), so the program compiles as with nvcc.
// -D DRIVER_API: the driver API's <cuda.h> brings <string> and <vector> here (emu_driver.h), and
// `size` is then ambiguous with std::size: the input that breaks the rule.
#include <cstdio>
#ifdef DRIVER_API
#include <cuda.h>
#endif
using namespace std;

int size = 4;
__device__ float data[4];
int less = 1, tie = 2, function = 3;
char vector[] = "v";

__global__ void fill_data(int n) {
  if (threadIdx.x < n) data[threadIdx.x] = threadIdx.x * 0.5f;
}

int main() {
  fill_data<<<1, 32>>>(size);
  float h[4];
  cudaMemcpyFromSymbol(h, data, sizeof h);
  printf("size %d data[3] %.1f less %d tie %d function %d vector %s\n", size, h[3], less, tie, function, vector);
  return 0;
}
