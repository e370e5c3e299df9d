// Host code as nvcc compiles it: x86 inline assembly in host functions (a cycle counter, cpuid,
// fences, spin hints), empty asm statements as compiler barriers with any constraints (also in
// device code), and nvcc's own macros (__NVCC__, __CUDACC_VER_*) guarding the launcher.
#include <cstdint>
#include <cstdio>

static inline uint64_t counter() {
  unsigned lo, hi;
  asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

// a portable timer: only the branch of the host's CPU is compiled; the others are not refused
static inline unsigned long long ticks() {
  unsigned long long t = 0;
#if defined(__x86_64__) || defined(__i386__)
  unsigned lo, hi;
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  t = (static_cast<unsigned long long>(hi) << 32) | lo;
#elif defined(__aarch64__)
  asm volatile("isb; mrs %0, cntvct_el0" : "=r"(t));
#elif defined(__powerpc__)
  unsigned long tb;
  asm volatile("mftb %0" : "=r"(tb));
  t = tb;
#endif
  return t;
}

static unsigned max_leaf() {
  unsigned a, b, c, d;
  asm volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0u));
  return a;
}

template <class T> static inline void keep(T const& value) { asm volatile("" : : "g"(value) : "memory"); }

__global__ void square(int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = v[i];
    asm volatile("" : "+r"(x));  // a register barrier in device code
    v[i] = x * x;
  }
}

#ifdef __NVCC__
static void run(int* d, int n) { square<<<(n + 63) / 64, 64>>>(d, n); }
#else
static void run(int*, int) { std::printf("no launcher without __NVCC__\n"); }
#endif

int main() {
  uint64_t t0 = counter();
  const int n = 300;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i - 150;
  int* d = nullptr;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  asm volatile("mfence" ::: "memory");
  run(d, n);
  asm volatile("pause");
  asm volatile("rep; nop" ::: "memory");
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  long long sum = 0;
  for (int i = 0; i < n; ++i) sum += h[i];
  keep(sum);
  uint64_t t1 = counter();
  std::printf("squares %lld, counter advances %d, cpuid leaves %d, ticks %d\n", sum, t1 > t0, max_leaf() >= 1,
              ticks() > 0);
  std::printf("nvcc %d, version %d.%d.%d\n", __NVCC__, __CUDACC_VER_MAJOR__ >= 11, __CUDACC_VER_MINOR__ >= 0,
              __CUDACC_VER_BUILD__ >= 0);
  cudaFree(d);
  return 0;
}
