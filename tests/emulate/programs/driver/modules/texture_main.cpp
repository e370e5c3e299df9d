// A driver-API texture: a 4 x 3 CUDA array filled by cuMemcpy2D, read by the module's kernel
// through a texture object (point filtering, clamped, unnormalised coordinates), copied back by
// cuMemcpy2D from device memory with a pitch. Module "transpose_tex.cubin" from transpose_tex.cu.
#include <cuda.h>
#include <cstdio>
#include <cstring>

int main() {
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction k;
  cuInit(0);
  cuDeviceGet(&dev, 0);
  cuCtxCreate(&ctx, 0, dev);
  if (cuModuleLoad(&mod, "transpose_tex.cubin") != CUDA_SUCCESS) return 1;
  if (cuModuleGetFunction(&k, mod, "transpose_tex") != CUDA_SUCCESS) return 1;
  const int w = 4, h = 3;
  float host[h][w];
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) host[y][x] = 10.0f * y + x;
  CUDA_ARRAY_DESCRIPTOR desc = {w, h, CU_AD_FORMAT_FLOAT, 1};
  CUarray array;
  if (cuArrayCreate(&array, &desc) != CUDA_SUCCESS) return 1;
  CUDA_MEMCPY2D up;
  std::memset(&up, 0, sizeof up);
  up.srcMemoryType = CU_MEMORYTYPE_HOST;
  up.srcHost = host;
  up.srcPitch = w * sizeof(float);
  up.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  up.dstArray = array;
  up.WidthInBytes = w * sizeof(float);
  up.Height = h;
  cuMemcpy2D(&up);
  CUDA_RESOURCE_DESC res;
  std::memset(&res, 0, sizeof res);
  res.resType = CU_RESOURCE_TYPE_ARRAY;
  res.res.array.hArray = array;
  CUDA_TEXTURE_DESC tex;
  std::memset(&tex, 0, sizeof tex);
  tex.addressMode[0] = tex.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
  tex.filterMode = CU_TR_FILTER_MODE_POINT;
  CUtexObject object;
  if (cuTexObjectCreate(&object, &res, &tex, nullptr) != CUDA_SUCCESS) return 1;
  CUdeviceptr out;
  cuMemAlloc(&out, w * h * sizeof(float));
  int width = w, height = h;
  void* args[] = {&out, &width, &height, &object};
  cuLaunchKernel(k, 1, 1, 1, h, w, 1, 0, nullptr, args, nullptr);
  float back[w][h];
  CUDA_MEMCPY2D down;
  std::memset(&down, 0, sizeof down);
  down.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  down.srcDevice = out;
  down.srcPitch = h * sizeof(float);
  down.dstMemoryType = CU_MEMORYTYPE_HOST;
  down.dstHost = back;
  down.dstPitch = h * sizeof(float);
  down.WidthInBytes = h * sizeof(float);
  down.Height = w;
  cuMemcpy2D(&down);
  for (int x = 0; x < w; ++x) std::printf("%g %g %g\n", back[x][0], back[x][1], back[x][2]);
  cuTexObjectDestroy(object);
  cuArrayDestroy(array);
  cuMemFree(out);
  cuCtxDestroy(ctx);
  return 0;
}
