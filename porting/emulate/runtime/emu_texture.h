// rocm-port `port emulate`, part of emu_runtime.h: CUDA arrays and textures, read on the CPU.
//
// A cudaArray is host memory holding width x height x depth texels, rows packed; a texture
// object is a handle to a description of its memory (an array, linear memory or pitched 2D
// memory) and of how it is sampled. tex1Dfetch/tex1D/tex2D/tex3D/tex*Layered compute what
// the texture unit returns: coordinates normalised or not, the address modes (clamp, border,
// wrap and mirror, the last two with normalised coordinates only, as on the GPU), point or
// linear filtering with the hardware's 8-bit fraction of the weights (CUDA Programming Guide,
// "Linear Filtering"), and integer texels read as normalised floats. Nothing depends on the
// warp width. Legacy texture references (texture<T, dim, mode>, removed in CUDA 12) are bound
// with cudaBindTexture/2D/ToArray and sampled the same way. Header-only: nothing here is state
// the scheduler sees; a texture read is a plain load.
#pragma once
#include <cmath>
#include <cstring>

enum cudaChannelFormatKind {
  cudaChannelFormatKindSigned = 0, cudaChannelFormatKindUnsigned = 1, cudaChannelFormatKindFloat = 2,
  cudaChannelFormatKindNone = 3
};
struct cudaChannelFormatDesc { int x, y, z, w; cudaChannelFormatKind f; };
struct cudaExtent { size_t width, height, depth; };
struct cudaPos { size_t x, y, z; };
struct cudaPitchedPtr { void* ptr; size_t pitch, xsize, ysize; };
EMU_INL cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) { return cudaExtent{w, h, d}; }
EMU_INL cudaPos make_cudaPos(size_t x, size_t y, size_t z) { return cudaPos{x, y, z}; }
EMU_INL cudaPitchedPtr make_cudaPitchedPtr(void* p, size_t pitch, size_t xs, size_t ys) { return cudaPitchedPtr{p, pitch, xs, ys}; }

#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap 0x04
#define cudaArrayTextureGather 0x08

struct cudaArray {
  cudaChannelFormatDesc desc;
  size_t width, height, depth;  // texels; height and depth at least 1 (layers: depth)
  unsigned int flags;
  size_t texel;                 // bytes per texel
  unsigned char* data;          // rows of width * texel bytes, packed
};
typedef cudaArray* cudaArray_t;
typedef const cudaArray* cudaArray_const_t;

namespace emu {
EMU_INL size_t texel_bytes(const cudaChannelFormatDesc& d) { return size_t(d.x + d.y + d.z + d.w) / 8; }
EMU_INL int texel_channels(const cudaChannelFormatDesc& d) { return (d.x > 0) + (d.y > 0) + (d.z > 0) + (d.w > 0); }

// the channel format of T, as cudaCreateChannelDesc<T>() reports it
template <class T> struct channel_of;
#define EMU_CHANNEL(V, B, K)                                                                          \
  template <> struct channel_of<V##1> { static constexpr cudaChannelFormatDesc v{B, 0, 0, 0, K}; };  \
  template <> struct channel_of<V##2> { static constexpr cudaChannelFormatDesc v{B, B, 0, 0, K}; };  \
  template <> struct channel_of<V##4> { static constexpr cudaChannelFormatDesc v{B, B, B, B, K}; };
#define EMU_CHANNEL_SCALAR(T, B, K) template <> struct channel_of<T> { static constexpr cudaChannelFormatDesc v{B, 0, 0, 0, K}; };
EMU_CHANNEL(float, 32, cudaChannelFormatKindFloat)
EMU_CHANNEL(int, 32, cudaChannelFormatKindSigned)
EMU_CHANNEL(uint, 32, cudaChannelFormatKindUnsigned)
EMU_CHANNEL(short, 16, cudaChannelFormatKindSigned)
EMU_CHANNEL(ushort, 16, cudaChannelFormatKindUnsigned)
EMU_CHANNEL(char, 8, cudaChannelFormatKindSigned)
EMU_CHANNEL(uchar, 8, cudaChannelFormatKindUnsigned)
EMU_CHANNEL_SCALAR(float, 32, cudaChannelFormatKindFloat)
EMU_CHANNEL_SCALAR(int, 32, cudaChannelFormatKindSigned)
EMU_CHANNEL_SCALAR(short, 16, cudaChannelFormatKindSigned)
EMU_CHANNEL_SCALAR(char, 8, cudaChannelFormatKindSigned)
EMU_CHANNEL_SCALAR(unsigned int, 32, cudaChannelFormatKindUnsigned)
EMU_CHANNEL_SCALAR(unsigned short, 16, cudaChannelFormatKindUnsigned)
EMU_CHANNEL_SCALAR(signed char, 8, cudaChannelFormatKindSigned)
EMU_CHANNEL_SCALAR(unsigned char, 8, cudaChannelFormatKindUnsigned)
EMU_CHANNEL_SCALAR(long, 32, cudaChannelFormatKindSigned)  // CUDA's channel_descriptor.h: long is 32-bit there
EMU_CHANNEL_SCALAR(unsigned long, 32, cudaChannelFormatKindUnsigned)
#undef EMU_CHANNEL
#undef EMU_CHANNEL_SCALAR
}  // namespace emu

