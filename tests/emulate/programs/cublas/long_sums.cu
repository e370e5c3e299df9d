// Long float reductions (2^20 elements) checked against a double reference on the host: a float
// running sum drifts by ~1e-3 relative here (HeCBench's norm2 reported FAIL at every size), a
// GPU's tree reduction and the emulator's double accumulator stay within 1e-6.
#include <cublas_v2.h>
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  const int n = 1 << 20;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = 0.001f * (float)(i % 1000) + 0.5f;
  double sq = 0, sum = 0;
  for (float v : h) { sq += (double)v * v; sum += v; }
  float *d, nrm, dot, asum;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSnrm2(handle, n, d, 1, &nrm);
  cublasSdot(handle, n, d, 1, d, 1, &dot);
  cublasSasum(handle, n, d, 1, &asum);
  printf("nrm2 %d dot %d asum %d\n", std::fabs(nrm - std::sqrt(sq)) / std::sqrt(sq) < 1e-6,
         std::fabs(dot - sq) / sq < 1e-6, std::fabs(asum - sum) / sum < 1e-6);
  cublasDestroy(handle);
  return 0;
}
