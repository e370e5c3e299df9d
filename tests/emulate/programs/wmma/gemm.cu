// WMMA at any warp width: each warp takes tiles by its warp id computed from warpSize, so the
// same tiles are computed at 32 and 64 lanes. Checks, against a CPU reference written here:
// half x half -> float GEMM with row-major A and col-major B (16x16x16), the 32x8x16 and 8x32x16
// shapes, bf16 and tf32 (16x16x8) inputs, signed char -> int, double 8x8x4, an accumulator loaded
// col-major and stored row-major, and an element-wise scale over x[i] / num_elements (valid
// whatever lane holds which element).
#include <cstdio>
#include <cmath>
#include <vector>
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

constexpr int MT = 64, NT = 64, KT = 32;   // the whole problem: C[MT x NT] = A[MT x KT] B[KT x NT] + C0

template <int M, int N, int K, class T, class E, class Acc>
__global__ void gemm(const E* a, const E* b, const Acc* c0, Acc* c, Acc scale) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  const int warps = gridDim.x * blockDim.x / warpSize;
  for (int tile = warp; tile < (MT / M) * (NT / N); tile += warps) {
    const int tm = tile / (NT / N) * M, tn = tile % (NT / N) * N;
    wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> acc;
    wmma::load_matrix_sync(acc, c0 + tn * MT + tm, MT, wmma::mem_col_major);   // C0 is col-major
    for (int k = 0; k < KT; k += K) {
      wmma::load_matrix_sync(fa, a + tm * KT + k, KT);        // A row-major, ldm KT
      wmma::load_matrix_sync(fb, b + tn * KT + k, KT);        // B col-major, ldm KT
      wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] *= scale;
    wmma::store_matrix_sync(c + tm * NT + tn, acc, NT, wmma::mem_row_major);
  }
}

__global__ void fill_count(int* n) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f;
  wmma::fill_fragment(f, 2.0f);
  float s = 0;
  for (int i = 0; i < f.num_elements; ++i) s += (float)f.x[i];
  atomicAdd(n, (int)s);   // 2 per element of the tile, whatever the lanes' shares
}

// E is what the program stores (float for tf32); values are exact in every type used
template <int M, int N, int K, class T, class E = T, class Acc = float>
static int check(const char* name, float ua, float ub) {
  std::vector<E> a(MT * KT), b(KT * NT);
  std::vector<Acc> c0(MT * NT), c(MT * NT);
  std::vector<double> ref(MT * NT);
  for (int i = 0; i < MT * KT; ++i) a[i] = (E)((float)((i * 7 % 13) - 6) * ua);
  for (int i = 0; i < KT * NT; ++i) b[i] = (E)((float)((i * 5 % 11) - 5) * ub);
  for (int i = 0; i < MT * NT; ++i) c0[i] = (Acc)((i % 9) - 4);
  for (int m = 0; m < MT; ++m)
    for (int n = 0; n < NT; ++n) {
      double s = 0;
      for (int k = 0; k < KT; ++k) s += (double)(float)a[m * KT + k] * (double)(float)b[n * KT + k];
      ref[m * NT + n] = (s + (double)c0[n * MT + m]) * 2;
    }
  E *da, *db;
  Acc *dc0, *dc;
  cudaMalloc(&da, a.size() * sizeof(E));
  cudaMalloc(&db, b.size() * sizeof(E));
  cudaMalloc(&dc0, c0.size() * sizeof(Acc));
  cudaMalloc(&dc, c.size() * sizeof(Acc));
  cudaMemcpy(da, a.data(), a.size() * sizeof(E), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * sizeof(E), cudaMemcpyHostToDevice);
  cudaMemcpy(dc0, c0.data(), c0.size() * sizeof(Acc), cudaMemcpyHostToDevice);
  gemm<M, N, K, T, E, Acc><<<2, 128>>>(da, db, dc0, dc, (Acc)2);
  cudaMemcpy(c.data(), dc, c.size() * sizeof(Acc), cudaMemcpyDeviceToHost);
  int bad = 0;
  double sum = 0;
  for (int i = 0; i < MT * NT; ++i) {
    if (std::fabs((double)c[i] - ref[i]) > 1e-3 * (1 + std::fabs(ref[i]))) ++bad;
    sum += c[i];
  }
  printf("%s mismatches %d checksum %.3f\n", name, bad, sum);
  cudaFree(da); cudaFree(db); cudaFree(dc0); cudaFree(dc);
  return bad;
}

int main() {
  int bad = check<16, 16, 16, half>("half 16x16x16", 0.25f, 0.5f);
  bad += check<32, 8, 16, half>("half 32x8x16", 0.25f, 0.5f);
  bad += check<8, 32, 16, half>("half 8x32x16", 0.25f, 0.5f);
  bad += check<16, 16, 16, __nv_bfloat16>("bf16 16x16x16", 0.25f, 0.5f);
  bad += check<16, 16, 8, wmma::precision::tf32, float>("tf32 16x16x8", 0.25f, 0.5f);
  bad += check<16, 16, 16, signed char, signed char, int>("s8 16x16x16", 1, 1);
  bad += check<8, 8, 4, double, double, double>("f64 8x8x4", 0.25f, 0.5f);
  int* n;
  cudaMalloc(&n, sizeof(int));
  cudaMemset(n, 0, sizeof(int));
  fill_count<<<1, 64>>>(n);
  int got = 0;
  cudaMemcpy(&got, n, sizeof(int), cudaMemcpyDeviceToHost);
  const int want = 2 * 256 * (64 / warpSize);   // 2 per element, one tile per warp of the block
  printf("fill %s\n", got == want ? "ok" : "wrong");
  bad += got != want;
  printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad != 0;
}
