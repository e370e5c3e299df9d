// Portable warp-level primitives and the device pack's kernels (test_matrix/device/).
//
// Every lane count comes from warpSize and every lane mask is 64 bits wide, so one source is
// right on a 32-lane NVIDIA warp and on a 64-lane AMD CDNA wavefront. A 32-lane assumption
// (a first shuffle offset of 16, a scan that stops at 32, a 32-bit ballot, a 0xffffffff mask)
// gives wrong results at 64 lanes: on a ROCm GPU the device cases fail, and here `port emulate`
// at 64 lanes shows the same (tests/matrix/test_device_kernels.py injects each such bug).
//
// Compiled three ways: by torch.utils.cpp_extension on CUDA and ROCm hosts (hipified there),
// and by `port emulate` through warp_check.cu.
#pragma once

typedef unsigned long long port_lane_mask;

__device__ inline int port_lane() { return threadIdx.x % warpSize; }

// All lanes of this warp: 64 bits on a wave64 GPU.
__device__ inline port_lane_mask port_full_mask() {
  return warpSize >= 64 ? ~0ull : ((1ull << warpSize) - 1ull);
}

template <typename T>
__device__ inline T port_warp_sum(T v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(port_full_mask(), v, offset);
  return v;  // lane 0 holds the warp's sum
}

template <typename T>
__device__ inline T port_warp_max(T v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) {
    T other = __shfl_xor_sync(port_full_mask(), v, offset);
    v = other > v ? other : v;
  }
  return v;  // every lane holds the warp's maximum
}

template <typename T>
__device__ inline T port_warp_inclusive_scan(T v) {
  const int lane = port_lane();
  for (int offset = 1; offset < warpSize; offset *= 2) {
    T up = __shfl_up_sync(port_full_mask(), v, offset);
    if (lane >= offset) v += up;
  }
  return v;
}

__device__ inline int port_warp_count(bool predicate) {
  port_lane_mask votes = __ballot_sync(port_full_mask(), predicate);
  return __popcll(votes);
}

// ---- kernels (one value per warp, or one per element for the scan) -------------------------

__global__ void port_warp_size_kernel(int* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *out = warpSize;
}

__global__ void port_warp_sum_kernel(const float* x, int n, float* per_warp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = port_warp_sum(i < n ? x[i] : 0.0f);
  if (port_lane() == 0) per_warp[i / warpSize] = s;
}

__global__ void port_warp_max_kernel(const int* x, int n, int* per_warp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int m = port_warp_max(i < n ? x[i] : -2147483647 - 1);
  if (port_lane() == 0) per_warp[i / warpSize] = m;
}

__global__ void port_warp_scan_kernel(const int* x, int n, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int s = port_warp_inclusive_scan(i < n ? x[i] : 0);
  if (i < n) out[i] = s;
}

__global__ void port_warp_ballot_kernel(const float* x, int n, int* per_warp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int c = port_warp_count(i < n && x[i] > 0.0f);
  if (port_lane() == 0) per_warp[i / warpSize] = c;
}
