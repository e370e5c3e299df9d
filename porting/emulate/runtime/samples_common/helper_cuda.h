// rocm-port `port emulate`: the error-checking and device-choice helpers of the CUDA samples'
// helper_cuda.h, written anew for the one emulated device; found after the program's own -I
// directories (a program's own copy wins).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "helper_string.h"

template <typename T>
void check(T result, char const* const func, const char* const file, int const line) {
  if (result) {
    std::fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\" \n", file, line, (int)result,
                 cudaGetErrorName((cudaError_t)result), func);
    std::exit(EXIT_FAILURE);
  }
}
#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)

inline void __getLastCudaError(const char* msg, const char* file, const int line) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s(%i) : getLastCudaError() CUDA error : %s : (%d) %s.\n", file, line, msg, (int)e,
                 cudaGetErrorString(e));
    std::exit(EXIT_FAILURE);
  }
}
#define getLastCudaError(msg) __getLastCudaError(msg, __FILE__, __LINE__)
#define printLastCudaError(msg) __getLastCudaError(msg, __FILE__, __LINE__)

inline int _ConvertSMVer2Cores(int major, int minor) {
  int sm = (major << 4) + minor;
  switch (sm) {
    case 0x30: case 0x32: case 0x35: case 0x37: return 192;
    case 0x50: case 0x52: case 0x53: case 0x61: case 0x62: return 128;
    case 0x60: case 0x70: case 0x72: case 0x75: case 0x80: case 0x90: return 64;
    default: return 128;
  }
}
inline const char* _ConvertSMVer2ArchName(int major, int) {
  return major >= 9 ? "Hopper" : major == 8 ? "Ampere" : major == 7 ? "Volta" : "Pascal";
}

inline int gpuDeviceInit(int id) {
  int n = 0;
  cudaGetDeviceCount(&n);
  if (id < 0 || id >= n) return -id;
  cudaSetDevice(id);
  return id;
}
inline int gpuGetMaxGflopsDeviceId() { return 0; }
inline int findCudaDevice(int argc, const char** argv) {
  int id = checkCmdLineFlag(argc, argv, "device") ? getCmdLineArgumentInt(argc, argv, "device") : 0;
  id = gpuDeviceInit(id);
  if (id < 0) {
    std::fprintf(stderr, "exiting...\n");
    std::exit(EXIT_FAILURE);
  }
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, id);
  std::printf("GPU Device %d: \"%s\" with compute capability %d.%d\n\n", id, p.name, p.major, p.minor);
  return id;
}
