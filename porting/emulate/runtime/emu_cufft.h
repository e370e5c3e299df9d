// port emulate: cuFFT's plans and transforms on the CPU, for <cufft.h>.
//
// Complex-to-complex (C2C, Z2Z), real-to-complex (R2C, D2Z) and complex-to-real (C2R, Z2D)
// transforms of 1, 2 and 3 dimensions, batched, over contiguous (cufftPlan1d/2d/3d) or strided
// (cufftPlanMany's advanced layout) data, in or out of place, unnormalised as cuFFT's are (an
// inverse after a forward transform scales by the element count). Each transform is computed in
// double precision along one dimension at a time: radix-2 for powers of two, a direct DFT for
// other lengths, so its last bits are not NVIDIA's; they depend on nothing else, so they are the
// same at every warp width. Callbacks, multi-GPU plans and half-precision transforms (cufftXt)
// are not provided (a compile error, named).
#pragma once
#include "emu_runtime.h"

#include <cmath>
#include <complex>
#include <vector>

#include "cuComplex.h"

typedef float cufftReal;
typedef double cufftDoubleReal;
typedef cuComplex cufftComplex;
typedef cuDoubleComplex cufftDoubleComplex;
typedef int cufftHandle;
enum cufftResult {
  CUFFT_SUCCESS = 0, CUFFT_INVALID_PLAN = 1, CUFFT_ALLOC_FAILED = 2, CUFFT_INVALID_TYPE = 3,
  CUFFT_INVALID_VALUE = 4, CUFFT_INTERNAL_ERROR = 5, CUFFT_EXEC_FAILED = 6, CUFFT_SETUP_FAILED = 7,
  CUFFT_INVALID_SIZE = 8, CUFFT_UNALIGNED_DATA = 9, CUFFT_NOT_SUPPORTED = 16
};
typedef cufftResult cufftResult_t;
enum cufftType { CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29, CUFFT_D2Z = 0x6a, CUFFT_Z2D = 0x6c, CUFFT_Z2Z = 0x69 };
typedef cufftType cufftType_t;
#define CUFFT_FORWARD -1
#define CUFFT_INVERSE 1

