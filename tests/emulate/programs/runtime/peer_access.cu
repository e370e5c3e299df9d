// A multi-GPU program on the emulated machine's one device: peer queries answer as CUDA does for
// a device and itself, copies between devices name device 0 on both sides, and the program takes
// its one-device path (HIP names too, through the runtime's aliases).
#include <cstdio>

__global__ void fill(int* v, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = i * k;
}

int main() {
  int count = 0, can = -1;
  cudaGetDeviceCount(&count);
  cudaError_t q = cudaDeviceCanAccessPeer(&can, 0, 0);
  cudaError_t bad = cudaDeviceCanAccessPeer(&can, 0, 1);
  std::printf("devices %d, 0->0 %d (%s), 0->1 %s\n", count, can, cudaGetErrorName(q), cudaGetErrorName(bad));
  cudaError_t en = cudaDeviceEnablePeerAccess(0, 0);
  cudaError_t dis = cudaDeviceDisablePeerAccess(0);
  cudaGetLastError();
  std::printf("enable %s, disable %s\n", cudaGetErrorName(en), cudaGetErrorName(dis));
  const int n = 256;
  int *a, *b, h[n];
  cudaMalloc(&a, n * sizeof(int));
  cudaMalloc(&b, n * sizeof(int));
  fill<<<4, 64>>>(a, n, 3);
  cudaMemcpyPeer(b, 0, a, 0, n * sizeof(int));
  cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost);
  long long sum = 0;
  for (int i = 0; i < n; ++i) sum += h[i];
  cudaError_t other = hipMemcpyPeerAsync(b, 1, a, 0, n * sizeof(int), 0);
  cudaGetLastError();
  std::printf("copied sum %lld, to device 1: %s\n", sum, cudaGetErrorName(other));
  if (count < 2) std::printf("one device: single-GPU path\n");
  cudaFree(a);
  cudaFree(b);
  return 0;
}
