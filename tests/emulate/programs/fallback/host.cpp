// A host-only file of the program, compiled by nvcc without CUDA's headers (its CPU fallback).
#ifndef NO_CUDA
#define NO_CUDA
#endif
#include "book.h"

__host__ __device__ int cpu_sum(const int* v, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += v[i];
  return s;
}
