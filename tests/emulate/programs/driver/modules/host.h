// Loads a driver-API module by file name and runs its `warp_sum` kernel three ways: kernelParams,
// `extra` (one packed buffer) and the CUDA 3 API (cuParamSet*, cuLaunchGrid); reads the module's
// __device__ variable through cuModuleGetGlobal. port emulate builds the module from the .cu of
// this directory whose stem is the module file's (porting/emulate/modules.py).
#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
  const char* s_; cuGetErrorName(r_, &s_); std::printf("%s failed: %s\n", #call, s_); return 1; } } while (0)

static int run(const char* module_file) {
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuCtxCreate(&ctx, 0, dev));
  CUmodule mod;
  CHECK(cuModuleLoad(&mod, module_file));
  CUfunction sum;
  CHECK(cuModuleGetFunction(&sum, mod, "warp_sum"));
  CUfunction none;
  const char* name;
  cuGetErrorName(cuModuleGetFunction(&none, mod, "not_a_kernel"), &name);
  std::printf("unknown kernel: %s\n", name);
  CUdeviceptr scale;
  size_t scale_bytes = 0;
  CHECK(cuModuleGetGlobal(&scale, &scale_bytes, mod, "scale"));
  int three = 3;
  CHECK(cuMemcpyHtoD(scale, &three, sizeof three));
  std::printf("global 'scale': %zu bytes\n", scale_bytes);

  int n = 1000;
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i) host[i] = i % 7 + 1;
  CUdeviceptr in, out;
  CHECK(cuMemAlloc(&in, n * sizeof(int)));
  CHECK(cuMemAlloc(&out, sizeof(int)));
  CHECK(cuMemcpyHtoD(in, host.data(), n * sizeof(int)));
  unsigned blocks = (n + 127) / 128;

  CHECK(cuMemsetD32(out, 0, 1));
  void* params[] = {&in, &out, &n};
  CHECK(cuLaunchKernel(sum, blocks, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
  int result = 0;
  CHECK(cuMemcpyDtoH(&result, out, sizeof result));
  std::printf("kernelParams: %d\n", result);

  CHECK(cuMemsetD32(out, 0, 1));
  struct { CUdeviceptr in, out; int n; } packed = {in, out, n};
  size_t size = sizeof packed;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  CHECK(cuLaunchKernel(sum, blocks, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra));
  CHECK(cuMemcpyDtoH(&result, out, sizeof result));
  std::printf("extra: %d\n", result);

  CHECK(cuMemsetD32(out, 0, 1));
  CHECK(cuFuncSetBlockShape(sum, 128, 1, 1));
  CHECK(cuParamSetv(sum, 0, &in, sizeof in));
  CHECK(cuParamSetv(sum, 8, &out, sizeof out));
  CHECK(cuParamSeti(sum, 16, n));
  CHECK(cuParamSetSize(sum, 20));
  CHECK(cuLaunchGrid(sum, blocks, 1));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(&result, out, sizeof result));
  std::printf("cuLaunchGrid: %d\n", result);

  CHECK(cuMemFree(in));
  CHECK(cuMemFree(out));
  CHECK(cuModuleUnload(mod));
  CHECK(cuCtxDestroy(ctx));
  return 0;
}
