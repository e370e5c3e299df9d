// CUB's run-length encoding, caching allocator, CubDebugExit and input iterators (counting,
// constant, transform) in a device-wide reduction and in a kernel; every value is worked out
// by hand in tests/emulate/test_cub.py.
#include <cub/cub.cuh>
#include <cstdio>

struct Square {
  __host__ __device__ int operator()(int x) const { return x * x; }
};

template <class It> __global__ void gather(It it, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = it[i];
}

int main() {
  cub::CachingDeviceAllocator alloc(true);
  const int n = 12;
  const int h_in[n] = {5, 5, 5, 1, 2, 2, 7, 7, 7, 7, 3, 5};
  int *d_in, *d_unique, *d_lengths, *d_runs;
  CubDebugExit(alloc.DeviceAllocate((void**)&d_in, sizeof h_in));
  CubDebugExit(alloc.DeviceAllocate((void**)&d_unique, sizeof h_in));
  CubDebugExit(alloc.DeviceAllocate((void**)&d_lengths, sizeof h_in));
  CubDebugExit(alloc.DeviceAllocate((void**)&d_runs, sizeof(int)));
  cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  void* temp = nullptr;
  size_t bytes = 0;
  cub::DeviceRunLengthEncode::Encode(temp, bytes, d_in, d_unique, d_lengths, d_runs, n);
  CubDebugExit(alloc.DeviceAllocate(&temp, bytes));
  cub::DeviceRunLengthEncode::Encode(temp, bytes, d_in, d_unique, d_lengths, d_runs, n);
  int runs = 0, unique[n], lengths[n];
  cudaMemcpy(&runs, d_runs, sizeof runs, cudaMemcpyDeviceToHost);
  cudaMemcpy(unique, d_unique, sizeof unique, cudaMemcpyDeviceToHost);
  cudaMemcpy(lengths, d_lengths, sizeof lengths, cudaMemcpyDeviceToHost);
  std::printf("runs %d:", runs);
  for (int i = 0; i < runs; ++i) std::printf(" %dx%d", unique[i], lengths[i]);
  std::printf("\n");

  cub::DeviceRunLengthEncode::NonTrivialRuns(temp, bytes, d_in, d_unique, d_lengths, d_runs, n);
  cudaMemcpy(&runs, d_runs, sizeof runs, cudaMemcpyDeviceToHost);
  cudaMemcpy(unique, d_unique, sizeof unique, cudaMemcpyDeviceToHost);
  cudaMemcpy(lengths, d_lengths, sizeof lengths, cudaMemcpyDeviceToHost);
  std::printf("non-trivial %d:", runs);
  for (int i = 0; i < runs; ++i) std::printf(" @%d+%d", unique[i], lengths[i]);
  std::printf("\n");

  cub::CountingInputIterator<int> count(3);
  cub::TransformInputIterator<int, Square, cub::CountingInputIterator<int>> squares(count, Square());
  cub::ConstantInputIterator<int> sevens(7);
  int *d_sum, sum = 0;
  CubDebugExit(alloc.DeviceAllocate((void**)&d_sum, sizeof(int)));
  cub::DeviceReduce::Sum(temp, bytes, squares, d_sum, 4);
  cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost);
  std::printf("sum of squares 3..6: %d\n", sum);
  gather<<<1, 64>>>(squares + 2, d_unique, n);
  cudaMemcpy(unique, d_unique, sizeof unique, cudaMemcpyDeviceToHost);
  gather<<<1, 64>>>(sevens, d_lengths, 3);
  cudaMemcpy(lengths, d_lengths, 3 * sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("kernel: %d %d %d, %d %d\n", unique[0], unique[1], unique[11], lengths[0], lengths[2]);
  for (void* p : {(void*)d_in, (void*)d_unique, (void*)d_lengths, (void*)d_runs, (void*)d_sum, temp})
    CubDebugExit(alloc.DeviceFree(p));
  CubDebugExit(alloc.FreeAllCached());
  return 0;
}
