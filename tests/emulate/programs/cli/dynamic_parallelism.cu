#include <cstdio>
__global__ void child(int* x) { x[threadIdx.x] = 1; }
__global__ void parent(int* x) { if (threadIdx.x == 0) child<<<1, 4>>>(x); }
int main() { int* d; cudaMalloc(&d, 64); parent<<<1, 32>>>(d); cudaDeviceSynchronize(); printf("done\n"); return 0; }
