__device__ unsigned lane_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));  // expect: inline-ptx
  asm("membar.gl;");  // expect: inline-ptx
  __asm__ __volatile__("bar.sync 0;");  // expect: inline-ptx
  int basm = 0; fasm(basm);
  return id;
}
