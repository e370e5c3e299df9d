// OpenMP host code, as cuda-samples' cudaOpenMP: a parallel region whose threads each launch a
// kernel on their own slice, then a host reduction. Built with -fopenmp because it uses omp.
#include <cstdio>
#include <omp.h>
#include <cuda_runtime.h>

__global__ void scale(int* v, int base, int factor) {
  int i = base + blockIdx.x * blockDim.x + threadIdx.x;
  v[i] = i * factor;
}

int main() {
  const int threads = 4, per = 256;
  int* v;
  cudaMallocManaged(&v, threads * per * sizeof(int));
  int seen = 0;
  omp_set_num_threads(threads);
#pragma omp parallel reduction(+ : seen)
  {
    int t = omp_get_thread_num();
    scale<<<per / 64, 64>>>(v, t * per, 3);
    cudaDeviceSynchronize();
    seen += 1 << t;
  }
  long long sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (int i = 0; i < threads * per; ++i) sum += v[i];
  printf("threads %d mask %d sum %lld\n", threads, seen, sum);
  return 0;
}
