// rocm-port `port emulate`: the CUDA 3-4 SDK's cutil_inline.h (cutil_inline_runtime.h's checks and
// device choice), written anew over cutil.h for the one emulated device; found after the
// program's own -I directories.
#pragma once
#include "cutil.h"

inline void __cudaSafeCall(cudaError_t e, const char* file, const int line) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s(%i) : cudaSafeCall() Runtime API error %d: %s.\n", file, line, (int)e, cudaGetErrorString(e));
    std::exit(-1);
  }
}
inline void __cudaSafeCallNoSync(cudaError_t e, const char* file, const int line) { __cudaSafeCall(e, file, line); }
inline void __cudaSafeThreadSync(const char* file, const int line) { __cudaSafeCall(cudaDeviceSynchronize(), file, line); }
inline void __cutilCheckMsg(const char* msg, const char* file, const int line) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s(%i) : cutilCheckMsg() CUTIL CUDA error : %s : (%d) %s.\n", file, line, msg, (int)e,
                 cudaGetErrorString(e));
    std::exit(-1);
  }
}
inline void __cutilCheckError(CUTBoolean ok, const char* file, const int line) {
  if (ok != CUTTrue) {
    std::fprintf(stderr, "%s(%i) : CUTIL CUDA error.\n", file, line);
    std::exit(-1);
  }
}
inline void __cutilCondition(int val, const char* file, const int line) {
  if (!val) {
    std::fprintf(stderr, "%s(%i) : CUTIL condition failed.\n", file, line);
    std::exit(-1);
  }
}
#define cutilSafeCall(err) __cudaSafeCall((err), __FILE__, __LINE__)
#define cutilSafeCallNoSync(err) __cudaSafeCallNoSync((err), __FILE__, __LINE__)
#define cutilSafeThreadSync() __cudaSafeThreadSync(__FILE__, __LINE__)
#define cutilCheckMsg(msg) __cutilCheckMsg((msg), __FILE__, __LINE__)
#define cutilCheckError(err) __cutilCheckError((err), __FILE__, __LINE__)
#define cutilCondition(val) __cutilCondition((val), __FILE__, __LINE__)
#define cutilSafeMalloc(mallocCall) __cutilCondition((mallocCall) != NULL, __FILE__, __LINE__)

inline int cutGetMaxGflopsDeviceId() { return 0; }  // the one emulated device
inline int cutilDeviceInit(int argc, char** argv) {
  int dev = 0;
  cutGetCmdLineArgumenti(argc, (const char**)argv, "device", &dev);
  cudaDeviceProp prop;
  cutilSafeCallNoSync(cudaGetDeviceProperties(&prop, 0));
  if (cutCheckCmdLineFlag(argc, (const char**)argv, "quiet") == CUTFalse)
    std::fprintf(stderr, "Using device %d: %s\n", 0, prop.name);
  cutilSafeCall(cudaSetDevice(0));
  return 0;
}
inline int cutilChooseCudaDevice(int argc, char** argv) {
  if (cutCheckCmdLineFlag(argc, (const char**)argv, "device")) return cutilDeviceInit(argc, argv);
  cutilSafeCall(cudaSetDevice(cutGetMaxGflopsDeviceId()));
  return 0;
}
inline void cutilDeviceSynchronize() { cutilSafeCall(cudaDeviceSynchronize()); }
inline void cutilDeviceReset() { cutilSafeCall(cudaDeviceReset()); }
inline void cutilExit(int argc, char** argv) {
  if (!cutCheckCmdLineFlag(argc, (const char**)argv, "noprompt")) {
    std::printf("\nPress ENTER to exit...\n");
    std::fflush(stdout);
    std::fflush(stderr);
    std::getchar();
  }
}
