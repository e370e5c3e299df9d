// A module file that no .cu of this directory builds ("kernel.cubin", no kernel.cu here): refused
// by name before anything is compiled.
#include <cuda.h>
#include <cstdio>

int main() {
  cuInit(0);
  CUdevice dev;
  cuDeviceGet(&dev, 0);
  CUcontext ctx;
  cuCtxCreate(&ctx, 0, dev);
  CUmodule mod;
  cuModuleLoad(&mod, "kernel.cubin");
  std::printf("loaded\n");
  return 0;
}
