// cuRAND's host and device APIs: a Monte Carlo estimate of pi from per-thread states, reduced
// per warp with shuffles, and host-generated uniform and normal numbers. The numbers are the
// emulator's own xorwow streams (not NVIDIA's), so the test checks properties, not digits:
// every uniform in (0, 1], sample moments close to the distribution's, equal streams for equal
// (seed, subsequence), and the same output at both widths. -DWARP_BUG starts the warp
// reduction at offset 16, so at 64 lanes half of each wavefront's hits are lost.
#include <curand.h>
#include <curand_kernel.h>
#include <cstdio>

__global__ void hits(unsigned long long seed, int per_thread, unsigned int* total) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandState s;
  curand_init(seed, id, 0, &s);
  unsigned int in = 0;
  for (int i = 0; i < per_thread; ++i) {
    float x = curand_uniform(&s), y = curand_uniform(&s);
    in += x * x + y * y <= 1.0f;
  }
#ifdef WARP_BUG
  for (int o = 16; o > 0; o /= 2) in += __shfl_down_sync(__activemask(), in, o);
#else
  for (int o = warpSize / 2; o > 0; o /= 2) in += __shfl_down_sync(__activemask(), in, o);
#endif
  if (threadIdx.x % warpSize == 0) atomicAdd(total, in);
}

__global__ void same_stream(unsigned int* out) {
  curandState a, b;
  curand_init(7, 3, 0, &a);
  curand_init(7, 3, 2, &b);  // offset 2: two draws ahead of a
  curand(&a);
  curand(&a);
  out[0] = curand(&a) == curand(&b);
  curand_init(7, 4, 0, &b);
  out[1] = curand(&a) != curand(&b);
}

int main() {
  const int threads = 256, per_thread = 200;
  unsigned int *total, t, *flags, f[2];
  cudaMalloc(&total, sizeof(unsigned int));
  cudaMalloc(&flags, sizeof f);
  cudaMemset(total, 0, sizeof(unsigned int));
  hits<<<threads / 128, 128>>>(1234ULL, per_thread, total);
  cudaMemcpy(&t, total, sizeof t, cudaMemcpyDeviceToHost);
  double pi = 4.0 * t / (double(threads) * per_thread);
  printf("pi within 0.05: %d (samples counted %s)\n", pi > 3.09 && pi < 3.19, pi > 2.0 ? "all" : "partly");
  same_stream<<<1, 1>>>(flags);
  cudaMemcpy(f, flags, sizeof f, cudaMemcpyDeviceToHost);
  printf("offset skips: %u, subsequences differ: %u\n", f[0], f[1]);

  const size_t n = 10000;
  float *u, *z, hu[n], hz[n];
  cudaMalloc(&u, n * sizeof(float));
  cudaMalloc(&z, n * sizeof(float));
  curandGenerator_t g;
  curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);
  curandSetPseudoRandomGeneratorSeed(g, 42ULL);
  curandGenerateUniform(g, u, n);
  curandGenerateNormal(g, z, n, 2.0f, 0.5f);
  cudaMemcpy(hu, u, sizeof hu, cudaMemcpyDeviceToHost);
  cudaMemcpy(hz, z, sizeof hz, cudaMemcpyDeviceToHost);
  double su = 0, sz = 0, szz = 0;
  int in_range = 1;
  for (size_t i = 0; i < n; ++i) {
    in_range &= hu[i] > 0.0f && hu[i] <= 1.0f;
    su += hu[i];
    sz += hz[i];
    szz += hz[i] * hz[i];
  }
  double mz = sz / n, vz = szz / n - mz * mz;
  printf("uniform in (0,1]: %d mean ~0.5: %d; normal mean ~2: %d var ~0.25: %d; odd count refused: %d\n", in_range,
         su / n > 0.49 && su / n < 0.51, mz > 1.98 && mz < 2.02, vz > 0.24 && vz < 0.26,
         curandGenerateNormal(g, z, 3, 0.0f, 1.0f) == CURAND_STATUS_LENGTH_NOT_MULTIPLE);
  curandSetPseudoRandomGeneratorSeed(g, 42ULL);  // reseeding restarts the stream
  float again;
  curandGenerateUniform(g, u, 1);
  cudaMemcpy(&again, u, sizeof again, cudaMemcpyDeviceToHost);
  printf("reseeded stream repeats: %d\n", again == hu[0]);
  curandDestroyGenerator(g);
  return 0;
}