template <class T> EMU_INL cudaChannelFormatDesc cudaCreateChannelDesc() { return emu::channel_of<T>::v; }
EMU_INL cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}
EMU_INL cudaChannelFormatDesc cudaCreateChannelDescHalf() { return {16, 0, 0, 0, cudaChannelFormatKindFloat}; }
EMU_INL cudaChannelFormatDesc cudaCreateChannelDescHalf2() { return {16, 16, 0, 0, cudaChannelFormatKindFloat}; }
EMU_INL cudaChannelFormatDesc cudaCreateChannelDescHalf4() { return {16, 16, 16, 16, cudaChannelFormatKindFloat}; }

// ---- arrays ----------------------------------------------------------------------------------
inline cudaError_t cudaMalloc3DArray(cudaArray_t* a, const cudaChannelFormatDesc* desc, cudaExtent e, unsigned int flags = 0) {
  size_t texel = emu::texel_bytes(*desc);
  if (!a || texel == 0 || e.width == 0) return cudaErrorInvalidValue;
  size_t h = e.height ? e.height : 1, d = e.depth ? e.depth : 1;
  auto* arr = new cudaArray{*desc, e.width, h, d, flags, texel, nullptr};
  arr->data = static_cast<unsigned char*>(std::calloc(e.width * h * d, texel));
  if (!arr->data) { delete arr; return cudaErrorMemoryAllocation; }
  *a = arr;
  return cudaSuccess;
}
inline cudaError_t cudaMallocArray(cudaArray_t* a, const cudaChannelFormatDesc* desc, size_t w, size_t h = 0, unsigned int flags = 0) {
  return cudaMalloc3DArray(a, desc, make_cudaExtent(w, h, 0), flags);
}
inline cudaError_t cudaFreeArray(cudaArray_t a) {
  if (a) { std::free(a->data); delete a; }
  return cudaSuccess;
}
inline cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* e, unsigned int* flags, cudaArray_t a) {
  if (desc) *desc = a->desc;
  if (e) *e = make_cudaExtent(a->width, a->height, a->depth);
  if (flags) *flags = a->flags;
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch,
                                       size_t width, size_t height, cudaMemcpyKind = cudaMemcpyHostToDevice) {
  size_t row = dst->width * dst->texel;
  if (wOffset + width > row || hOffset + height > dst->height * dst->depth) return cudaErrorInvalidValue;
  for (size_t r = 0; r < height; ++r)
    std::memcpy(dst->data + (hOffset + r) * row + wOffset, static_cast<const char*>(src) + r * spitch, width);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                         size_t width, size_t height, cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  size_t row = src->width * src->texel;
  if (wOffset + width > row || hOffset + height > src->height * src->depth) return cudaErrorInvalidValue;
  for (size_t r = 0; r < height; ++r)
    std::memcpy(static_cast<char*>(dst) + r * dpitch, src->data + (hOffset + r) * row + wOffset, width);
  return cudaSuccess;
}
// the deprecated 1D forms copy `count` bytes from (wOffset bytes, hOffset rows) on, across rows
inline cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                                     cudaMemcpyKind = cudaMemcpyHostToDevice) {
  size_t at = hOffset * dst->width * dst->texel + wOffset;
  if (at + count > dst->width * dst->height * dst->depth * dst->texel) return cudaErrorInvalidValue;
  std::memcpy(dst->data + at, src, count);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                       cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  size_t at = hOffset * src->width * src->texel + wOffset;
  if (at + count > src->width * src->height * src->depth * src->texel) return cudaErrorInvalidValue;
  std::memcpy(dst, src->data + at, count);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wo, size_t ho, const void* src, size_t sp, size_t w,
                                            size_t h, cudaMemcpyKind k, cudaStream_t s = nullptr) {
  if (emu::capture(s, cudaGraphNodeTypeMemcpy, [=] { cudaMemcpy2DToArray(dst, wo, ho, src, sp, w, h, k); })) return cudaSuccess;
  return cudaMemcpy2DToArray(dst, wo, ho, src, sp, w, h, k);
}
inline cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wo, size_t ho, const void* src, size_t n, cudaMemcpyKind k,
                                          cudaStream_t s = nullptr) {
  if (emu::capture(s, cudaGraphNodeTypeMemcpy, [=] { cudaMemcpyToArray(dst, wo, ho, src, n, k); })) return cudaSuccess;
  return cudaMemcpyToArray(dst, wo, ho, src, n, k);
}

struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  cudaExtent extent;  // texels where an array is involved, else width in bytes
  cudaMemcpyKind kind;
};
namespace emu {
// one side of a 3D copy: its first byte, row pitch and slice pitch
struct Side3D { unsigned char* base; size_t pitch, slice; };
inline Side3D side3d(cudaArray_t arr, cudaPos pos, cudaPitchedPtr p, size_t texel) {
  if (arr) {
    size_t pitch = arr->width * arr->texel, slice = pitch * arr->height;
    return {arr->data + pos.z * slice + pos.y * pitch + pos.x * arr->texel, pitch, slice};
  }
  size_t slice = p.pitch * p.ysize;
  return {static_cast<unsigned char*>(p.ptr) + pos.z * slice + pos.y * p.pitch + pos.x * texel, p.pitch, slice};
}
}  // namespace emu
inline cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  cudaArray_t arr = p->srcArray ? p->srcArray : p->dstArray;
  size_t texel = arr ? arr->texel : 1;  // without an array, positions and the width are bytes
  emu::Side3D s = emu::side3d(p->srcArray, p->srcPos, p->srcPtr, texel);
  emu::Side3D d = emu::side3d(p->dstArray, p->dstPos, p->dstPtr, texel);
  size_t row = p->extent.width * texel, h = p->extent.height ? p->extent.height : 1, n = p->extent.depth ? p->extent.depth : 1;
  for (size_t z = 0; z < n; ++z)
    for (size_t y = 0; y < h; ++y) std::memcpy(d.base + z * d.slice + y * d.pitch, s.base + z * s.slice + y * s.pitch, row);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t s = nullptr) {
  cudaMemcpy3DParms q = *p;
  if (emu::capture(s, cudaGraphNodeTypeMemcpy, [q] { cudaMemcpy3D(&q); })) return cudaSuccess;
  return cudaMemcpy3D(p);
}
inline cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t*, size_t, const cudaMemcpy3DParms* p) {
  cudaMemcpy3DParms q = *p;
  *n = emu::add_node(g, cudaGraphNodeTypeMemcpy, [q] { cudaMemcpy3D(&q); });
  return cudaSuccess;
}
inline cudaError_t cudaMalloc3D(cudaPitchedPtr* p, cudaExtent e) {
  size_t pitch = (e.width + 255) / 256 * 256, h = e.height ? e.height : 1, d = e.depth ? e.depth : 1;
  void* mem = nullptr;
  cudaError_t err = cudaMalloc(&mem, pitch * h * d);
  if (err == cudaSuccess) *p = make_cudaPitchedPtr(mem, pitch, e.width, h);
  return err;
}

// ---- texture objects -------------------------------------------------------------------------
enum cudaResourceType { cudaResourceTypeArray = 0, cudaResourceTypeMipmappedArray = 1, cudaResourceTypeLinear = 2,
                        cudaResourceTypePitch2D = 3 };
enum cudaTextureAddressMode { cudaAddressModeWrap = 0, cudaAddressModeClamp = 1, cudaAddressModeMirror = 2,
                              cudaAddressModeBorder = 3 };
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
struct emu_mipmapped_array;
typedef emu_mipmapped_array* cudaMipmappedArray_t;
struct cudaResourceDesc {
  cudaResourceType resType;
  union {
    struct { cudaArray_t array; } array;
    struct { cudaMipmappedArray_t mipmap; } mipmap;
    struct { void* devPtr; cudaChannelFormatDesc desc; size_t sizeInBytes; } linear;
    struct { void* devPtr; cudaChannelFormatDesc desc; size_t width, height, pitchInBytes; } pitch2D;
  } res;
  unsigned int flags;
};
struct cudaTextureDesc {
  cudaTextureAddressMode addressMode[3];
  cudaTextureFilterMode filterMode;
  cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  int disableTrilinearOptimization, seamlessCubemap;
};
struct cudaResourceViewDesc { int format; size_t width, height, depth; unsigned firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer; };
typedef unsigned long long cudaTextureObject_t;

