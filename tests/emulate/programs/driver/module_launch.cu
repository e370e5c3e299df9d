// Loading a module and launching from it stay refused, by name (no cubin or PTX to load here).
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
