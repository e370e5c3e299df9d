// <cuComplex.h>: complex products summed per warp-sized chunk on the device, division and
// magnitude on the host; the same at every width (no warp operation).
#include <cstdio>
#include <cuComplex.h>

__global__ void mul(const cuFloatComplex* a, const cuFloatComplex* b, cuFloatComplex* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = cuCaddf(cuCmulf(a[i], b[i]), cuConjf(a[i]));
}

int main() {
  const int n = 100;
  cuFloatComplex a[n], b[n], c[n];
  for (int i = 0; i < n; ++i) { a[i] = make_cuFloatComplex(i, 1); b[i] = make_cuComplex(2, -i); }
  cuFloatComplex *da, *db, *dc;
  cudaMalloc(&da, sizeof a);
  cudaMalloc(&db, sizeof b);
  cudaMalloc(&dc, sizeof c);
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  mul<<<4, 32>>>(da, db, dc, n);
  cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
  // (i + 1j)(2 - ij) + (i - 1j) = 3i + (1 - i*i)j: 28 - 48j at i = 7
  printf("c[7] = %g %+gi\n", cuCrealf(c[7]), cuCimagf(c[7]));
  cuDoubleComplex q = cuCdiv(make_cuDoubleComplex(1e300, 1e300), make_cuDoubleComplex(1e300, -1e300));
  printf("q = %g %+gi, |3+4i| = %g\n", cuCreal(q), cuCimag(q), cuCabsf(make_cuFloatComplex(3, 4)));
  return 0;
}
