// GPU_CHECK reports file:line, the expression and the error; aborts, or throws if asked to.
#include "hip_aliases/gpu_runtime.h"

int main() {
#if defined(GPU_CHECK_THROWS)
  try {
    GPU_CHECK(gpuSetDevice(12345));
  } catch (const std::runtime_error& e) {
    std::printf("caught: %s\n", e.what());
    return 3;
  }
  return 0;
#else
  GPU_CHECK(gpuSetDevice(12345));
  return 0;
#endif
}
