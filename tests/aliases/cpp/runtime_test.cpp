// Exercises hip_aliases/gpu_runtime.h. Run on the CPU backend (g++); compiled and linked with
// nvcc (CUDA backend) and hipcc (HIP backend), where it needs a GPU to run.
#include "hip_aliases/gpu_runtime.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#define EXPECT(cond)                                                   \
  do {                                                                 \
    if (!(cond)) {                                                     \
      std::fprintf(stderr, "%s:%d: EXPECT(%s)\n", __FILE__, __LINE__, #cond); \
      return 1;                                                        \
    }                                                                  \
  } while (0)

__global__ void axpy(float* y, const float* x, float a, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] += a * x[i];
}

static int devices_and_errors() {
  int count = 0;
  GPU_CHECK(gpuGetDeviceCount(&count));
  EXPECT(count >= 1);
  gpuDeviceProp_t prop;
  GPU_CHECK(gpuGetDeviceProperties(&prop, 0));
  char bus[32];
  GPU_CHECK(gpuDeviceGetPCIBusId(bus, sizeof bus, 0));
  EXPECT(std::strlen(bus) > 0);
  EXPECT(gpuSetDevice(count + 7) == gpuErrorInvalidDevice);
  EXPECT(gpuPeekAtLastError() == gpuErrorInvalidDevice);
  EXPECT(gpuGetLastError() == gpuErrorInvalidDevice);
  EXPECT(gpuGetLastError() == gpuSuccess);
  EXPECT(std::strlen(gpuGetErrorString(gpuErrorInvalidValue)) > 0);
  EXPECT(std::strlen(gpuGetErrorName(gpuErrorInvalidValue)) > 0);
#if defined(GPU_RUNTIME_CPU)
  EXPECT(count == 1 && std::strcmp(prop.name, "host device") == 0);
  EXPECT(std::strcmp(bus, "0000:00:00.0") == 0);
#endif
  return 0;
}

static int copies_kernel_streams_events() {
  const int n = 1000;
  float hx[n], hy[n];
  for (int i = 0; i < n; ++i) { hx[i] = float(i); hy[i] = 1.0f; }
  float *dx = nullptr, *dy = nullptr;
  GPU_CHECK(gpuMalloc(reinterpret_cast<void**>(&dx), sizeof hx));
  GPU_CHECK(gpuMalloc(reinterpret_cast<void**>(&dy), sizeof hy));
  gpuStream_t stream;
  GPU_CHECK(gpuStreamCreateWithFlags(&stream, gpuStreamNonBlocking));
  gpuEvent_t start, stop, untimed;
  GPU_CHECK(gpuEventCreate(&start));
  GPU_CHECK(gpuEventCreateWithFlags(&stop, gpuEventDefault));
  GPU_CHECK(gpuEventCreateWithFlags(&untimed, gpuEventDisableTiming));
  GPU_CHECK(gpuEventRecord(start, stream));
  GPU_CHECK(gpuMemcpyAsync(dx, hx, sizeof hx, gpuMemcpyHostToDevice, stream));
  GPU_CHECK(gpuMemcpyAsync(dy, hy, sizeof hy, gpuMemcpyHostToDevice, stream));
  GPU_LAUNCH_KERNEL(axpy, dim3((n + 255) / 256), dim3(256), 0, stream, dy, dx, 2.0f, n);
  GPU_CHECK(gpuGetLastError());
  GPU_CHECK(gpuMemcpyAsync(hy, dy, sizeof hy, gpuMemcpyDeviceToHost, stream));
  GPU_CHECK(gpuEventRecord(stop, stream));
  GPU_CHECK(gpuEventRecord(untimed, stream));
  GPU_CHECK(gpuStreamWaitEvent(stream, stop, 0));
  GPU_CHECK(gpuStreamSynchronize(stream));
  GPU_CHECK(gpuEventSynchronize(stop));
  EXPECT(gpuStreamQuery(stream) == gpuSuccess && gpuEventQuery(stop) == gpuSuccess);
  for (int i = 0; i < n; ++i) EXPECT(hy[i] == 1.0f + 2.0f * float(i));
  float ms = -1.0f;
  GPU_CHECK(gpuEventElapsedTime(&ms, start, stop));
  EXPECT(ms >= 0.0f);
  EXPECT(gpuEventElapsedTime(&ms, start, untimed) != gpuSuccess);
  (void)gpuGetLastError();
  GPU_CHECK(gpuMemsetAsync(dy, 0, sizeof hy, stream));
  GPU_CHECK(gpuMemset(dx, 0xff, sizeof(float)));
  GPU_CHECK(gpuMemcpy(hy, dy, sizeof hy, gpuMemcpyDefault));
  GPU_CHECK(gpuMemcpy(hx, dx, sizeof(float), gpuMemcpyDeviceToHost));
  unsigned int bits;
  std::memcpy(&bits, hx, sizeof bits);
  EXPECT(hy[n - 1] == 0.0f && bits == 0xffffffffu);
  GPU_CHECK(gpuEventDestroy(start));
  GPU_CHECK(gpuEventDestroy(stop));
  GPU_CHECK(gpuEventDestroy(untimed));
  GPU_CHECK(gpuStreamDestroy(stream));
  GPU_CHECK(gpuFree(dx));
  GPU_CHECK(gpuFree(dy));
  return 0;
}

