// A macro the tree defines only on the CUDA side of a platform #if makes its #ifdef branches
// CUDA-only (DeepSpeed's PTX_AVAILABLE); one defined on both sides does not.
#ifdef __HIP_PLATFORM_AMD__
#define HALF_OK 1
#else
#define HALF_OK 1
#if __CUDA_ARCH__ >= 530
#define HAS_PTX
#endif
#endif
__device__ int lane_id() {
  int id = 0;
#ifdef HAS_PTX
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
#endif
#ifndef HAS_PTX
  id = 1;
#else
  asm("mov.u32 %0, %%laneid;" : "=r"(id));
#endif
#ifdef HALF_OK
  asm("mov.u32 %0, %%laneid;" : "=r"(id));  // expect: inline-ptx
#endif
  return id;
}
