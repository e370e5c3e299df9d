void g(texture<float> tex, float* p, CUcontext ctx, CUdevice dev) {
  cudaBindTexture(0, tex, p);  // expect: hip-deprecated, hip-error-ignored
  cuCtxCreate(&ctx, 0, dev);  // expect: hip-deprecated, hip-error-ignored
  cudaProfilerStart();  // expect: hip-deprecated, hip-error-ignored
  cudaCreateTextureObject(0, 0, 0, 0);  // expect: hip-error-ignored
  cudaSetDevice(0);  // expect: hip-error-ignored
}
