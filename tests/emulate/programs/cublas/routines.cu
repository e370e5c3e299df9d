// cuBLAS's common routines on small column-major inputs whose results are exact in binary
// floating point, around an emulated kernel that prepares an operand; every result is printed.
#include <cublas_v2.h>
#include <cstdio>

#define CHECK(call) do { cublasStatus_t s_ = (call); if (s_ != CUBLAS_STATUS_SUCCESS) { \
  printf("%s failed: %s\n", #call, cublasGetStatusString(s_)); return 1; } } while (0)

__global__ void iota(float* v, int n, float start) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = start + i;
}

int main() {
  cublasHandle_t h;
  CHECK(cublasCreate(&h));
  cudaStream_t s;
  cudaStreamCreate(&s);
  CHECK(cublasSetStream(h, s));

  // A (2 x 3) = [1 2 3; 4 5 6] column-major; B (3 x 2) = [1 0; 0 1; 1 1]
  float A_h[6] = {1, 4, 2, 5, 3, 6}, B_h[6] = {1, 0, 1, 0, 1, 1}, *A, *B, *C, C_h[4];
  cudaMalloc(&A, sizeof A_h);
  cudaMalloc(&B, sizeof B_h);
  cudaMalloc(&C, sizeof C_h);
  CHECK(cublasSetMatrix(2, 3, sizeof(float), A_h, 2, A, 2));
  cudaMemcpy(B, B_h, sizeof B_h, cudaMemcpyHostToDevice);
  float one = 1, zero = 0, two = 2;
  CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, A, 2, B, 3, &zero, C, 2));
  cudaMemcpy(C_h, C, sizeof C_h, cudaMemcpyDeviceToHost);
  printf("sgemm %g %g %g %g\n", C_h[0], C_h[1], C_h[2], C_h[3]);
  // C = 2 * A^T-shaped product: (B^T (2x3)) x (A^T (3x2)) + C
  CHECK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_T, 2, 2, 3, &two, B, 3, A, 2, &one, C, 2));
  cudaMemcpy(C_h, C, sizeof C_h, cudaMemcpyDeviceToHost);
  printf("sgemm TT %g %g %g %g\n", C_h[0], C_h[1], C_h[2], C_h[3]);

  double Ad[4] = {1, 2, 3, 4}, Bd[4] = {0.5, 0, 0, 0.25}, Cd[4] = {1, 1, 1, 1}, *dA, *dB, *dC;
  cudaMalloc(&dA, sizeof Ad);
  cudaMalloc(&dB, sizeof Bd);
  cudaMalloc(&dC, sizeof Cd);
  cudaMemcpy(dA, Ad, sizeof Ad, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, Bd, sizeof Bd, cudaMemcpyHostToDevice);
  cudaMemcpy(dC, Cd, sizeof Cd, cudaMemcpyHostToDevice);
  double done = 1, dhalf = 0.5;
  CHECK(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &done, dA, 2, dB, 2, &dhalf, dC, 2));
  cudaMemcpy(Cd, dC, sizeof Cd, cudaMemcpyDeviceToHost);
  printf("dgemm %g %g %g %g\n", Cd[0], Cd[1], Cd[2], Cd[3]);

  // two 2x2 products in one strided batch, and GemmEx over floats
  float Sb_h[8] = {1, 0, 0, 1, 2, 0, 0, 2}, Tb_h[8] = {1, 2, 3, 4, 1, 2, 3, 4}, *Sb, *Tb, *Ub, Ub_h[8];
  cudaMalloc(&Sb, sizeof Sb_h);
  cudaMalloc(&Tb, sizeof Tb_h);
  cudaMalloc(&Ub, sizeof Ub_h);
  cudaMemcpy(Sb, Sb_h, sizeof Sb_h, cudaMemcpyHostToDevice);
  cudaMemcpy(Tb, Tb_h, sizeof Tb_h, cudaMemcpyHostToDevice);
  CHECK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, Sb, 2, 4, Tb, 2, 4, &zero, Ub, 2, 4, 2));
  cudaMemcpy(Ub_h, Ub, sizeof Ub_h, cudaMemcpyDeviceToHost);
  printf("batched");
  for (float v : Ub_h) printf(" %g", v);
  printf("\n");
  CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, A, CUDA_R_32F, 2, B, CUDA_R_32F, 3, &zero, C,
                     CUDA_R_32F, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  cudaMemcpy(C_h, C, sizeof C_h, cudaMemcpyDeviceToHost);
  printf("gemmex %g %g %g %g\n", C_h[0], C_h[1], C_h[2], C_h[3]);

  // level 1 and 2 on x = 1..8 (a kernel writes it), y = 8 ones
  const int n = 8;
  float *x, *y, y_h[n], r;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  iota<<<1, 64>>>(x, n, 1.0f);
  float ones[n] = {1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(cublasSetVector(n, sizeof(float), ones, 1, y, 1));
  CHECK(cublasSdot(h, n, x, 1, y, 1, &r));
  printf("sdot %g", r);
  CHECK(cublasSnrm2(h, 4, x, 2, &r));  // x[0], x[2], x[4], x[6] = 1 3 5 7
  printf(" snrm2 %g", r * r);
  int imax;
  CHECK(cublasIsamax(h, n, x, 1, &imax));
  printf(" isamax %d\n", imax);
  CHECK(cublasSaxpy(h, n, &two, x, 1, y, 1));
  CHECK(cublasSscal(h, n, &two, y, 1));
  CHECK(cublasGetVector(n, sizeof(float), y, 1, y_h, 1));
  printf("saxpy+sscal");
  for (float v : y_h) printf(" %g", v);
  printf("\n");
  float gx[3] = {1, 1, 1}, gy[2] = {0, 0}, *vx, *vy;
  cudaMalloc(&vx, sizeof gx);
  cudaMalloc(&vy, sizeof gy);
  cudaMemcpy(vx, gx, sizeof gx, cudaMemcpyHostToDevice);
  cudaMemcpy(vy, gy, sizeof gy, cudaMemcpyHostToDevice);
  CHECK(cublasSgemv(h, CUBLAS_OP_N, 2, 3, &one, A, 2, vx, 1, &zero, vy, 1));
  cudaMemcpy(gy, vy, sizeof gy, cudaMemcpyDeviceToHost);
  printf("sgemv %g %g\n", gy[0], gy[1]);
  CHECK(cublasDestroy(h));
  cudaStreamDestroy(s);
  return 0;
}
