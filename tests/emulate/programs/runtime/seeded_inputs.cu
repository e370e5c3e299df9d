// Inputs seeded from the clock (srand(time(NULL)), as cuda-samples' fp16ScalarProduct) and
// from std::random_device (as HeCBench's btree): a kernel sums them. The widths run one after
// another, so only the same clock and entropy at both keep the inputs, and the sum, equal.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>

__global__ void total(const int* x, int n, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}

int main() {
  const int n = 1000;
  int *x, *out;
  cudaMallocManaged(&x, 2 * n * sizeof(int));
  cudaMallocManaged(&out, sizeof(int));
  srand((unsigned)time(NULL));
  std::random_device rd;
  std::mt19937 gen(rd());
  std::uniform_int_distribution<int> dist(0, 1 << 20);
  for (int i = 0; i < n; ++i) x[i] = rand() % (1 << 20);
  for (int i = n; i < 2 * n; ++i) x[i] = dist(gen);
  *out = 0;
  total<<<(2 * n + 127) / 128, 128>>>(x, 2 * n, out);
  cudaDeviceSynchronize();
  time_t now = time(nullptr);
  printf("sum %d first %d %d clock_moves %d\n", *out, x[0], x[n], (int)(now >= 1700000000));
  return 0;
}
