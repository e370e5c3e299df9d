// The plain parts of the CUDA driver API (port emulate's emu_driver.h): initialisation rules,
// devices, attributes, contexts, memory, copies, memsets, streams, events, error strings, and a
// runtime-API kernel over memory the driver allocated. Every line is computed, not printed as is.
#include <cuda.h>
#include <cstdio>
#include <cstring>

__global__ void scale(unsigned int* v, int n, unsigned int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * k + i;
}

static const char* name(CUresult r) {
  const char* s = nullptr;
  cuGetErrorName(r, &s);
  return s ? s : "?";
}

int main() {
  int count = -1;
  CUdeviceptr early = 0;
  // before cuInit every call but the version and error strings fails
  std::printf("before init: %s %s\n", name(cuDeviceGetCount(&count)), name(cuMemAlloc(&early, 64)));
  if (cuInit(0) != CUDA_SUCCESS) return 1;
  int version = 0;
  cuDriverGetVersion(&version);
  cuDeviceGetCount(&count);
  CUdevice dev = -1, bad = -1;
  std::printf("version ok %d, devices %d, get 0 %s, get 1 %s\n", version >= 11000, count,
              name(cuDeviceGet(&dev, 0)), name(cuDeviceGet(&bad, 1)));
  char devname[128];
  cuDeviceGetName(devname, sizeof devname, dev);
  int warp = 0, major = 0, minor = 0, sms = 0, tpb = 0;
  cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev);
  cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  cuDeviceGetAttribute(&tpb, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev);
  cuDeviceComputeCapability(&major, &minor, dev);
  size_t total = 0;
  cuDeviceTotalMem(&total, dev);
  int rt_warp = 0;
  cudaDeviceGetAttribute(&rt_warp, cudaDevAttrWarpSize, 0);
  std::printf("name set %d, warp as cudaDeviceGetAttribute %d, capability %d.%d, multiprocessors>0 %d, tpb %d, mem>0 %d\n",
              std::strlen(devname) > 0, warp == rt_warp, major, minor, sms > 0, tpb, total > 0);

  int mode = -1;
  cuDeviceGetAttribute(&mode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev);
  std::printf("compute mode default %d, prohibited differs %d\n", mode == CU_COMPUTEMODE_DEFAULT,
              CU_COMPUTEMODE_PROHIBITED != CU_COMPUTEMODE_DEFAULT);

  // memory needs a current context
  CUdeviceptr d = 0;
  std::printf("no context: %s\n", name(cuMemAlloc(&d, 64)));
  CUcontext ctx = nullptr, cur = nullptr;
  cuCtxCreate(&ctx, 0, dev);
  cuCtxGetCurrent(&cur);
  std::printf("context current %d\n", cur == ctx);

  const int n = 1000;
  unsigned int host[n], back[n];
  for (int i = 0; i < n; ++i) host[i] = 3u * i + 1;
  cuMemAlloc(&d, n * sizeof(unsigned int));
  cuMemcpyHtoD(d, host, sizeof host);
  scale<<<(n + 127) / 128, 128>>>(reinterpret_cast<unsigned int*>(d), n, 5);
  cuCtxSynchronize();
  CUdeviceptr d2 = 0;
  cuMemAlloc(&d2, sizeof host);
  cuMemcpyDtoD(d2, d, sizeof host);
  cuMemcpyDtoH(back, d2, sizeof back);
  unsigned long long sum = 0;
  bool ok = true;
  for (int i = 0; i < n; ++i) {
    sum += back[i];
    ok = ok && back[i] == (3u * i + 1) * 5 + i;
  }
  std::printf("kernel over driver memory: %s, sum %llu\n", ok ? "ok" : "WRONG", sum);

  // memsets store 8-, 16- and 32-bit patterns
  cuMemsetD32(d, 0xdeadbeefu, n);
  cuMemsetD16(d2, 0x1234, 2 * n);
  cuMemsetD8(d2, 0x7f, 3);
  unsigned int w[2];
  unsigned short h[4];
  cuMemcpyDtoH(w, d, sizeof w);
  cuMemcpyDtoH(h, d2, sizeof h);
  std::printf("memset d32 %08x %08x, d16/d8 %04x %04x %04x\n", w[0], w[1], h[0], h[1], h[2]);
  std::printf("misaligned d32: %s\n", name(cuMemsetD32(d + 2, 0, 1)));

  CUstream s = nullptr;
  CUevent a = nullptr, b = nullptr;
  cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
  cuEventCreate(&a, CU_EVENT_DEFAULT);
  cuEventCreate(&b, CU_EVENT_DEFAULT);
  cuEventRecord(a, s);
  cuMemcpyHtoDAsync(d, host, sizeof host, s);
  cuMemsetD32Async(d2, 7u, n, s);
  cuMemcpyDtoHAsync(back, d, sizeof back, s);
  cuEventRecord(b, s);
  cuStreamSynchronize(s);
  float ms = -1.f;
  cuEventElapsedTime(&ms, a, b);
  std::printf("async copy back %u %u, event interval nonnegative %d, queries %s %s\n", back[0], back[n - 1], ms >= 0.f,
              name(cuEventQuery(b)), name(cuStreamQuery(s)));

  size_t free_b = 0, total_b = 0;
  std::printf("mem info %s %d\n", name(cuMemGetInfo(&free_b, &total_b)), free_b <= total_b);
  const char* text = nullptr;
  cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text);
  std::printf("error string: %s\n", text);
  cuEventDestroy(a);
  cuEventDestroy(b);
  cuStreamDestroy(s);
  cuMemFree(d);
  cuMemFree(d2);
  cuCtxDestroy(ctx);
  std::printf("after destroy: %s\n", name(cuCtxSynchronize()));
  return 0;
}
