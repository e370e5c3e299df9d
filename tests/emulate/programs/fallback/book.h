// A book's helper header with a CPU-only fallback (as the CUDA Handbook's chCUDA.h): a host file
// that defines NO_CUDA gets stand-ins instead of CUDA's headers. With -D MACROS_ONLY the
// stand-ins are only the declaration specifiers.
#pragma once
#ifndef NO_CUDA
#include <cuda_runtime.h>
#else
#define __global__
#define __host__
#define __device__
#ifndef MACROS_ONLY
typedef int cudaError_t;
static const cudaError_t cudaSuccess = 0;
static inline cudaError_t cudaFree(void*) { return 1; }
#endif
#endif
