// The fix of per32_diverges.cu: the tile index comes from warpSize, and the block has as many
// threads as two tiles need at either width (two warps at 32 lanes, one at 64 taking both).
// Same output at both widths.
#include <cstdio>
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

__global__ void tiles(const half* a, const half* b, float* c) {
  for (int warp = threadIdx.x / warpSize; warp < 2; warp += blockDim.x / warpSize) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a + warp * 256, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(c + warp * 256, acc, 16, wmma::mem_row_major);
  }
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
