// Constructs real programs use that the emulator's front end once rejected: a kernel name on
// the line before `<<<`, `static __shared__`, `extern T __shared__`, a block passed as a
// cg::thread_group, this_grid() for ranks, block_tile_memory, umin/umax, atomicInc_system,
// cudaHostRegisterMapped, CUDART_CB callbacks, cudaDeviceBlockingSync, cudaDevAttrGpuOverlap,
// cudaErrorAssert, kernels launched through an array of pointers (`kernels[k]<<<...>>>`).
// The output is the same at both widths.
#include <cstdio>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ unsigned group_sum(const cg::thread_group& g, unsigned* scratch, unsigned v) {
  scratch[g.thread_rank()] = v;
  g.sync();
  unsigned total = 0;
  for (unsigned i = 0; i < g.size(); ++i) total += scratch[i];
  g.sync();
  return total;
}

__global__ void gaps(unsigned* out, unsigned* counter) {
  static __shared__ unsigned scratch[128];
  extern unsigned __shared__ dyn[];
  __shared__ cg::block_tile_memory<128> tile_space;
  cg::thread_block block = cg::this_thread_block(tile_space);
  cg::grid_group grid = cg::this_grid();
  dyn[block.thread_rank()] = umin(threadIdx.x, 100u) + umax(threadIdx.x, 5u);
  unsigned s = group_sum(block, scratch, dyn[block.thread_rank()]);
  atomicInc_system(counter, 1000000u);
  out[grid.thread_rank()] = s + (unsigned)grid.size();
}

__global__ void add_one(unsigned* v) { atomicAdd(&v[threadIdx.x % 4], 1u); }
__global__ void add_ten(unsigned* v) { atomicAdd(&v[threadIdx.x % 4], 10u); }

void CUDART_CB on_done(cudaStream_t, cudaError_t status, void* data) { *(int*)data = status == cudaSuccess; }

int main() {
  cudaSetDeviceFlags(cudaDeviceBlockingSync);
  unsigned *out, counter_host = 0, *counter;
  cudaMallocManaged(&out, 256 * sizeof(unsigned));
  cudaHostRegister(&counter_host, sizeof counter_host, cudaHostRegisterMapped);
  cudaHostGetDevicePointer((void**)&counter, &counter_host, 0);
  gaps
      <<<2, 128, 128 * sizeof(unsigned)>>>(out, counter);
  cudaDeviceSynchronize();
  printf("out %u %u counter %u\n", out[0], out[255], counter_host);
  int done = 0, overlap = -1;
  cudaStreamAddCallback(0, on_done, &done, 0);
  cudaStreamSynchronize(0);
  cudaDeviceGetAttribute(&overlap, cudaDevAttrGpuOverlap, 0);
  printf("callback %d overlap %d %s\n", done, overlap, cudaGetErrorName(cudaErrorAssert));
  void (*kernels[2])(unsigned*) = {add_one, add_ten};
  for (int k = 0; k < 2; ++k) kernels[k]<<<1, 64>>>(out);  // out[0..3] += 16 * (1 + 10)
  cudaDeviceSynchronize();
  printf("pointers %u %u\n", out[0] - out[255], out[3] - out[255]);
  return 0;
}