namespace emu {
struct Texture {
  const unsigned char* base;
  size_t width, height, depth;  // texels
  size_t pitch, slice;          // bytes
  cudaChannelFormatDesc desc;
  size_t texel;
  cudaTextureDesc td;
  cudaResourceDesc rd;          // as created, for cudaGetTextureObjectResourceDesc
};

EMU_INL float half_bits_to_float(unsigned short h) {
  unsigned sign = (h >> 15) & 1, exp = (h >> 10) & 31, man = h & 1023;
  float v = exp == 0 ? std::ldexp(float(man), -24) : exp == 31 ? (man ? NAN : INFINITY) : std::ldexp(float(man | 1024), int(exp) - 25);
  return sign ? -v : v;
}

// channel c of the texel at p as a float: the value itself (float kinds, or integers read as
// element type and then filtered) or, for cudaReadModeNormalizedFloat, mapped to [0, 1] / [-1, 1]
inline float channel(const Texture& t, const unsigned char* p, int c) {
  int bits = t.desc.x;  // CUDA's formats have equal channel sizes
  const unsigned char* q = p + size_t(c) * bits / 8;
  bool norm = t.td.readMode == cudaReadModeNormalizedFloat;
  if (t.desc.f == cudaChannelFormatKindFloat) {
    if (bits == 16) { unsigned short h; std::memcpy(&h, q, 2); return half_bits_to_float(h); }
    float f; std::memcpy(&f, q, 4); return f;
  }
  bool is_signed = t.desc.f == cudaChannelFormatKindSigned;
  long long v = 0;
  if (bits == 8) v = is_signed ? (long long)*(const signed char*)q : (long long)*q;
  else if (bits == 16) { short s; std::memcpy(&s, q, 2); v = is_signed ? (long long)s : (long long)(unsigned short)s; }
  else { int s; std::memcpy(&s, q, 4); v = is_signed ? (long long)s : (long long)(unsigned)s; }
  if (!norm || bits == 32) return float(v);
  double top = is_signed ? double((1LL << (bits - 1)) - 1) : double((1LL << bits) - 1);
  return float(std::max(-1.0, double(v) / top));
}

// an integer texel coordinate after the address mode; -1: outside (border)
inline long long address(const Texture& t, long long i, long long n, int dim) {
  cudaTextureAddressMode m = t.td.addressMode[dim];
  // wrap and mirror need normalised coordinates; otherwise the GPU clamps
  if (!t.td.normalizedCoords && (m == cudaAddressModeWrap || m == cudaAddressModeMirror)) m = cudaAddressModeClamp;
  if (m == cudaAddressModeBorder) return (i < 0 || i >= n) ? -1 : i;
  if (m == cudaAddressModeWrap) return ((i % n) + n) % n;
  if (m == cudaAddressModeMirror) {
    long long k = ((i % (2 * n)) + 2 * n) % (2 * n);
    return k < n ? k : 2 * n - 1 - k;
  }
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

inline const Texture& texture(cudaTextureObject_t obj) { return *reinterpret_cast<const Texture*>(obj); }

// the texel at integer (x, y, z) as four floats (the border colour outside, under border mode)
inline float4 texel4(const Texture& t, long long x, long long y, long long z) {
  long long ax = address(t, x, (long long)t.width, 0), ay = address(t, y, (long long)t.height, 1);
  long long az = address(t, z, (long long)t.depth, 2);
  if (ax < 0 || ay < 0 || az < 0) return float4{t.td.borderColor[0], t.td.borderColor[1], t.td.borderColor[2], t.td.borderColor[3]};
  const unsigned char* p = t.base + size_t(az) * t.slice + size_t(ay) * t.pitch + size_t(ax) * t.texel;
  int n = texel_channels(t.desc);
  return float4{channel(t, p, 0), n > 1 ? channel(t, p, 1) : 0.f, n > 2 ? channel(t, p, 2) : 0.f, n > 3 ? channel(t, p, 3) : 0.f};
}

EMU_INL float4 lerp4(float4 a, float4 b, float w) {
  return float4{a.x + w * (b.x - a.x), a.y + w * (b.y - a.y), a.z + w * (b.z - a.z), a.w + w * (b.w - a.w)};
}
// the texture unit keeps 8 bits of a weight's fraction
EMU_INL float weight8(float f) { return std::round(f * 256.0f) / 256.0f; }

// sample at (u, v, w) in texels (already scaled when normalised); dims: 1, 2 or 3 filtered axes
inline float4 sample(const Texture& t, float u, float v, float w, int dims, long long layer = 0) {
  if (t.td.filterMode == cudaFilterModePoint) {
    return texel4(t, (long long)std::floor(u), dims > 1 ? (long long)std::floor(v) : 0,
                  dims > 2 ? (long long)std::floor(w) : layer);
  }
  float fu = u - 0.5f, fv = v - 0.5f, fw = w - 0.5f;
  long long i = (long long)std::floor(fu), j = (long long)std::floor(fv), k = (long long)std::floor(fw);
  float a = weight8(fu - float(i)), b = weight8(fv - float(j)), c = weight8(fw - float(k));
  if (dims == 1) return lerp4(texel4(t, i, 0, layer), texel4(t, i + 1, 0, layer), a);
  auto plane = [&](long long z) {
    return lerp4(lerp4(texel4(t, i, j, z), texel4(t, i + 1, j, z), a), lerp4(texel4(t, i, j + 1, z), texel4(t, i + 1, j + 1, z), a), b);
  };
  if (dims == 2) return plane(layer);
  return lerp4(plane(k), plane(k + 1), c);
}

// a float4 sample as the type the program asked for
template <class T> struct from4 { static T get(float4 f) { return T(f.x); } };
template <> struct from4<float1> { static float1 get(float4 f) { return float1{f.x}; } };
template <> struct from4<float2> { static float2 get(float4 f) { return float2{f.x, f.y}; } };
template <> struct from4<float4> { static float4 get(float4 f) { return f; } };
#define EMU_FROM4(V, S)                                                                                         \
  template <> struct from4<V##1> { static V##1 get(float4 f) { return V##1{static_cast<S>(f.x)}; } };                          \
  template <> struct from4<V##2> { static V##2 get(float4 f) { return V##2{static_cast<S>(f.x), static_cast<S>(f.y)}; } };                  \
  template <> struct from4<V##4> { static V##4 get(float4 f) { return V##4{static_cast<S>(f.x), static_cast<S>(f.y), static_cast<S>(f.z), static_cast<S>(f.w)}; } };
EMU_FROM4(int, int)
EMU_FROM4(uint, unsigned)
EMU_FROM4(short, short)
EMU_FROM4(ushort, unsigned short)
EMU_FROM4(char, signed char)
EMU_FROM4(uchar, unsigned char)
#undef EMU_FROM4

template <class T> inline T fetch_as(const Texture& t, float u, float v, float w, int dims, long long layer = 0) {
  if (t.td.normalizedCoords) { u *= float(t.width); v *= float(t.height); w *= float(t.depth); }
  // an integer or float texel read as its own type, unfiltered: its bits, as the GPU returns them
  bool raw = t.td.filterMode == cudaFilterModePoint &&
             (t.td.readMode == cudaReadModeElementType || t.desc.f == cudaChannelFormatKindFloat) &&
             !(t.desc.f == cudaChannelFormatKindFloat && t.desc.x == 16);
  if (raw && sizeof(T) == t.texel) {
    long long x = (long long)std::floor(u), y = dims > 1 ? (long long)std::floor(v) : 0;
    long long z = dims > 2 ? (long long)std::floor(w) : layer;
    long long ax = address(t, x, (long long)t.width, 0), ay = address(t, y, (long long)t.height, 1);
    long long az = address(t, z, (long long)t.depth, 2);
    if (ax < 0 || ay < 0 || az < 0) return from4<T>::get(texel4(t, x, y, z));
    T out;
    std::memcpy(&out, t.base + size_t(az) * t.slice + size_t(ay) * t.pitch + size_t(ax) * t.texel, sizeof(T));
    return out;
  }
  return from4<T>::get(sample(t, u, v, w, dims, layer));
}
}  // namespace emu

inline cudaError_t cudaCreateTextureObject(cudaTextureObject_t* obj, const cudaResourceDesc* rd, const cudaTextureDesc* td,
                                           const cudaResourceViewDesc* = nullptr) {
  if (!obj || !rd || !td) return cudaErrorInvalidValue;
  auto* t = new emu::Texture{};
  t->td = *td;
  t->rd = *rd;
  switch (rd->resType) {
    case cudaResourceTypeArray: {
      cudaArray_t a = rd->res.array.array;
      *t = emu::Texture{a->data, a->width, a->height, a->depth, a->width * a->texel, a->width * a->texel * a->height, a->desc, a->texel, *td, *rd};
      break;
    }
    case cudaResourceTypeLinear: {
      size_t texel = emu::texel_bytes(rd->res.linear.desc);
      size_t n = texel ? rd->res.linear.sizeInBytes / texel : 0;
      *t = emu::Texture{static_cast<const unsigned char*>(rd->res.linear.devPtr), n, 1, 1, n * texel, n * texel, rd->res.linear.desc, texel, *td, *rd};
      break;
    }
    case cudaResourceTypePitch2D: {
      auto& p = rd->res.pitch2D;
      size_t texel = emu::texel_bytes(p.desc);
      *t = emu::Texture{static_cast<const unsigned char*>(p.devPtr), p.width, p.height, 1, p.pitchInBytes, p.pitchInBytes * p.height, p.desc, texel, *td, *rd};
      break;
    }
    default:
      delete t;
      return cudaErrorNotSupported;  // mipmapped arrays: not emulated
  }
  if (t->texel == 0) { delete t; return cudaErrorInvalidValue; }
  *obj = reinterpret_cast<cudaTextureObject_t>(t);
  return cudaSuccess;
}
inline cudaError_t cudaDestroyTextureObject(cudaTextureObject_t obj) {
  delete reinterpret_cast<emu::Texture*>(obj);
  return cudaSuccess;
}
inline cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* rd, cudaTextureObject_t obj) {
  *rd = emu::texture(obj).rd;
  return cudaSuccess;
}
inline cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* td, cudaTextureObject_t obj) {
  *td = emu::texture(obj).td;
  return cudaSuccess;
}

