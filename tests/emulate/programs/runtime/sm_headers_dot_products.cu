// The toolkit's per-architecture headers (sm_35_intrinsics.h, sm_61_intrinsics.h, the atomic ones)
// are included by name in older programs; they resolve to the runtime. sm_61's integer dot products
// run in a kernel: __dp4a over bytes and __dp2a over 16-bit halves by bytes, signed and unsigned.
#include <cstdio>
#include <cuda_runtime.h>
#include <sm_20_atomic_functions.h>
#include <sm_35_intrinsics.h>
#include <sm_60_atomic_functions.h>
#include <sm_61_intrinsics.h>
#include <device_atomic_functions.h>

__global__ void dots(int* s, unsigned* u) {
  if (threadIdx.x != 0) return;
  s[0] = __dp4a(0x01FF0203, 0x04030201, 10);
  u[0] = __dp4a(0x01FF0203u, 0x04030201u, 10u);
  s[1] = __dp2a_lo((int)0xFFFE0003, 0x04030201, 0);
  s[2] = __dp2a_hi((int)0xFFFE0003, 0x04030201, 0);
  u[1] = __dp2a_lo(0xFFFE0003u, 0x04030201u, 0u);
  u[2] = __dp2a_hi(0xFFFE0003u, 0x04030201u, 0u);
  atomicAdd(&s[3], __ldg(&s[0]));
}

int main() {
  int* s = nullptr;
  unsigned* u = nullptr;
  cudaMallocManaged(&s, 4 * sizeof(int));
  cudaMallocManaged(&u, 3 * sizeof(unsigned));
  s[3] = 0;
  dots<<<1, 64>>>(s, u);
  cudaDeviceSynchronize();
  printf("dp4a %d %u\n", s[0], u[0]);
  printf("dp2a lo %d %u hi %d %u\n", s[1], u[1], s[2], u[2]);
  printf("atomic %d\n", s[3]);
  return 0;
}
