#include <dlfcn.h>  // audit-enable: string-cuda-name (opt-in)
void load() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW);  // expect: dlopen-cuda-library
  void* n = dlopen("libnvidia-ml.so.1", RTLD_LAZY);  // expect: dlopen-cuda-library
  void* r = dlopen("libamdhip64.so", RTLD_NOW);
  auto init = dlsym(h, "cuInit");  // expect: dlsym-cuda-symbol
  auto alloc = reinterpret_cast<void*>(dlsym(h, "cuMemAlloc_v2"));  // expect: dlsym-cuda-symbol
  auto mine = dlsym(h, "my_function");
  printf("cudaMalloc failed: %s\n", err);  // expect: string-cuda-name
  printf("allocation failed\n");
  const char* k = "cudaFancyNotAName";
  cuGetProcAddress("cuMemAlloc", &fn, 12000, 0, nullptr);  // expect: dlsym-cuda-symbol, cuda-unmapped
  cudaGetDriverEntryPoint("cuMemFree", &fn2, 0, nullptr);  // expect: dlsym-cuda-symbol, cuda-unmapped
}
