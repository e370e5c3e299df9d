// Teaching code that includes the CUDA samples' helpers from the toolkit's old samples/common/inc
// (PacktPublishing's Learn-CUDA-Programming: helper_timer.h in 25 files, helper_cuda.h): a
// timer around a kernel, checkCudaErrors, findCudaDevice and a `-n=` flag.
#include <cstdio>
#include <helper_cuda.h>
#include <helper_functions.h>

__global__ void bump(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}

int main(int argc, char** argv) {
  findCudaDevice(argc, (const char**)argv);
  int n = checkCmdLineFlag(argc, (const char**)argv, "n") ? getCmdLineArgumentInt(argc, (const char**)argv, "n") : 100;
  int* x;
  checkCudaErrors(cudaMallocManaged(&x, n * sizeof(int)));
  for (int i = 0; i < n; ++i) x[i] = i;
  StopWatchInterface* timer = nullptr;
  sdkCreateTimer(&timer);
  for (int rep = 0; rep < 3; ++rep) {
    sdkStartTimer(&timer);
    bump<<<(n + 63) / 64, 64>>>(x, n);
    getLastCudaError("bump");
    checkCudaErrors(cudaDeviceSynchronize());
    sdkStopTimer(&timer);
  }
  float total = sdkGetTimerValue(&timer), average = sdkGetAverageTimerValue(&timer);
  sdkResetTimer(&timer);
  float after_reset = sdkGetTimerValue(&timer);
  sdkDeleteTimer(&timer);
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += x[i];
  printf("n %d sum %ld timer_ok %d reset %g deleted %d\n", n, sum,
         (int)(total >= 0 && average >= 0 && average <= total), after_reset, (int)(timer == nullptr));
  checkCudaErrors(cudaFree(x));
  checkCudaErrors(cudaSetDevice(7));  // no such device: the helper reports it and exits 1
  printf("not reached\n");
  return 0;
}
