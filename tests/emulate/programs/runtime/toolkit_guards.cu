// Programs test the toolkit's include guards and device attributes before using the runtime
// (NVIDIA's sample helpers define their error-checking macros only #ifdef __DRIVER_TYPES_H__).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#ifdef __DRIVER_TYPES_H__
#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorName(e)); exit(1); } } while (0)
#endif

#if defined(__CUDA_RUNTIME_H__) && CUDART_VERSION >= 11000 && defined(CUDA_VERSION)
static int pick_device() {
  int mode = -1, major = 0;
  CHECK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0));
  CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  return (mode == cudaComputeModeProhibited || major < 1) ? -1 : 0;
}
#endif

int main() {
  int dev = pick_device();
  CHECK(cudaSetDevice(dev));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  printf("device %d, %d multiprocessor(s)\n", dev, sms);
  cudaError_t bad = cudaSetDevice(3);
  printf("cudaSetDevice(3): %s, then last error %s\n", cudaGetErrorName(bad), cudaGetErrorName(cudaGetLastError()));
  return 0;
}