// ---- device-side reads -----------------------------------------------------------------------
// tex1Dfetch: linear memory, an integer index, no filtering; outside it reads zero
template <class T> EMU_INL T tex1Dfetch(cudaTextureObject_t obj, int i) {
  const emu::Texture& t = emu::texture(obj);
  if (i < 0 || size_t(i) >= t.width) return emu::from4<T>::get(float4{0, 0, 0, 0});
  emu::Texture point = t;
  point.td.filterMode = cudaFilterModePoint;
  point.td.normalizedCoords = 0;
  return emu::fetch_as<T>(point, float(i) + 0.5f, 0.5f, 0.5f, 1);
}
template <class T> EMU_INL T tex1D(cudaTextureObject_t obj, float x) { return emu::fetch_as<T>(emu::texture(obj), x, 0.5f, 0.5f, 1); }
template <class T> EMU_INL T tex2D(cudaTextureObject_t obj, float x, float y) { return emu::fetch_as<T>(emu::texture(obj), x, y, 0.5f, 2); }
template <class T> EMU_INL T tex3D(cudaTextureObject_t obj, float x, float y, float z) { return emu::fetch_as<T>(emu::texture(obj), x, y, z, 3); }
template <class T> EMU_INL T tex1DLayered(cudaTextureObject_t obj, float x, int layer) {
  return emu::fetch_as<T>(emu::texture(obj), x, 0.5f, 0.5f, 1, layer);
}
template <class T> EMU_INL T tex2DLayered(cudaTextureObject_t obj, float x, float y, int layer) {
  return emu::fetch_as<T>(emu::texture(obj), x, y, 0.5f, 2, layer);
}
// level of detail: only level 0 exists here (no mipmaps)
template <class T> EMU_INL T tex2DLod(cudaTextureObject_t obj, float x, float y, float) { return tex2D<T>(obj, x, y); }
template <class T> EMU_INL T tex1DLod(cudaTextureObject_t obj, float x, float) { return tex1D<T>(obj, x); }
template <class T> EMU_INL T tex3DLod(cudaTextureObject_t obj, float x, float y, float z, float) { return tex3D<T>(obj, x, y, z); }
template <class T> EMU_INL void tex1Dfetch(T* out, cudaTextureObject_t obj, int i) { *out = tex1Dfetch<T>(obj, i); }
template <class T> EMU_INL void tex2D(T* out, cudaTextureObject_t obj, float x, float y) { *out = tex2D<T>(obj, x, y); }