static int pointer_attributes_and_registration() {
  void* d = nullptr;
  void* h = nullptr;
  GPU_CHECK(gpuMalloc(&d, 4096));
  GPU_CHECK(gpuHostMalloc(&h, 4096, gpuHostMallocDefault));
  static char buffer[8192];
  GPU_CHECK(gpuHostRegister(buffer, sizeof buffer, gpuHostRegisterDefault));
  gpuPointerAttribute_t a;
  GPU_CHECK(gpuPointerGetAttributes(&a, d));
  EXPECT(gpuPointerAttributeType(a) == gpuMemoryTypeDevice && a.devicePointer == d);
  GPU_CHECK(gpuPointerGetAttributes(&a, static_cast<char*>(d) + 100));
  EXPECT(gpuPointerAttributeType(a) == gpuMemoryTypeDevice);
  GPU_CHECK(gpuPointerGetAttributes(&a, h));
  EXPECT(gpuPointerAttributeType(a) == gpuMemoryTypeHost);
  GPU_CHECK(gpuPointerGetAttributes(&a, buffer + 10));
  EXPECT(gpuPointerAttributeType(a) == gpuMemoryTypeHost);
  void* mapped = nullptr;
  GPU_CHECK(gpuHostGetDevicePointer(&mapped, buffer, 0));
  EXPECT(mapped != nullptr);
  GPU_CHECK(gpuHostUnregister(buffer));
#if defined(GPU_RUNTIME_CPU)
  EXPECT(mapped == buffer);
  int local = 0;
  GPU_CHECK(gpuPointerGetAttributes(&a, &local));
  EXPECT(gpuPointerAttributeType(a) == gpuMemoryTypeUnregistered && a.device == -1);
  EXPECT(gpuHostGetDevicePointer(&mapped, buffer, 0) == gpuErrorInvalidValue);
  EXPECT(gpuFree(h) == gpuErrorInvalidValue);  // host memory is not freed by gpuFree
  EXPECT(gpuLaunchKernel(nullptr, dim3(1), dim3(1), nullptr, 0, nullptr) == gpuErrorNotSupported);
  (void)gpuGetLastError();
#endif
  GPU_CHECK(gpuHostFree(h));
  GPU_CHECK(gpuFree(d));
  return 0;
}

static int ipc_across_processes() {
  const size_t bytes = 1 << 16;
  int* d = nullptr;
  GPU_CHECK(gpuMalloc(reinterpret_cast<void**>(&d), bytes));
  int pattern[4] = {1, 2, 3, 4};
  GPU_CHECK(gpuMemcpy(d, pattern, sizeof pattern, gpuMemcpyHostToDevice));
  gpuIpcMemHandle_t handle;
  GPU_CHECK(gpuIpcGetMemHandle(&handle, d));
  pid_t child = fork();
  EXPECT(child >= 0);
  if (child == 0) {  // another process opens the handle, checks and changes the memory
    int* p = nullptr;
    if (gpuIpcOpenMemHandle(reinterpret_cast<void**>(&p), handle, gpuIpcMemLazyEnablePeerAccess) != gpuSuccess)
      _exit(10);
    int seen[4];
    if (gpuMemcpy(seen, p, sizeof seen, gpuMemcpyDeviceToHost) != gpuSuccess) _exit(11);
    if (std::memcmp(seen, pattern, sizeof seen) != 0) _exit(12);
    int answer = 42;
    if (gpuMemcpy(p + 3, &answer, sizeof answer, gpuMemcpyHostToDevice) != gpuSuccess) _exit(13);
    if (gpuIpcCloseMemHandle(p) != gpuSuccess) _exit(14);
    _exit(0);
  }
  int status = 0;
  EXPECT(waitpid(child, &status, 0) == child);
  EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  int back[4];
  GPU_CHECK(gpuMemcpy(back, d, sizeof back, gpuMemcpyDeviceToHost));
  EXPECT(back[0] == 1 && back[3] == 42);
  GPU_CHECK(gpuFree(d));
  return 0;
}

int main() {
  if (devices_and_errors() || copies_kernel_streams_events() || pointer_attributes_and_registration() ||
      ipc_across_processes())
    return 1;
  std::printf("OK %s\n", GPU_RUNTIME_BACKEND_NAME);
  return 0;
}
