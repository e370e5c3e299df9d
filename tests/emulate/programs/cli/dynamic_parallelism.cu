#include <cstdio>
__global__ void child(int* x) { x[threadIdx.x] = 1; }
__global__ void parent(int* x) { if (threadIdx.x == 0) child<<<1, 4>>>(x); }
int main() {
  int* d;
  cudaMallocManaged(&d, 64);
  parent<<<1, 32>>>(d);
  cudaDeviceSynchronize();
  printf("done %d %d\n", d[0] + d[1] + d[2] + d[3], (int)cudaGetLastError());
  return 0;
}