// ---- legacy texture references (CUDA <= 11) --------------------------------------------------
namespace emu {
// what a reference of element type T returns under cudaReadModeNormalizedFloat
template <class T> struct normalized { using type = T; };
#define EMU_NORM(V)                                                         \
  template <> struct normalized<V##1> { using type = float1; };             \
  template <> struct normalized<V##2> { using type = float2; };             \
  template <> struct normalized<V##4> { using type = float4; };
EMU_NORM(char)
EMU_NORM(uchar)
EMU_NORM(short)
EMU_NORM(ushort)
#undef EMU_NORM
template <> struct normalized<char> { using type = float; };
template <> struct normalized<unsigned char> { using type = float; };
template <> struct normalized<short> { using type = float; };
template <> struct normalized<signed char> { using type = float; };
template <> struct normalized<unsigned short> { using type = float; };
}  // namespace emu

struct textureReference {
  int normalized;
  cudaTextureFilterMode filterMode;
  cudaTextureAddressMode addressMode[3];
  cudaChannelFormatDesc channelDesc;
  emu::Texture bound;  // the memory bound to it (cudaBindTexture*)
};
template <class T, int dim = 1, cudaTextureReadMode mode = cudaReadModeElementType>
struct texture : textureReference {
  texture(int norm = 0, cudaTextureFilterMode f = cudaFilterModePoint, cudaTextureAddressMode am = cudaAddressModeClamp,
          cudaChannelFormatDesc desc = cudaCreateChannelDesc<T>())
      : textureReference{norm, f, {am, am, am}, desc, {}} {}
  using result = std::conditional_t<mode == cudaReadModeNormalizedFloat, typename emu::normalized<T>::type, T>;
  // the sampling state as set now: programs set filterMode and friends after binding too
  emu::Texture state() const {
    emu::Texture t = bound;
    t.td.filterMode = filterMode;
    t.td.normalizedCoords = normalized;
    t.td.readMode = mode;
    for (int i = 0; i < 3; ++i) t.td.addressMode[i] = addressMode[i];
    return t;
  }
};
namespace emu {
inline void bind(textureReference& r, const void* p, const cudaChannelFormatDesc& d, size_t w, size_t h, size_t pitch) {
  size_t texel = texel_bytes(d);
  r.channelDesc = d;
  r.bound = Texture{static_cast<const unsigned char*>(p), w, h, 1, pitch ? pitch : w * texel, (pitch ? pitch : w * texel) * h, d, texel, {}, {}};
}
}  // namespace emu
template <class T, int dim, cudaTextureReadMode M>
inline cudaError_t cudaBindTexture(size_t* offset, const texture<T, dim, M>& tex, const void* p, const cudaChannelFormatDesc& d,
                                   size_t size = UINT_MAX) {
  if (offset) *offset = 0;
  size_t texel = emu::texel_bytes(d);
  emu::bind(const_cast<texture<T, dim, M>&>(tex), p, d, texel ? size / texel : 0, 1, 0);
  return cudaSuccess;
}
template <class T, int dim, cudaTextureReadMode M>
inline cudaError_t cudaBindTexture(size_t* offset, const texture<T, dim, M>& tex, const void* p, size_t size = UINT_MAX) {
  return cudaBindTexture(offset, tex, p, tex.channelDesc, size);
}
template <class T, int dim, cudaTextureReadMode M>
inline cudaError_t cudaBindTexture2D(size_t* offset, const texture<T, dim, M>& tex, const void* p, const cudaChannelFormatDesc& d,
                                     size_t w, size_t h, size_t pitch) {
  if (offset) *offset = 0;
  emu::bind(const_cast<texture<T, dim, M>&>(tex), p, d, w, h, pitch);
  return cudaSuccess;
}
template <class T, int dim, cudaTextureReadMode M>
inline cudaError_t cudaBindTexture2D(size_t* offset, const texture<T, dim, M>& tex, const void* p, size_t w, size_t h, size_t pitch) {
  return cudaBindTexture2D(offset, tex, p, tex.channelDesc, w, h, pitch);
}
template <class T, int dim, cudaTextureReadMode M>
inline cudaError_t cudaBindTextureToArray(const texture<T, dim, M>& tex, cudaArray_const_t a, const cudaChannelFormatDesc&) {
  auto& r = const_cast<texture<T, dim, M>&>(tex);
  r.channelDesc = a->desc;
  r.bound = emu::Texture{a->data, a->width, a->height, a->depth, a->width * a->texel, a->width * a->texel * a->height, a->desc, a->texel, {}, {}};
  return cudaSuccess;
}
template <class T, int dim, cudaTextureReadMode M>
inline cudaError_t cudaBindTextureToArray(const texture<T, dim, M>& tex, cudaArray_const_t a) {
  return cudaBindTextureToArray(tex, a, a->desc);
}
template <class T, int dim, cudaTextureReadMode M>
inline cudaError_t cudaUnbindTexture(const texture<T, dim, M>& tex) {
  const_cast<texture<T, dim, M>&>(tex).bound = emu::Texture{};
  return cudaSuccess;
}
template <class T, cudaTextureReadMode M>
EMU_INL typename texture<T, 1, M>::result tex1Dfetch(const texture<T, 1, M>& r, int i) {
  emu::Texture t = r.state();
  using R = typename texture<T, 1, M>::result;
  if (i < 0 || size_t(i) >= t.width) return emu::from4<R>::get(float4{0, 0, 0, 0});
  t.td.filterMode = cudaFilterModePoint;
  t.td.normalizedCoords = 0;
  return emu::fetch_as<R>(t, float(i) + 0.5f, 0.5f, 0.5f, 1);
}
template <class T, cudaTextureReadMode M>
EMU_INL typename texture<T, 1, M>::result tex1D(const texture<T, 1, M>& r, float x) {
  return emu::fetch_as<typename texture<T, 1, M>::result>(r.state(), x, 0.5f, 0.5f, 1);
}
template <class T, cudaTextureReadMode M>
EMU_INL typename texture<T, 2, M>::result tex2D(const texture<T, 2, M>& r, float x, float y) {
  return emu::fetch_as<typename texture<T, 2, M>::result>(r.state(), x, y, 0.5f, 2);
}
template <class T, cudaTextureReadMode M>
EMU_INL typename texture<T, 3, M>::result tex3D(const texture<T, 3, M>& r, float x, float y, float z) {
  return emu::fetch_as<typename texture<T, 3, M>::result>(r.state(), x, y, z, 3);
}

