// Resource hints real programs set (cuda-samples' simpleAttributes, StreamPriorities,
// streamOrderedAllocation, newdelete): limits, an L2 access-policy window on a stream, stream
// priorities, memory pools. Each is accepted, validated and reported back; the kernel's result
// does not depend on any of them.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i * 2;
}

int main() {
  size_t heap = 0, stack = 0;
  cudaDeviceSetLimit(cudaLimitMallocHeapSize, (size_t)64 << 20);
  cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize);
  cudaDeviceGetLimit(&stack, cudaLimitStackSize);
  cudaError_t bad_limit = cudaDeviceSetLimit((cudaLimit)99, 1);
  cudaGetLastError();

  int least = 1, greatest = 1;
  cudaDeviceGetStreamPriorityRange(&least, &greatest);
  cudaStream_t hi, lo;
  cudaStreamCreateWithPriority(&hi, cudaStreamNonBlocking, greatest - 10);  // clamped to the range
  cudaStreamCreateWithPriority(&lo, cudaStreamDefault, least);
  int phi = 1, plo = 1;
  cudaStreamGetPriority(hi, &phi);
  cudaStreamGetPriority(lo, &plo);

  const int n = 1000;
  int* data;
  cudaMalloc(&data, n * sizeof(int));
  cudaStreamAttrValue attr{};
  attr.accessPolicyWindow.base_ptr = data;
  attr.accessPolicyWindow.num_bytes = n * sizeof(int);
  attr.accessPolicyWindow.hitRatio = 0.6f;
  attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  cudaStreamSetAttribute(hi, cudaStreamAttributeAccessPolicyWindow, &attr);
  cudaStreamAttrValue back{};
  cudaStreamGetAttribute(hi, cudaStreamAttributeAccessPolicyWindow, &back);
  attr.accessPolicyWindow.hitRatio = 1.5f;
  cudaError_t bad_ratio = cudaStreamSetAttribute(hi, cudaStreamAttributeAccessPolicyWindow, &attr);
  cudaGetLastError();
  fill<<<(n + 127) / 128, 128, 0, hi>>>(data, n);
  cudaCtxResetPersistingL2Cache();

  cudaMemPool_t pool;
  cudaDeviceGetDefaultMemPool(&pool, 0);
  unsigned long long threshold = ~0ull;
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  int* a;
  int* b;
  cudaMallocAsync(&a, 4096, lo);
  cudaMallocAsync(&b, 1024, lo);
  unsigned long long used = 0, high = 0;
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used);
  cudaFreeAsync(a, lo);
  unsigned long long after = 0;
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &after);
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high);
  cudaMemcpyAsync(b, data + 10, 1024, cudaMemcpyDeviceToDevice, lo);

  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t own;
  cudaMemPoolCreate(&own, &props);
  cudaMemAccessDesc desc{};
  desc.location = props.location;
  desc.flags = cudaMemAccessFlagsProtReadWrite;
  cudaMemPoolSetAccess(own, &desc, 1);
  cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
  cudaMemPoolGetAccess(&flags, own, &props.location);
  int* c;
  cudaMallocFromPoolAsync(&c, 512, own, hi);
  unsigned long long own_used = 0;
  cudaMemPoolGetAttribute(own, cudaMemPoolAttrUsedMemCurrent, &own_used);
  cudaStreamSynchronize(lo);

  int first = 0;
  cudaMemcpy(&first, b, sizeof first, cudaMemcpyDeviceToHost);
  printf("heap %zu stack %zu bad_limit %s range %d %d prio %d %d\n", heap >> 20, stack,
         cudaGetErrorName(bad_limit), least, greatest, phi, plo);
  printf("window %.1f %d %d bad_ratio %s\n", back.accessPolicyWindow.hitRatio, (int)back.accessPolicyWindow.hitProp,
         (int)(back.accessPolicyWindow.base_ptr == data), cudaGetErrorName(bad_ratio));
  printf("pool used %llu after %llu high %llu own %llu access %d first %d\n", used, after, high, own_used, (int)flags,
         first);
  cudaFree(c);
  cudaMemPoolDestroy(own);
  cudaFreeAsync(b, lo);
  cudaFree(data);
  return 0;
}
