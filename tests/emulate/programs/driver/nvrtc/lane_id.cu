// The hardware lane id (PTX %laneid), which the host reads as "i % 32": at 64 lanes it counts to 63.
extern "C" __global__ void lanes(int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  out[i] = lane;
}