// HIP's names for the same API
#define hipArray cudaArray
#define hipArray_t cudaArray_t
#define hipArray_const_t cudaArray_const_t
#define hipChannelFormatDesc cudaChannelFormatDesc
#define hipChannelFormatKindSigned cudaChannelFormatKindSigned
#define hipChannelFormatKindUnsigned cudaChannelFormatKindUnsigned
#define hipChannelFormatKindFloat cudaChannelFormatKindFloat
#define hipCreateChannelDesc cudaCreateChannelDesc
#define hipExtent cudaExtent
#define hipPos cudaPos
#define hipPitchedPtr cudaPitchedPtr
#define make_hipExtent make_cudaExtent
#define make_hipPos make_cudaPos
#define make_hipPitchedPtr make_cudaPitchedPtr
#define hipMallocArray cudaMallocArray
#define hipMalloc3DArray cudaMalloc3DArray
#define hipMalloc3D cudaMalloc3D
#define hipFreeArray cudaFreeArray
#define hipArrayGetInfo cudaArrayGetInfo
#define hipArrayDefault cudaArrayDefault
#define hipArrayLayered cudaArrayLayered
#define hipMemcpy2DToArray cudaMemcpy2DToArray
#define hipMemcpy2DToArrayAsync cudaMemcpy2DToArrayAsync
#define hipMemcpy2DFromArray cudaMemcpy2DFromArray
#define hipMemcpyToArray cudaMemcpyToArray
#define hipMemcpyFromArray cudaMemcpyFromArray
#define hipMemcpy3D cudaMemcpy3D
#define hipMemcpy3DAsync cudaMemcpy3DAsync
#define hipMemcpy3DParms cudaMemcpy3DParms
#define hipResourceDesc cudaResourceDesc
#define hipTextureDesc cudaTextureDesc
#define hipResourceViewDesc cudaResourceViewDesc
#define hipTextureObject_t cudaTextureObject_t
#define hipCreateTextureObject cudaCreateTextureObject
#define hipDestroyTextureObject cudaDestroyTextureObject
#define hipGetTextureObjectResourceDesc cudaGetTextureObjectResourceDesc
#define hipResourceTypeArray cudaResourceTypeArray
#define hipResourceTypeLinear cudaResourceTypeLinear
#define hipResourceTypePitch2D cudaResourceTypePitch2D
#define hipAddressModeWrap cudaAddressModeWrap
#define hipAddressModeClamp cudaAddressModeClamp
#define hipAddressModeMirror cudaAddressModeMirror
#define hipAddressModeBorder cudaAddressModeBorder
#define hipFilterModePoint cudaFilterModePoint
#define hipFilterModeLinear cudaFilterModeLinear
#define hipReadModeElementType cudaReadModeElementType
#define hipReadModeNormalizedFloat cudaReadModeNormalizedFloat
#define hipBindTexture cudaBindTexture
#define hipBindTexture2D cudaBindTexture2D
#define hipBindTextureToArray cudaBindTextureToArray
#define hipUnbindTexture cudaUnbindTexture
