#include <cstdio>
#include <cublas_v2.h>
int main() { cublasHandle_t h; cublasCreate(&h); return 0; }
