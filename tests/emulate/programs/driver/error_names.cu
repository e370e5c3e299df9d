// Error helpers in the style of book libraries: a switch over many CUresult and cudaError_t codes,
// including ones the emulator never returns (profiler, mapping, ECC, capture), must compile, and the
// name functions must name every code by its enumerator.
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>

static const char* describe(CUresult r) {
  switch (r) {
    case CUDA_SUCCESS: return "success";
    case CUDA_ERROR_PROFILER_DISABLED: return "profiler disabled";
    case CUDA_ERROR_PROFILER_ALREADY_STOPPED: return "profiler stopped";
    case CUDA_ERROR_MAP_FAILED: return "map failed";
    case CUDA_ERROR_NOT_MAPPED_AS_POINTER: return "not mapped as pointer";
    case CUDA_ERROR_ECC_UNCORRECTABLE: return "ecc";
    case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED: return "shared object init";
    case CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING: return "texturing";
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: return "not registered";
    case CUDA_ERROR_STREAM_CAPTURE_UNJOINED: return "capture unjoined";
    default: return "other";
  }
}

static const char* describe(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "success";
    case cudaErrorProfilerDisabled: return "profiler disabled";
    case cudaErrorInvalidPitchValue: return "pitch";
    case cudaErrorMissingConfiguration: return "configuration";
    case cudaErrorNoKernelImageForDevice: return "no image";
    case cudaErrorStreamCaptureUnsupported: return "capture";
    case cudaErrorLaunchFailure: return "launch failure";
    default: return "other";
  }
}

__global__ void touch(int* p) { p[threadIdx.x] = threadIdx.x; }

int main() {
  const char* name = nullptr;
  const CUresult driver[] = {CUDA_ERROR_PROFILER_DISABLED, CUDA_ERROR_NOT_MAPPED_AS_POINTER,
                             CUDA_ERROR_STREAM_CAPTURE_UNJOINED, CUDA_ERROR_LAUNCH_FAILED};
  for (CUresult r : driver) {
    CUresult got = cuGetErrorName(r, &name);
    std::printf("%d %s %s %d\n", static_cast<int>(r), name, describe(r), static_cast<int>(got));
  }
  const cudaError_t runtime[] = {cudaErrorProfilerDisabled, cudaErrorNoKernelImageForDevice,
                                 cudaErrorStreamCaptureUnsupported, cudaErrorLaunchFailure};
  for (cudaError_t e : runtime)
    std::printf("%d %s %s\n", static_cast<int>(e), cudaGetErrorName(e), describe(e));
  std::printf("unknown: %d\n", static_cast<int>(cuGetErrorName(static_cast<CUresult>(12345), &name)));
  int* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(int));
  touch<<<1, 64>>>(d);
  std::printf("launch: %s\n", describe(cudaDeviceSynchronize()));
  cudaFree(d);
  return 0;
}