namespace emu { namespace fft {
struct Plan {
  std::vector<int> n;              // logical sizes, slowest first
  int istride = 1, idist = 0, ostride = 1, odist = 0, batch = 1;
  std::vector<int> inembed, onembed;  // storage sizes (advanced layout), slowest first
  cufftType type = CUFFT_C2C;
};
inline std::vector<Plan*>& plans() { static std::vector<Plan*> p; return p; }
inline Plan* get(cufftHandle h) { return h >= 0 && h < (int)plans().size() ? plans()[h] : nullptr; }

using cd = std::complex<double>;
// one 1D transform in place; sign -1 forward, +1 inverse (no scaling, as cuFFT)
inline void transform(std::vector<cd>& a, int sign) {
  const size_t n = a.size();
  if (n <= 1) return;
  if ((n & (n - 1)) != 0) {  // direct DFT
    std::vector<cd> out(n);
    for (size_t k = 0; k < n; ++k) {
      cd acc = 0;
      for (size_t j = 0; j < n; ++j) acc += a[j] * std::polar(1.0, sign * 2 * M_PI * double((k * j) % n) / double(n));
      out[k] = acc;
    }
    a.swap(out);
    return;
  }
  for (size_t i = 1, j = 0; i < n; ++i) {  // bit reversal, then butterflies
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    for (size_t i = 0; i < n; i += len)
      for (size_t k = 0; k < len / 2; ++k) {
        cd w = std::polar(1.0, sign * 2 * M_PI * double(k) / double(len));
        cd u = a[i + k], v = a[i + k + len / 2] * w;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
      }
  }
}
// a full complex transform of `data` (row-major, sizes n) along every dimension
inline void transform_nd(std::vector<cd>& data, const std::vector<int>& n, int sign) {
  size_t total = data.size(), inner = total;
  for (size_t d = 0; d < n.size(); ++d) {
    size_t len = (size_t)n[d];
    inner /= len;
    std::vector<cd> line(len);
    for (size_t outer = 0; outer < total / (len * inner); ++outer)
      for (size_t in = 0; in < inner; ++in) {
        size_t base = outer * len * inner + in;
        for (size_t i = 0; i < len; ++i) line[i] = data[base + i * inner];
        transform(line, sign);
        for (size_t i = 0; i < len; ++i) data[base + i * inner] = line[i];
      }
  }
}
// offset of logical element `idx` (row-major over sizes `dims`) in storage with sizes `embed`
inline size_t offset(size_t idx, const std::vector<int>& dims, const std::vector<int>& embed, int stride) {
  size_t off = 0, scale = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    size_t i = idx % (size_t)dims[d];
    idx /= (size_t)dims[d];
    off += i * scale;
    scale *= (size_t)(embed.empty() ? dims[d] : embed[d]);
  }
  return off * (size_t)stride;
}
inline size_t count(const std::vector<int>& dims) { size_t c = 1; for (int d : dims) c *= (size_t)d; return c; }

// In and Out are the element types in memory (float, double, float2, double2)
template <class T> inline cd load(const T* p, size_t i) { return cd(p[i].x, p[i].y); }
template <> inline cd load<float>(const float* p, size_t i) { return cd(p[i], 0); }
template <> inline cd load<double>(const double* p, size_t i) { return cd(p[i], 0); }
template <class T> inline void store(T* p, size_t i, cd v) { p[i].x = decltype(p[i].x)(v.real()); p[i].y = decltype(p[i].y)(v.imag()); }
template <> inline void store<float>(float* p, size_t i, cd v) { p[i] = float(v.real()); }
template <> inline void store<double>(double* p, size_t i, cd v) { p[i] = v.real(); }

template <class In, class Out> inline cufftResult exec(cufftHandle h, const In* in, Out* out, int sign, cufftType want) {
  Plan* p = get(h);
  if (!p) return CUFFT_INVALID_PLAN;
  if (p->type != want) return CUFFT_INVALID_TYPE;
  if (!in || !out) return CUFFT_INVALID_VALUE;
  cudaDeviceSynchronize();  // the transform follows the kernels launched before it
  const bool r2c = want == CUFFT_R2C || want == CUFFT_D2Z, c2r = want == CUFFT_C2R || want == CUFFT_Z2D;
  // the half-spectrum's sizes: the last dimension n/2 + 1 on the complex side
  std::vector<int> half = p->n;
  half.back() = half.back() / 2 + 1;
  const std::vector<int>& in_dims = c2r ? half : p->n;
  const std::vector<int>& out_dims = r2c ? half : p->n;
  const size_t total = count(p->n), in_count = count(in_dims), out_count = count(out_dims);
  const size_t idist = p->idist ? (size_t)p->idist : in_count, odist = p->odist ? (size_t)p->odist : out_count;
  std::vector<std::vector<cd>> results((size_t)p->batch);
  for (int b = 0; b < p->batch; ++b) {  // read every batch before writing: in place is allowed
    std::vector<cd> data(total);
    const In* src = in + (size_t)b * idist;
    if (c2r) {  // rebuild the full spectrum from its Hermitian half
      const size_t last = (size_t)p->n.back(), hl = (size_t)half.back();
      for (size_t i = 0; i < total; ++i) {
        size_t k = i % last, row = i / last;
        if (k < hl) {
          data[i] = load(src, offset(row * hl + k, half, p->inembed, p->istride));
        } else {  // X[r][k] = conj(X[-r][n - k])
          size_t mirror_row = 0, scale = 1, rest = row;
          for (size_t d = p->n.size() - 1; d-- > 0;) {
            size_t i_d = rest % (size_t)p->n[d];
            rest /= (size_t)p->n[d];
            mirror_row += ((p->n[d] - i_d) % p->n[d]) * scale;
            scale *= (size_t)p->n[d];
          }
          data[i] = std::conj(load(src, offset(mirror_row * hl + (last - k), half, p->inembed, p->istride)));
        }
      }
    } else {
      for (size_t i = 0; i < total; ++i) data[i] = load(src, offset(i, p->n, p->inembed, p->istride));
    }
    transform_nd(data, p->n, sign);
    results[(size_t)b].swap(data);
  }
  for (int b = 0; b < p->batch; ++b) {
    Out* dst = out + (size_t)b * odist;
    const std::vector<cd>& data = results[(size_t)b];
    if (r2c) {
      const size_t last = (size_t)p->n.back(), hl = (size_t)half.back();
      for (size_t j = 0; j < out_count; ++j) store(dst, offset(j, half, p->onembed, p->ostride), data[(j / hl) * last + j % hl]);
    } else {
      for (size_t i = 0; i < total; ++i) store(dst, offset(i, p->n, p->onembed, p->ostride), data[i]);
    }
  }
  return CUFFT_SUCCESS;
}
inline bool valid(cufftType t) {
  return t == CUFFT_R2C || t == CUFFT_C2R || t == CUFFT_C2C || t == CUFFT_D2Z || t == CUFFT_Z2D || t == CUFFT_Z2Z;
}
inline cufftResult make(cufftHandle* h, std::vector<int> n, cufftType t, int batch) {
  if (!h) return CUFFT_INVALID_VALUE;
  if (!valid(t)) return CUFFT_INVALID_TYPE;
  if (batch < 1) return CUFFT_INVALID_VALUE;
  for (int d : n) if (d < 1) return CUFFT_INVALID_SIZE;
  Plan* p = new Plan;
  p->n = std::move(n);
  p->type = t;
  p->batch = batch;
  plans().push_back(p);
  *h = (cufftHandle)plans().size() - 1;
  return CUFFT_SUCCESS;
}
}}  // namespace emu::fft

