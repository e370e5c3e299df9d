// A CUDA 4 SDK-era program: <cutil_inline.h> and <shrQATest.h>, which port emulate provides when
// the program does not bring its own. Each block sums its 256 values with a tree in shared
// memory down to warpSize lanes, then the first warp finishes with shuffles over warpSize: the
// same at 32 and 64 lanes. Checked with cutComparef (exact) and cutCompareL2fe.
#include <cutil_inline.h>
#include <shrQATest.h>
#include <cstdio>

__global__ void block_sums(const float* in, float* out) {
  __shared__ float s[256];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (int half = 128; half >= 32; half /= 2) {
    if (t < half) s[t] += s[t + half];
    __syncthreads();
  }
  if (t < warpSize) {
    float v = s[t];
    for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(__activemask(), v, o);
    if (t == 0) out[blockIdx.x] = v;
  }
}

int main(int argc, char** argv) {
  shrQAStart(argc, argv);
  cutilDeviceInit(argc, argv);
  const int blocks = 8;
  float h_in[blocks * 256], h_out[blocks], ref[blocks];
  for (int b = 0; b < blocks; ++b) {
    ref[b] = 0;
    for (int i = 0; i < 256; ++i) ref[b] += h_in[b * 256 + i] = (float)((b * 256 + i) % 13);
  }
  float *d_in, *d_out;
  cutilSafeCall(cudaMalloc((void**)&d_in, sizeof h_in));
  cutilSafeCall(cudaMalloc((void**)&d_out, sizeof h_out));
  cutilSafeCall(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  unsigned int timer = 0;
  cutilCheckError(cutCreateTimer(&timer));
  cutilCheckError(cutStartTimer(timer));
  block_sums<<<blocks, 256>>>(d_in, d_out);
  cutilCheckMsg("block_sums failed");
  cutilSafeThreadSync();
  cutilCheckError(cutStopTimer(timer));
  cutilSafeCall(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
  printf("Processing time: %f (ms)\n", cutGetTimerValue(timer));
  int average_ok = cutGetAverageTimerValue(timer) >= 0.0f;
  int deleted = cutDeleteTimer(timer) == CUTTrue;
  int refused = cutStartTimer(timer) == CUTFalse;
  printf("timer sessions ok %d, deleted %d, bad handle %d\n", average_ok, deleted, refused);
  printf("sums: %g %g ... %g\n", h_out[0], h_out[1], h_out[blocks - 1]);
  CUTBoolean exact = cutComparef(ref, h_out, blocks);
  CUTBoolean l2 = cutCompareL2fe(ref, h_out, blocks, 1e-6f);
  float off[blocks];
  for (int b = 0; b < blocks; ++b) off[b] = ref[b] + 0.5f;
  printf("exact %d, l2 %d, off by 0.5: exact %d, within 0.6 %d\n", exact, l2, cutComparef(ref, off, blocks),
         cutComparefe(ref, off, blocks, 0.6f));
  cutilSafeCall(cudaFree(d_in));
  cutilSafeCall(cudaFree(d_out));
  shrQAFinishExit(argc, (const char**)argv, exact && l2 ? QA_PASSED : QA_FAILED);
}
