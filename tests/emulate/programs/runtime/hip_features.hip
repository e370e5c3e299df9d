// A HIP program exercising launches the emulator must handle: hipLaunchKernelGGL with a template
// kernel, HIP_DYNAMIC_SHARED and `extern __shared__`, cudaLaunchKernel-style packed arguments,
// streams, events, memcpy in every direction, a __constant__ symbol and a block-wide scan.
#include <hip/hip_runtime.h>
#include <cstdio>

__constant__ int kScale[4];

template <typename T, int ITEMS>
__global__ void block_scan(const T* in, T* out, int n) {
  HIP_DYNAMIC_SHARED(T, buf)
  int t = threadIdx.x;
  T v = 0;
  for (int k = 0; k < ITEMS; ++k) {
    int i = (blockIdx.x * blockDim.x + t) * ITEMS + k;
    v += i < n ? in[i] * kScale[k % 4] : 0;
  }
  buf[t] = v;
  __syncthreads();
  for (int off = 1; off < (int)blockDim.x; off *= 2) {  // Hillis-Steele scan over the block
    T add = t >= off ? buf[t - off] : 0;
    __syncthreads();
    buf[t] += add;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = buf[t];
}

extern __shared__ float tile[];

__global__ void reverse_block(float* data) {
  int t = threadIdx.x;
  tile[t] = data[blockIdx.x * blockDim.x + t];
  __syncthreads();
  data[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t];
}

int main() {
  const int n = 3000, threads = 96, items = 4;
  const int blocks = (n + threads * items - 1) / (threads * items);
  int scale[4] = {1, 2, 3, 4};
  hipMemcpyToSymbol(HIP_SYMBOL(kScale), scale, sizeof scale);
  static int h[n], r[blocks * threads];
  for (int i = 0; i < n; ++i) h[i] = i % 13;
  int *din, *dout;
  hipMalloc(&din, sizeof h);
  hipMalloc(&dout, sizeof r);
  hipStream_t s;
  hipStreamCreate(&s);
  hipEvent_t a, b;
  hipEventCreate(&a);
  hipEventCreate(&b);
  hipMemcpyAsync(din, h, sizeof h, hipMemcpyHostToDevice, s);
  hipEventRecord(a, s);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(block_scan<int, items>), dim3(blocks), dim3(threads), threads * sizeof(int), s,
                     din, dout, n);
  hipEventRecord(b, s);
  hipStreamSynchronize(s);
  hipMemcpy(r, dout, sizeof r, hipMemcpyDeviceToHost);
  long long total = 0;
  for (int k = 0; k < blocks; ++k) total += r[k * threads + threads - 1];
  printf("scan totals %lld, last of block 0: %d\n", total, r[threads - 1]);

  float f[256], *df;
  for (int i = 0; i < 256; ++i) f[i] = (float)i;
  hipMalloc(&df, sizeof f);
  hipMemcpy(df, f, sizeof f, hipMemcpyHostToDevice);
  void* args[] = {&df};
  hipLaunchKernel(reverse_block, dim3(2), dim3(128), args, 128 * sizeof(float), 0);
  float back[256];
  hipMemcpy(back, df, sizeof back, hipMemcpyDeviceToHost);
  printf("reversed: %.0f %.0f %.0f %.0f\n", back[0], back[127], back[128], back[255]);
  hipDeviceProp_t prop;
  hipGetDeviceProperties(&prop, 0);
  printf("ballot bytes %d, error: %s\n", (int)sizeof(__ballot(1)), hipGetErrorString(hipGetLastError()));
  hipFree(din);
  hipFree(dout);
  hipFree(df);
  return 0;
}
