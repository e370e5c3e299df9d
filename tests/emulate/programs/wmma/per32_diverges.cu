// A 32-lane assumption in WMMA code: each 32-thread "warp" of a 64-thread block owns a tile
// (warp = threadIdx.x / 32). At 32 lanes it is right; on a 64-lane wavefront the two halves
// pass two tiles to one collective load, which the emulator stops, naming the call.
#include <cstdio>
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

__global__ void tiles(const half* a, const half* b, float* c) {
  const int warp = threadIdx.x / 32;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  wmma::load_matrix_sync(fa, a + warp * 256, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(c + warp * 256, acc, 16, wmma::mem_row_major);
}

int main() {
  half ha[512], hb[256];
  for (int i = 0; i < 512; ++i) ha[i] = (half)(float)(i % 5);
  for (int i = 0; i < 256; ++i) hb[i] = (half)(float)(i % 16 == i / 16);   // identity
  half *a, *b;
  float* c;
  cudaMalloc(&a, sizeof ha);
  cudaMalloc(&b, sizeof hb);
  cudaMalloc(&c, 512 * sizeof(float));
  cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
  tiles<<<1, 64>>>(a, b, c);
  float hc[512];
  cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < 512; ++i) bad += hc[i] != (float)(i % 5);
  printf("mismatches %d\n", bad);
  return bad != 0;
}
