// Classes from issue 17: user names that look like CUDA, project macros, strings, ported
// branches, data masks and bit packing are not findings; warp widths under any name are.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#define CURRENT_TASK_PROC 3
#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) abort(); } while (0)
typedef struct { int id; } CUTThread;
#define TAG_MASK 0xFFFFFFFFU
#define WS 32  // expect: warp32-logical
constexpr int WARP_WIDTH = 32;  // expect: warp32-logical
static const int warp_threads = 32;  // expect: warp32-logical
#define WAVE_SIZE 32  // expect: warp32-logical
#define ROWS 32
void host(cublasHandle_t cublasHandle, float* x) {
  CUTThread t;
  int p = CURRENT_TASK_PROC;
  CUDA_CHECK(cudaFree(x));
  getLastCudaError("cudaGraphicsResourceGetMappedPointer failed");
  cublasScopy(cublasHandle, 4, x, 1, x, 1);
}
#ifdef __HIP_PLATFORM_AMD__
#define WARP_SIZE 64
#else
#define WARP_SIZE 32
#endif
__global__ void k(unsigned* out, float v, int i) {
  int lane = threadIdx.x % WS;
  float r = __shfl_xor_sync(~0ull, v, 1, WARP_WIDTH);
  for (int o = warp_threads / 2; o > 0; o >>= 1) v += __shfl_down_sync(~0ull, v, o);
  int w = threadIdx.x / WAVE_SIZE;
  int vecLane = i % 32;
  out[0] = (unsigned)i & TAG_MASK;
  out[ROWS - 1] = 0;
  unsigned word = out[threadIdx.x];
  unsigned bits = (word >> 5) & 0x1f;
  int lid = threadIdx.x;
  bool last = (lid & 0x1f) == 31;  // expect: warp32-logical
}
typedef struct { int v; } cudaAsyncNotificationInfo_t;  // a shim defining a CUDA API type itself
struct cudaArraySparseProperties { int x; };
void shim(cudaAsyncNotificationInfo_t* a, cudaArraySparseProperties* b);
__global__ void vec4(const float* x, float* y, int n) {
  const int i0 = (blockDim.x * blockIdx.x + threadIdx.x) * 4;  // an element offset, 4 values per thread
  const int iqs = i0 % 128;
  if (iqs % 32 != 0) return;  // a 32-value block of data, not a lane
  int lane = threadIdx.x % 32;  // no warp operation in this function: data layout (issue 26, class 3)
}
