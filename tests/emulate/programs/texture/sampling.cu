// Texture objects over a CUDA array, linear memory and pitched memory, and a legacy texture
// reference: point and linear filtering, clamp/border/wrap/mirror, normalised coordinates and
// normalised-float reads of 8-bit texels. Each kernel writes what it read; main prints it.
#include <cstdio>

__global__ void read2d(cudaTextureObject_t t, const float2* at, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, at[i].x, at[i].y);
}
__global__ void fetch1d(cudaTextureObject_t t, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(t, i - 1);  // index -1 and n-1.. read outside: zero
}
__global__ void read1d_norm(cudaTextureObject_t t, const float* at, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1D<float4>(t, at[i]);
}
texture<int, 1, cudaReadModeElementType> legacy;
__global__ void legacy_fetch(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch(legacy, i) * 10;
}

static void print(const char* what, const float* v, int n) {
  printf("%s", what);
  for (int i = 0; i < n; ++i) printf(" %g", v[i]);
  printf("\n");
}

static cudaTextureObject_t make(cudaResourceDesc& rd, cudaTextureAddressMode am, cudaTextureFilterMode fm, int norm,
                                cudaTextureReadMode rm = cudaReadModeElementType) {
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = am;
  td.filterMode = fm;
  td.normalizedCoords = norm;
  td.readMode = rm;
  cudaTextureObject_t t = 0;
  cudaCreateTextureObject(&t, &rd, &td, nullptr);
  return t;
}

int main() {
  // a 4 x 3 image, value 10 * row + column, in a CUDA array
  const int W = 4, H = 3;
  float img[H][W];
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) img[y][x] = 10.0f * y + x;
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  cudaMallocArray(&arr, &fd, W, H);
  cudaMemcpy2DToArray(arr, 0, 0, img, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice);
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = arr;

  const int n = 6;
  float2 at_h[n] = {{0.5f, 0.5f}, {1.5f, 2.5f}, {1.0f, 0.5f}, {2.25f, 1.5f}, {-3.0f, 0.5f}, {9.0f, 1.75f}};
  float2* at;
  float *out, h[n];
  cudaMalloc(&at, sizeof at_h);
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(at, at_h, sizeof at_h, cudaMemcpyHostToDevice);

  cudaTextureObject_t point = make(rd, cudaAddressModeClamp, cudaFilterModePoint, 0);
  read2d<<<1, 64>>>(point, at, out, n);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  print("point clamp", h, n);
  cudaTextureObject_t linear = make(rd, cudaAddressModeClamp, cudaFilterModeLinear, 0);
  read2d<<<1, 64>>>(linear, at, out, n);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  print("linear clamp", h, n);
  cudaTextureObject_t border = make(rd, cudaAddressModeBorder, cudaFilterModePoint, 0);
  read2d<<<1, 64>>>(border, at, out, n);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  print("point border", h, n);
  // normalised coordinates: u in [0, 1) spans the 4 columns; wrap and mirror past the edges
  float2 un_h[n] = {{0.125f, 0.5f}, {0.375f, 0.5f}, {1.125f, 0.5f}, {-0.125f, 0.5f}, {1.375f, 0.1f}, {0.9f, 0.9f}};
  cudaMemcpy(at, un_h, sizeof un_h, cudaMemcpyHostToDevice);
  cudaTextureObject_t wrap = make(rd, cudaAddressModeWrap, cudaFilterModePoint, 1);
  read2d<<<1, 64>>>(wrap, at, out, n);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  print("wrap norm", h, n);
  cudaTextureObject_t mirror = make(rd, cudaAddressModeMirror, cudaFilterModePoint, 1);
  read2d<<<1, 64>>>(mirror, at, out, n);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  print("mirror norm", h, n);

  // linear memory: tex1Dfetch of i - 1
  float lin_h[5] = {1.5f, 2.5f, 3.5f, 4.5f, 5.5f}, *lin;
  cudaMalloc(&lin, sizeof lin_h);
  cudaMemcpy(lin, lin_h, sizeof lin_h, cudaMemcpyHostToDevice);
  cudaResourceDesc lrd = {};
  lrd.resType = cudaResourceTypeLinear;
  lrd.res.linear.devPtr = lin;
  lrd.res.linear.desc = fd;
  lrd.res.linear.sizeInBytes = sizeof lin_h;
  cudaTextureObject_t fetch = make(lrd, cudaAddressModeClamp, cudaFilterModePoint, 0);
  fetch1d<<<1, 64>>>(fetch, out, n);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  print("fetch", h, n);

  // uchar4 texels read as normalised floats, linearly filtered, from pitched memory (1 row)
  uchar4 px_h[2] = {{0, 255, 51, 102}, {255, 255, 0, 204}};
  uchar4* px;
  size_t pitch;
  cudaMallocPitch(&px, &pitch, sizeof px_h, 1);
  cudaMemcpy2D(px, pitch, px_h, sizeof px_h, sizeof px_h, 1, cudaMemcpyHostToDevice);
  cudaResourceDesc prd = {};
  prd.resType = cudaResourceTypePitch2D;
  prd.res.pitch2D.devPtr = px;
  prd.res.pitch2D.desc = cudaCreateChannelDesc<uchar4>();
  prd.res.pitch2D.width = 2;
  prd.res.pitch2D.height = 1;
  prd.res.pitch2D.pitchInBytes = pitch;
  cudaTextureObject_t rgba = make(prd, cudaAddressModeClamp, cudaFilterModeLinear, 1, cudaReadModeNormalizedFloat);
  float xs_h[3] = {0.25f, 0.5f, 0.625f}, *xs;
  float4* c4;
  float4 c4_h[3];
  cudaMalloc(&xs, sizeof xs_h);
  cudaMalloc(&c4, sizeof c4_h);
  cudaMemcpy(xs, xs_h, sizeof xs_h, cudaMemcpyHostToDevice);
  read1d_norm<<<1, 64>>>(rgba, xs, c4, 3);
  cudaMemcpy(c4_h, c4, sizeof c4_h, cudaMemcpyDeviceToHost);
  printf("rgba");
  for (int i = 0; i < 3; ++i) printf(" (%g %g %g %g)", c4_h[i].x, c4_h[i].y, c4_h[i].z, c4_h[i].w);
  printf("\n");

  // a legacy texture reference bound to linear memory
  int ints_h[4] = {7, 8, 9, 10}, *ints, *iout, iout_h[4];
  cudaMalloc(&ints, sizeof ints_h);
  cudaMalloc(&iout, sizeof iout_h);
  cudaMemcpy(ints, ints_h, sizeof ints_h, cudaMemcpyHostToDevice);
  cudaBindTexture(nullptr, legacy, ints, sizeof ints_h);
  legacy_fetch<<<1, 64>>>(iout, 4);
  cudaMemcpy(iout_h, iout, sizeof iout_h, cudaMemcpyDeviceToHost);
  printf("legacy %d %d %d %d\n", iout_h[0], iout_h[1], iout_h[2], iout_h[3]);
  cudaUnbindTexture(legacy);

  cudaDestroyTextureObject(point);
  cudaDestroyTextureObject(linear);
  cudaDestroyTextureObject(border);
  cudaDestroyTextureObject(wrap);
  cudaDestroyTextureObject(mirror);
  cudaDestroyTextureObject(fetch);
  cudaDestroyTextureObject(rgba);
  cudaFreeArray(arr);
  return 0;
}
