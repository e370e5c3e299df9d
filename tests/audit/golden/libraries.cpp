#include <nvml.h>  // expect: cuda-only-library
#include "cudnn.h"  // expect: cuda-only-library
#include <nvshmem.h>  // expect: cuda-only-library
#include <cufile.h>  // expect: cuda-only-library
#include <cutlass/gemm/device/gemm.h>  // expect: cuda-only-library
#include <nccl.h>  // expect: rccl-link
#include <vector>
// #include <cudnn.h> in a comment is not an include
void f() {
  nvmlInit();
  cudnnCreate(&h);
  nvshmem_init();
  cuFileDriverOpen();
  cutlass::gemm::device::Gemm<float> g;
  ncclAllReduce(a, b, n, ncclFloat, ncclSum, comm, s);
}
