// cuRAND's generator ordering (HeCBench's mrg32k3a sets it): a host and a device MRG32k3a
// generator with the same seed, offset and ordering give the same numbers; a quasi-random
// ordering on a pseudo-random generator is refused as cuRAND refuses it.
#include <curand.h>
#include <cstdio>
#include <vector>

static void fill(curandGenerator_t g, curandOrdering_t order, float* out, size_t n) {
  curandSetGeneratorOffset(g, 5ULL);
  curandSetGeneratorOrdering(g, order);
  curandSetPseudoRandomGeneratorSeed(g, 1234ULL);
  curandGenerateUniform(g, out, n);
}

int main() {
  const size_t n = 1000;
  std::vector<float> host(n), dev(n);
  curandGenerator_t h, d;
  curandCreateGeneratorHost(&h, CURAND_RNG_PSEUDO_MRG32K3A);
  curandCreateGenerator(&d, CURAND_RNG_PSEUDO_MRG32K3A);
  float* buf = nullptr;
  cudaMalloc(&buf, n * sizeof(float));
  fill(h, CURAND_ORDERING_PSEUDO_BEST, host.data(), n);
  fill(d, CURAND_ORDERING_PSEUDO_DEFAULT, buf, n);
  cudaMemcpy(dev.data(), buf, n * sizeof(float), cudaMemcpyDeviceToHost);
  size_t same = 0, in_range = 0;
  for (size_t i = 0; i < n; ++i) {
    same += host[i] == dev[i];
    in_range += host[i] > 0.f && host[i] <= 1.f;
  }
  std::printf("equal %zu of %zu, in (0, 1] %zu\n", same, n, in_range);
  std::printf("quasi ordering on a pseudo generator: %d\n",
              curandSetGeneratorOrdering(h, CURAND_ORDERING_QUASI_DEFAULT) == CURAND_STATUS_OUT_OF_RANGE);
  curandDestroyGenerator(h);
  curandDestroyGenerator(d);
  cudaFree(buf);
  return 0;
}
