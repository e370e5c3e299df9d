// Thrust's common algorithms around emulated kernels (port emulate compiles Thrust with its CPP
// device system): a kernel writes into a device_vector through raw_pointer_cast, Thrust reads
// cudaMalloc'd memory through a device_ptr, and every result is printed for the test to check.
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>
#include <cstdio>

struct square {
  __host__ __device__ int operator()(int x) const { return x * x; }
};
struct is_odd {
  __host__ __device__ bool operator()(int x) const { return x % 2 != 0; }
};

// (i * 37) % 101 for i < n: a permutation-like input with repeats once taken mod 10
__global__ void scramble(int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = (i * 37) % 101;
}

__global__ void add_index(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + i;
}

int main() {
  const int n = 100;
  thrust::device_vector<int> v(n);
  scramble<<<(n + 63) / 64, 64>>>(thrust::raw_pointer_cast(v.data()), n);
  cudaDeviceSynchronize();
  printf("reduce %d max %d\n", thrust::reduce(v.begin(), v.end()),
         thrust::reduce(v.begin(), v.end(), 0, thrust::maximum<int>()));

  thrust::device_vector<int> sorted = v;
  thrust::sort(sorted.begin(), sorted.end());
  printf("sorted %d %d %d .. %d\n", (int)sorted[0], (int)sorted[1], (int)sorted[2], (int)sorted[n - 1]);

  thrust::device_vector<int> sq(n);
  thrust::transform(v.begin(), v.begin() + 10, sq.begin(), square());
  thrust::host_vector<int> h(sq.begin(), sq.begin() + 10);
  printf("squares");
  for (int i = 0; i < 10; ++i) printf(" %d", h[i]);
  printf("\n");

  thrust::device_vector<int> seq(8), inc(8), exc(8);
  thrust::sequence(seq.begin(), seq.end(), 1);
  thrust::inclusive_scan(seq.begin(), seq.end(), inc.begin());
  thrust::exclusive_scan(seq.begin(), seq.end(), exc.begin(), 10);
  printf("scans %d %d %d / %d %d %d\n", (int)inc[0], (int)inc[3], (int)inc[7], (int)exc[0], (int)exc[1],
         (int)exc[7]);

  thrust::device_vector<int> odd(n);
  auto odd_end = thrust::copy_if(v.begin(), v.end(), odd.begin(), is_odd());
  long odds = odd_end - odd.begin();
  printf("copy_if %ld first %d count(v == 74) %ld\n", odds, (int)odd[0],
         (long)thrust::count(v.begin(), v.end(), 74));

  thrust::device_vector<int> keys(6), vals(6);
  int k[6] = {3, 1, 2, 1, 3, 0}, w[6] = {30, 10, 20, 11, 31, 0};
  thrust::copy(k, k + 6, keys.begin());
  thrust::copy(w, w + 6, vals.begin());
  thrust::stable_sort_by_key(keys.begin(), keys.end(), vals.begin());
  printf("by key");
  for (int i = 0; i < 6; ++i) printf(" %d:%d", (int)keys[i], (int)vals[i]);
  printf("\n");
  auto uend = thrust::unique(keys.begin(), keys.end());
  printf("unique %ld\n", (long)(uend - keys.begin()));

  // cudaMalloc'd memory seen by Thrust, then by a kernel
  int *raw, *out;
  cudaMalloc(&raw, n * sizeof(int));
  cudaMalloc(&out, n * sizeof(int));
  thrust::device_ptr<int> p(raw);
  thrust::fill(p, p + n, 2);
  add_index<<<2, 64>>>(raw, out, n);
  cudaDeviceSynchronize();
  int host[n];
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  printf("fill+kernel %d %d sum %d\n", host[0], host[n - 1],
         thrust::reduce(thrust::device_pointer_cast(out), thrust::device_pointer_cast(out) + n));
  cudaFree(raw);
  cudaFree(out);
  return 0;
}
