// Reads a kernel source from the working directory, compiles it with NVRTC, loads the PTX with
// cuModuleLoadDataEx and runs its `lanes` kernel over 256 threads; prints how many elements
// match `i % 32`, the lane a 32-wide warp gives element i. port emulate compiles the named .cu
// of this directory ahead and checks at nvrtcCompileProgram that the string is that file.
#pragma once
#include <cuda.h>
#include <nvrtc.h>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

static int run_nvrtc(const char* file, bool edit) {
  std::ifstream in(file, std::ios::binary);
  if (!in) { std::printf("cannot read %s\n", file); return 1; }
  std::stringstream text;
  text << in.rdbuf();
  std::string source = text.str() + (edit ? "\n// changed at run time\n" : "");
  nvrtcProgram prog;
  nvrtcCreateProgram(&prog, source.c_str(), file, 0, nullptr, nullptr);
  const char* opts[] = {"--gpu-architecture=compute_80"};
  nvrtcResult r = nvrtcCompileProgram(prog, 1, opts);
  size_t log_size;
  nvrtcGetProgramLogSize(prog, &log_size);
  std::printf("compile: %s, log %zu byte(s)\n", nvrtcGetErrorString(r), log_size);
  size_t ptx_size;
  nvrtcGetPTXSize(prog, &ptx_size);
  std::string ptx(ptx_size, '\0');
  nvrtcGetPTX(prog, &ptx[0]);
  nvrtcDestroyProgram(&prog);

  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction lanes;
  cuInit(0);
  cuDeviceGet(&dev, 0);
  cuCtxCreate(&ctx, 0, dev);
  if (cuModuleLoadDataEx(&mod, ptx.c_str(), 0, nullptr, nullptr) != CUDA_SUCCESS) return 1;
  if (cuModuleGetFunction(&lanes, mod, "lanes") != CUDA_SUCCESS) return 1;
  const int n = 256;
  CUdeviceptr out;
  cuMemAlloc(&out, n * sizeof(int));
  void* args[] = {&out};
  cuLaunchKernel(lanes, 2, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr);
  int host[n];
  cuMemcpyDtoH(host, out, sizeof host);
  int match = 0;
  for (int i = 0; i < n; ++i) match += host[i] == i % 32;
  std::printf("%d of %d elements hold i %% 32\n", match, n);
  cuMemFree(out);
  cuCtxDestroy(ctx);
  return 0;
}
