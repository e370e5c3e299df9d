// x86 inline assembly in host-only code is not PTX: no finding.
static inline unsigned long long rdtsc() {
  unsigned lo, hi;
  asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return ((unsigned long long)hi << 32) | lo;
}
static inline void ptx_in_cpp() {
  asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(lo) : "l"(p));  // expect: inline-ptx
}