inline cufftResult cufftCreate(cufftHandle* h) { return emu::fft::make(h, {1}, CUFFT_C2C, 1); }
inline cufftResult cufftPlan1d(cufftHandle* h, int nx, cufftType t, int batch) { return emu::fft::make(h, {nx}, t, batch); }
inline cufftResult cufftPlan2d(cufftHandle* h, int nx, int ny, cufftType t) { return emu::fft::make(h, {nx, ny}, t, 1); }
inline cufftResult cufftPlan3d(cufftHandle* h, int nx, int ny, int nz, cufftType t) { return emu::fft::make(h, {nx, ny, nz}, t, 1); }
inline cufftResult cufftPlanMany(cufftHandle* h, int rank, int* n, int* inembed, int istride, int idist, int* onembed,
                                 int ostride, int odist, cufftType t, int batch) {
  if (rank < 1 || rank > 3 || !n) return CUFFT_INVALID_VALUE;
  cufftResult r = emu::fft::make(h, std::vector<int>(n, n + rank), t, batch);
  if (r != CUFFT_SUCCESS) return r;
  emu::fft::Plan* p = emu::fft::get(*h);
  if (inembed && onembed) {  // the advanced layout; without it the data are contiguous (cuFFT ignores strides then)
    p->inembed.assign(inembed, inembed + rank);
    p->onembed.assign(onembed, onembed + rank);
    p->istride = istride; p->idist = idist; p->ostride = ostride; p->odist = odist;
  }
  return CUFFT_SUCCESS;
}
// the make-plan forms over a handle from cufftCreate; the work area is not needed here
inline cufftResult cufftMakePlan1d(cufftHandle h, int nx, cufftType t, int batch, size_t* work) {
  emu::fft::Plan* p = emu::fft::get(h);
  if (!p) return CUFFT_INVALID_PLAN;
  if (!emu::fft::valid(t)) return CUFFT_INVALID_TYPE;
  if (nx < 1 || batch < 1) return CUFFT_INVALID_SIZE;
  p->n = {nx}; p->type = t; p->batch = batch;
  if (work) *work = 0;
  return CUFFT_SUCCESS;
}
inline cufftResult cufftDestroy(cufftHandle h) {
  emu::fft::Plan* p = emu::fft::get(h);
  if (!p) return CUFFT_INVALID_PLAN;
  delete p;
  emu::fft::plans()[(size_t)h] = nullptr;
  return CUFFT_SUCCESS;
}
inline cufftResult cufftSetStream(cufftHandle h, cudaStream_t) { return emu::fft::get(h) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN; }
inline cufftResult cufftGetSize(cufftHandle h, size_t* work) {
  if (!emu::fft::get(h)) return CUFFT_INVALID_PLAN;
  if (work) *work = 0;
  return CUFFT_SUCCESS;
}
inline cufftResult cufftGetVersion(int* v) { if (!v) return CUFFT_INVALID_VALUE; *v = 11000; return CUFFT_SUCCESS; }
inline cufftResult cufftExecC2C(cufftHandle h, cufftComplex* in, cufftComplex* out, int dir) {
  return emu::fft::exec(h, in, out, dir, CUFFT_C2C);
}
inline cufftResult cufftExecZ2Z(cufftHandle h, cufftDoubleComplex* in, cufftDoubleComplex* out, int dir) {
  return emu::fft::exec(h, in, out, dir, CUFFT_Z2Z);
}
inline cufftResult cufftExecR2C(cufftHandle h, cufftReal* in, cufftComplex* out) { return emu::fft::exec(h, in, out, CUFFT_FORWARD, CUFFT_R2C); }
inline cufftResult cufftExecD2Z(cufftHandle h, cufftDoubleReal* in, cufftDoubleComplex* out) {
  return emu::fft::exec(h, in, out, CUFFT_FORWARD, CUFFT_D2Z);
}
inline cufftResult cufftExecC2R(cufftHandle h, cufftComplex* in, cufftReal* out) { return emu::fft::exec(h, in, out, CUFFT_INVERSE, CUFFT_C2R); }
inline cufftResult cufftExecZ2D(cufftHandle h, cufftDoubleComplex* in, cufftDoubleReal* out) {
  return emu::fft::exec(h, in, out, CUFFT_INVERSE, CUFFT_Z2D);
}
