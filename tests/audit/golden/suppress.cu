__global__ void k() {
  int lane = threadIdx.x % 32;  // port: ignore[warp-size-literal]
  int w = threadIdx.x / 32;  // port: ignore[inline-ptx] (wrong rule: still reported)  expect: warp-size-literal
  cudaNotARealApi();  // port: ignore[cuda-unmapped, warp-size-literal]
  cudaNotARealApi2();  // port: ignore[*]
}
