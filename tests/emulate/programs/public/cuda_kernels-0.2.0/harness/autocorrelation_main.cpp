// Harness (ours) for cuda-kernels' autocorrelation.cu.
#include <cstdio>
#include <vector>

extern "C" int run_autocorrelation(const float* data, float* result, int size, int max_lag);

int main() {
  const int size = 4096, max_lag = 8;
  std::vector<float> data(size), result(max_lag);
  for (int i = 0; i < size; ++i) data[i] = (float)(i % 5);
  int rc = run_autocorrelation(data.data(), result.data(), size, max_lag);
  for (int lag = 0; lag < max_lag; ++lag) printf("lag %d: %.1f\n", lag, result[lag]);
  return rc;
}
