// cuFFT on the emulated device: values a DFT fixes (a cosine's two peaks, a sum at DC, a shifted
// delta's phases), round trips (forward, inverse, divide by the count), power-of-two and other
// lengths, C2C/R2C/C2R/Z2Z, 2D, batched cufftPlanMany, and a kernel between transforms.
#include <cufft.h>
#include <cmath>
#include <cstdio>
#include <vector>

static double r4(double v) { double r = std::round(v * 1e4) / 1e4; return r == 0 ? 0.0 : r; }  // no "-0.0000"

__global__ void scale(cufftComplex* v, int n, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { v[i].x *= k; v[i].y *= k; }
}

static double roundtrip_c2c(int n) {  // max |x - IFFT(FFT(x)) / n|
  std::vector<cufftComplex> h(n), back(n);
  for (int i = 0; i < n; ++i) h[i] = make_cuFloatComplex(std::sin(0.7f * i) + 0.1f * i, std::cos(1.3f * i));
  cufftComplex* d;
  cudaMalloc(&d, n * sizeof(cufftComplex));
  cudaMemcpy(d, h.data(), n * sizeof(cufftComplex), cudaMemcpyHostToDevice);
  cufftHandle p;
  cufftPlan1d(&p, n, CUFFT_C2C, 1);
  cufftExecC2C(p, d, d, CUFFT_FORWARD);
  cufftExecC2C(p, d, d, CUFFT_INVERSE);
  scale<<<(n + 63) / 64, 64>>>(d, n, 1.0f / n);
  cudaMemcpy(back.data(), d, n * sizeof(cufftComplex), cudaMemcpyDeviceToHost);
  double err = 0;
  for (int i = 0; i < n; ++i) err = std::fmax(err, std::fabs(back[i].x - h[i].x) + std::fabs(back[i].y - h[i].y));
  cufftDestroy(p);
  cudaFree(d);
  return err;
}

int main() {
  std::printf("c2c round trips exact to 1e-5: n=64 %d, n=12 %d, n=1 %d\n", roundtrip_c2c(64) < 1e-5,
              roundtrip_c2c(12) < 1e-5, roundtrip_c2c(1) < 1e-5);

  // a cosine of 3 cycles in 16 samples: 8 at bins 3 and 13, 0 elsewhere
  const int n = 16;
  cufftComplex h[n];
  for (int j = 0; j < n; ++j) h[j] = make_cuFloatComplex(std::cos(2 * M_PI * 3 * j / n), 0);
  cufftComplex* d;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  cufftHandle p;
  cufftPlan1d(&p, n, CUFFT_C2C, 1);
  cufftExecC2C(p, d, d, CUFFT_FORWARD);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  double rest = 0;
  for (int k = 0; k < n; ++k) if (k != 3 && k != 13) rest += std::fabs(h[k].x) + std::fabs(h[k].y);
  std::printf("cosine: X3 %.4f X13 %.4f others %.4f\n", r4(h[3].x), r4(h[13].x), r4(rest));
  cufftDestroy(p);

  // R2C of a ramp 0..9: X0 = 45, X5 = -5 (alternating sum); C2R back / 10
  const int m = 10;
  float ramp[m], again[m];
  for (int i = 0; i < m; ++i) ramp[i] = (float)i;
  float* dr;
  cufftComplex* dc;
  cudaMalloc(&dr, sizeof ramp);
  cudaMalloc(&dc, (m / 2 + 1) * sizeof(cufftComplex));
  cudaMemcpy(dr, ramp, sizeof ramp, cudaMemcpyHostToDevice);
  cufftHandle fwd, inv;
  cufftPlan1d(&fwd, m, CUFFT_R2C, 1);
  cufftPlan1d(&inv, m, CUFFT_C2R, 1);
  cufftExecR2C(fwd, dr, dc);
  cufftComplex spec[m / 2 + 1];
  cudaMemcpy(spec, dc, sizeof spec, cudaMemcpyDeviceToHost);
  cufftExecC2R(inv, dc, dr);
  cudaMemcpy(again, dr, sizeof again, cudaMemcpyDeviceToHost);
  double err = 0;
  for (int i = 0; i < m; ++i) err = std::fmax(err, std::fabs(again[i] / m - ramp[i]));
  std::printf("r2c: X0 %.4f X5 %.4f, X1 = (%.4f, %.4f), c2r back %d\n", r4(spec[0].x), r4(spec[5].x), r4(spec[1].x),
              r4(spec[1].y), err < 1e-5);
  cufftResult wrong = cufftExecC2C(fwd, dc, dc, CUFFT_FORWARD);
  std::printf("c2c on an r2c plan: %d\n", wrong == CUFFT_INVALID_TYPE);

  // 2D 4 x 8: DC is the sum, a round trip recovers the input
  const int rows = 4, cols = 8;
  std::vector<cufftDoubleComplex> g(rows * cols), g2(rows * cols);
  double sum = 0;
  for (int i = 0; i < rows * cols; ++i) { g[i] = make_cuDoubleComplex(i % 5, i % 3); sum += i % 5; }
  cufftDoubleComplex* dg;
  cudaMalloc(&dg, g.size() * sizeof(cufftDoubleComplex));
  cudaMemcpy(dg, g.data(), g.size() * sizeof(cufftDoubleComplex), cudaMemcpyHostToDevice);
  cufftHandle p2;
  cufftPlan2d(&p2, rows, cols, CUFFT_Z2Z);
  cufftExecZ2Z(p2, dg, dg, CUFFT_FORWARD);
  cudaMemcpy(g2.data(), dg, g2.size() * sizeof(cufftDoubleComplex), cudaMemcpyDeviceToHost);
  double dc0 = g2[0].x;
  cufftExecZ2Z(p2, dg, dg, CUFFT_INVERSE);
  cudaMemcpy(g2.data(), dg, g2.size() * sizeof(cufftDoubleComplex), cudaMemcpyDeviceToHost);
  err = 0;
  for (int i = 0; i < rows * cols; ++i) err = std::fmax(err, std::fabs(g2[i].x / (rows * cols) - g[i].x));
  std::printf("2d: DC %.4f = sum %.4f, round trip %d\n", r4(dc0), sum, err < 1e-12);

  // batched: three deltas at 0, 1, 2 in 16 samples; X1 of batch b is exp(-2 pi i b / 16)
  int len[1] = {n};
  cufftHandle pm;
  cufftPlanMany(&pm, 1, len, nullptr, 1, n, nullptr, 1, n, CUFFT_C2C, 3);
  std::vector<cufftComplex> batch(3 * n, make_cuFloatComplex(0, 0));
  for (int b = 0; b < 3; ++b) batch[b * n + b] = make_cuFloatComplex(1, 0);
  cufftComplex* db;
  cudaMalloc(&db, batch.size() * sizeof(cufftComplex));
  cudaMemcpy(db, batch.data(), batch.size() * sizeof(cufftComplex), cudaMemcpyHostToDevice);
  cufftExecC2C(pm, db, db, CUFFT_FORWARD);
  cudaMemcpy(batch.data(), db, batch.size() * sizeof(cufftComplex), cudaMemcpyDeviceToHost);
  std::printf("batched X1:");
  for (int b = 0; b < 3; ++b) std::printf(" (%.4f, %.4f)", r4(batch[b * n + 1].x), r4(batch[b * n + 1].y));
  std::printf("\n");
  cufftDestroy(pm);
  std::printf("destroyed twice: %d\n", cufftDestroy(pm) == CUFFT_INVALID_PLAN);
  return 0;
}
