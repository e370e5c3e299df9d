// cuSPARSE's generic API on the CPU: SpMV (CSR and COO, float and double, transposed), SpMM
// (row- and column-major dense operands) and SparseToDense, each against a dense reference
// written here. The matrix is built by a kernel, so the library reads device-written memory.
#include <cstdio>
#include <cmath>
#include <cstdint>
#include <vector>
#include <cusparse.h>

#define CHECK(x) do { cusparseStatus_t s_ = (x); if (s_ != CUSPARSE_STATUS_SUCCESS) { \
  printf("%s failed: %s\n", #x, cusparseGetErrorString(s_)); return 1; } } while (0)

constexpr int R = 7, C = 5;

__global__ void dense_values(float* a) {   // a[r*C+c]: about half the entries are zero
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < R * C) a[i] = (i * 7 % 3 == 0) ? 0.0f : (float)((i * 5 % 9) - 4);
}

static int bad = 0;
static void expect_near(double got, double want) { if (std::fabs(got - want) > 1e-5 * (1 + std::fabs(want))) ++bad; }

int main() {
  float* dense;
  cudaMallocManaged(&dense, R * C * sizeof(float));
  dense_values<<<1, 64>>>(dense);
  cudaDeviceSynchronize();
  // CSR (32-bit, zero-based) and COO (64-bit, one-based) of the same matrix
  std::vector<int> off(1, 0), col;
  std::vector<int64_t> coo_r, coo_c;
  std::vector<float> val;
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c)
      if (dense[r * C + c] != 0.0f) { col.push_back(c); val.push_back(dense[r * C + c]); coo_r.push_back(r + 1); coo_c.push_back(c + 1); }
    off.push_back((int)col.size());
  }
  const int nnz = (int)val.size();
  int *d_off, *d_col; int64_t *d_r, *d_c; float *d_val, *x, *y, *xt, *yt; double *dval, *dx, *dy;
  cudaMalloc(&d_off, off.size() * 4); cudaMalloc(&d_col, nnz * 4); cudaMalloc(&d_val, nnz * 4);
  cudaMalloc(&d_r, nnz * 8); cudaMalloc(&d_c, nnz * 8);
  cudaMemcpy(d_off, off.data(), off.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(d_col, col.data(), nnz * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(d_val, val.data(), nnz * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(d_r, coo_r.data(), nnz * 8, cudaMemcpyHostToDevice);
  cudaMemcpy(d_c, coo_c.data(), nnz * 8, cudaMemcpyHostToDevice);
  cudaMallocManaged(&x, C * 4); cudaMallocManaged(&y, R * 4); cudaMallocManaged(&xt, R * 4); cudaMallocManaged(&yt, C * 4);
  cudaMallocManaged(&dval, nnz * 8); cudaMallocManaged(&dx, C * 8); cudaMallocManaged(&dy, R * 8);
  for (int i = 0; i < C; ++i) { x[i] = 0.5f * i - 1; dx[i] = x[i]; yt[i] = 1; }
  for (int i = 0; i < R; ++i) { y[i] = (float)i; dy[i] = i; xt[i] = 1.0f + i; }
  for (int i = 0; i < nnz; ++i) dval[i] = val[i];

  cusparseHandle_t h;
  CHECK(cusparseCreate(&h));
  CHECK(cusparseSetStream(h, 0));
  cusparseSpMatDescr_t csr, coo, csr64;
  CHECK(cusparseCreateCsr(&csr, R, C, nnz, d_off, d_col, d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CHECK(cusparseCreateCoo(&coo, R, C, nnz, d_r, d_c, d_val, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ONE, CUDA_R_32F));
  CHECK(cusparseCreateCsr(&csr64, R, C, nnz, d_off, d_col, dval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  int64_t rows, cols, n;
  CHECK(cusparseSpMatGetSize(coo, &rows, &cols, &n));
  if (rows != R || cols != C || n != nnz) ++bad;
  cusparseDnVecDescr_t vx, vy, vxt, vyt, vdx, vdy;
  CHECK(cusparseCreateDnVec(&vx, C, x, CUDA_R_32F)); CHECK(cusparseCreateDnVec(&vy, R, y, CUDA_R_32F));
  CHECK(cusparseCreateDnVec(&vxt, R, xt, CUDA_R_32F)); CHECK(cusparseCreateDnVec(&vyt, C, yt, CUDA_R_32F));
  CHECK(cusparseCreateDnVec(&vdx, C, dx, CUDA_R_64F)); CHECK(cusparseCreateDnVec(&vdy, R, dy, CUDA_R_64F));
  float alpha = 2, beta = 0.5f, zero = 0;
  double dalpha = 2, dbeta = 0.5;
  size_t bytes = 1;
  CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, csr, vx, &beta, vy, CUDA_R_32F,
                                CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
  void* buf;
  cudaMalloc(&buf, bytes + 1);
  std::vector<float> y0(y, y + R);
  CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, csr, vx, &beta, vy, CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, buf));
  CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &dalpha, csr64, vdx, &dbeta, vdy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buf));
  for (int r = 0; r < R; ++r) {
    double s = 0;
    for (int c = 0; c < C; ++c) s += dense[r * C + c] * x[c];
    expect_near(y[r], 2 * s + 0.5 * y0[r]);
    expect_near(dy[r], 2 * s + 0.5 * r);
  }
  // COO, transposed: yt = A^T xt (beta 0 ignores yt's old values)
  CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_TRANSPOSE, &alpha, coo, vxt, &zero, vyt, CUDA_R_32F, CUSPARSE_SPMV_COO_ALG1, buf));
  for (int c = 0; c < C; ++c) {
    double s = 0;
    for (int r = 0; r < R; ++r) s += dense[r * C + c] * xt[r];
    expect_near(yt[c], 2 * s);
  }
  // SpMM: C1 (R x 3, row-major) = A B (B C x 3, col-major); C2 (R x 3, col-major) from COO
  float *b, *c1, *c2, *back;
  cudaMallocManaged(&b, C * 3 * 4); cudaMallocManaged(&c1, R * 3 * 4); cudaMallocManaged(&c2, R * 3 * 4);
  cudaMallocManaged(&back, R * C * 4);
  for (int i = 0; i < C * 3; ++i) b[i] = (float)(i % 4) - 1.5f;
  for (int i = 0; i < R * 3; ++i) c1[i] = c2[i] = 1;
  cusparseDnMatDescr_t mb, mc1, mc2, mback;
  CHECK(cusparseCreateDnMat(&mb, C, 3, C, b, CUDA_R_32F, CUSPARSE_ORDER_COL));
  CHECK(cusparseCreateDnMat(&mc1, R, 3, 3, c1, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  CHECK(cusparseCreateDnMat(&mc2, R, 3, R, c2, CUDA_R_32F, CUSPARSE_ORDER_COL));
  CHECK(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, csr, mb,
                                &beta, mc1, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &bytes));
  CHECK(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, csr, mb, &beta, mc1,
                     CUDA_R_32F, CUSPARSE_SPMM_CSR_ALG1, buf));
  CHECK(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, coo, mb, &beta, mc2,
                     CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, buf));
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < C; ++k) s += dense[r * C + k] * b[j * C + k];
      expect_near(c1[r * 3 + j], 2 * s + 0.5);
      expect_near(c2[j * R + r], 2 * s + 0.5);
    }
  CHECK(cusparseCreateDnMat(&mback, R, C, C, back, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  CHECK(cusparseSparseToDense_bufferSize(h, coo, mback, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, &bytes));
  CHECK(cusparseSparseToDense(h, coo, mback, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, buf));
  for (int i = 0; i < R * C; ++i) expect_near(back[i], dense[i]);
  double sum = 0;
  for (int i = 0; i < R * 3; ++i) sum += c1[i];
  CHECK(cusparseDestroySpMat(csr)); CHECK(cusparseDestroySpMat(coo)); CHECK(cusparseDestroySpMat(csr64));
  CHECK(cusparseDestroyDnVec(vx)); CHECK(cusparseDestroyDnVec(vy)); CHECK(cusparseDestroyDnVec(vxt));
  CHECK(cusparseDestroyDnVec(vyt)); CHECK(cusparseDestroyDnVec(vdx)); CHECK(cusparseDestroyDnVec(vdy));
  CHECK(cusparseDestroyDnMat(mb)); CHECK(cusparseDestroyDnMat(mc1)); CHECK(cusparseDestroyDnMat(mc2));
  CHECK(cusparseDestroyDnMat(mback));
  CHECK(cusparseDestroy(h));
  printf("nnz %d mismatches %d checksum %.4f\n", nnz, bad, sum);
  return bad != 0;
}
