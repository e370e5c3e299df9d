void g(texture<float> tex, float* p, CUcontext ctx, CUdevice dev) {
  cudaBindTexture(0, tex, p);  // expect: hip-deprecated
  cuCtxCreate(&ctx, 0, dev);  // expect: hip-deprecated
  cudaProfilerStart();  // expect: hip-deprecated
  cudaCreateTextureObject(0, 0, 0, 0);
  cudaSetDevice(0);
}
