// Golden file: lines marked with an expectation comment must give exactly those findings; others none.
#include <cuda_runtime.h>
#define CUDA_CHECK(x) do { cudaError_t e = (x); } while (0)
void f(cudaStream_t s, void* p) {
  cudaMalloc(&p, 16);
  CUDA_CHECK(cudaFree(p));
  cudaStreamBeginCaptureToGraphFancy(s);  // expect: cuda-unmapped
  cuMemFancyNotInHipify(p);  // expect: cuda-unmapped
  obj.cudaNotAnApiMember();
  ptr->cuAlsoAMember();
  int mycudaFooBar = 0;
  int cuda_helper_count = 0;
  /* cudaInComment(); */ // cudaNotCode();
  cudaMemcpyAsync(p, p, 16, cudaMemcpyDeviceToDevice, s);
}
