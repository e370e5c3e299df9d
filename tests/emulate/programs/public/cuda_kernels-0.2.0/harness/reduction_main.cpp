// Harness (ours) for cuda-kernels' reduction.cu: sum a generated array on the "device".
#include <cmath>
#include <cstdio>
#include <vector>

extern "C" int run_reduction(const float* h_data, int size, float* h_result);

int main() {
  for (int size : {1, 255, 256, 257, 1000, 65536, 300001}) {
    std::vector<float> data(size);
    double expect = 0;
    for (int i = 0; i < size; ++i) {
      data[i] = (float)((i * 7) % 13) - 6.0f;
      expect += data[i];
    }
    float got = -1.0f;
    int rc = run_reduction(data.data(), size, &got);
    printf("size %d: rc %d sum %.1f matches CPU: %s\n", size, rc, got, std::fabs(got - expect) < 1e-3 ? "yes" : "no");
  }
  return 0;
}
