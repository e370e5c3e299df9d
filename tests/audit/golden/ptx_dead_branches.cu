// Issue 26, class 4: inline PTX in branches ROCm never compiles is not reported; the branch ROCm
// does compile still is.
// #define USE_PTX_TIMER
__device__ unsigned long long now() {
  unsigned long long t = 0;
#if !defined(__CUDA_ARCH__)
  t = 1;
#else
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
#endif
#ifdef __CUDA_ARCH__
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
#endif
#ifndef __CUDA_ARCH__
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));  // expect: inline-ptx
#endif
#ifdef USE_PTX_TIMER
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
#else
  asm volatile("mov.u64 %0, %%clock;" : "=l"(t));  // expect: inline-ptx
#endif
#if defined(USE_FAST_PATH)
  asm volatile("mov.u64 %0, %%clock;" : "=l"(t));  // expect: inline-ptx (-D may define it: not commented out here)
#endif
  return t;
}
