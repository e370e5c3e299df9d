// Golden file: lines marked with an expectation comment must give exactly those findings; others none.  audit-enable: cuda-version-check (opt-in)
#include <cuda_runtime.h>
#define CUDA_CHECK(x) do { cudaError_t e = (x); } while (0)
void f(cudaStream_t s, void* p) {
  cudaMalloc(&p, 16);  // expect: hip-error-ignored
  CUDA_CHECK(cudaFree(p));
  cudaArrayGetMemoryRequirements(0, 0, 0);  // expect: cuda-unmapped
  cudaDestroyExternalMemory(0);  // expect: cuda-unmapped
  obj.cudaNotAnApiMember();
  ptr->cuAlsoAMember();
  int mycudaFooBar = 0;
  int cuda_helper_count = 0;
  /* cudaInComment(); */ // cudaNotCode();
  cudaMemcpyAsync(p, p, 16, cudaMemcpyDeviceToDevice, s);  // expect: hip-error-ignored
}
void g(cudaStream_t s) {
  cudaStreamBeginCaptureToGraphFancy(s);  // not declared by the CUDA headers: the user's name
  cuMemFancyNotInHipify(0);
  (void)cudaFree(0);
  if (cudaFree(0) != cudaSuccess) return;
  cudaError_t e = cudaFree(0);
}
#ifdef __HIP_PLATFORM_AMD__
void h() { cudaArrayGetMemoryRequirements(0, 0, 0); }  // an already ported branch
#else
void h() { cudaArrayGetMemoryRequirements(0, 0, 0); }  // the CUDA side of a port
#endif
#if CUDART_VERSION >= 12000  // expect: cuda-version-check
void k() { cudaArrayGetMemoryRequirements(0, 0, 0); }  // false on ROCm: never compiled there
#endif
#if !defined(__HIP_PLATFORM_AMD__) && CUDART_VERSION >= 11070
void m1() {}  // ROCm's side decided explicitly: not a version-check finding
#endif
#if defined(USE_ROCM)
void m2() {}
#elif CUDART_VERSION >= 12000
void m3() {}  // an #elif after a HIP branch is CUDA-only
#endif
#ifdef __CUDA_ARCH__  // expect: cuda-version-check
void m4() {}
#endif
