__global__ void k() {
  int lane = threadIdx.x % 32;  // port: ignore[warp-size-literal]
  int w = threadIdx.x / 32;  // port: ignore[inline-ptx] (wrong rule: still reported)  expect: warp-size-literal
  cudaArrayGetPlane(0, 0, 0);  // port: ignore[cuda-unmapped, hip-error-ignored]
  cudaArrayGetPlane(0, 0, 1);  // port: ignore[*]
  float v = __shfl_xor_sync(~0ull, 1.f, 1); int q = threadIdx.x / warpSize;  // lanes by 32, warps by warpSize: mixed
}
