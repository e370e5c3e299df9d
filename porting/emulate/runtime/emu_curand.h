// rocm-port `port emulate`: cuRAND's host generators and device functions, basics, on the CPU.
//
// Reached through the <curand.h> / <curand_kernel.h> shims. The generator is Marsaglia's
// xorwow, the algorithm of cuRAND's default (XORWOW) generator, but each (seed, subsequence,
// offset) is given its own starting state by hashing (splitmix64) instead of cuRAND's skip-ahead
// matrices: the numbers are NOT those an NVIDIA GPU draws, only of the same kind (uniform in
// (0, 1], normal by Box-Muller, as cuRAND's). They depend on nothing but the seed, the
// subsequence and the offset, so they are the same at every warp width, which is what a
// comparison of two widths needs. A program that checks its results against numbers an NVIDIA
// GPU drew will report a mismatch at both widths (the same, no divergence).
#pragma once
#include <cmath>
#include <cstdint>
// the toolkit's include guard: cuda-samples' helper_cuda.h names curandStatus_t values #ifdef CURAND_H_
#define CURAND_H_

enum curandStatus_t {
  CURAND_STATUS_SUCCESS = 0, CURAND_STATUS_VERSION_MISMATCH = 100, CURAND_STATUS_NOT_INITIALIZED = 101,
  CURAND_STATUS_ALLOCATION_FAILED = 102, CURAND_STATUS_TYPE_ERROR = 103, CURAND_STATUS_OUT_OF_RANGE = 104,
  CURAND_STATUS_LENGTH_NOT_MULTIPLE = 105, CURAND_STATUS_DOUBLE_PRECISION_REQUIRED = 106,
  CURAND_STATUS_LAUNCH_FAILURE = 201, CURAND_STATUS_PREEXISTING_FAILURE = 202, CURAND_STATUS_INITIALIZATION_FAILED = 203,
  CURAND_STATUS_ARCH_MISMATCH = 204, CURAND_STATUS_INTERNAL_ERROR = 999
};
typedef curandStatus_t curandStatus;
enum curandRngType_t {
  CURAND_RNG_PSEUDO_DEFAULT = 100, CURAND_RNG_PSEUDO_XORWOW = 101, CURAND_RNG_PSEUDO_MRG32K3A = 121,
  CURAND_RNG_PSEUDO_MTGP32 = 141, CURAND_RNG_PSEUDO_MT19937 = 142, CURAND_RNG_PSEUDO_PHILOX4_32_10 = 161
};
typedef curandRngType_t curandRngType;

// ---- device side (curand_kernel.h) ------------------------------------------------------------
struct curandStateXORWOW {
  unsigned int d, v[5];
  int has_normal;  // Box-Muller makes two values; the second is kept for the next call
  float normal;
  double normal_d;
  int has_normal_d;
};
typedef curandStateXORWOW curandState_t;
typedef curandStateXORWOW curandState;
typedef curandStateXORWOW curandStatePhilox4_32_10_t;  // the same xorwow stream: not Philox's numbers
typedef curandStateXORWOW curandStateMRG32k3a_t;       // likewise

namespace emu::rng {
EMU_INL unsigned long long splitmix(unsigned long long& x) {
  unsigned long long z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
EMU_INL unsigned int next(curandStateXORWOW* s) {
  unsigned int t = s->v[0] ^ (s->v[0] >> 2);
  s->v[0] = s->v[1]; s->v[1] = s->v[2]; s->v[2] = s->v[3]; s->v[3] = s->v[4];
  s->v[4] = (s->v[4] ^ (s->v[4] << 4)) ^ (t ^ (t << 1));
  s->d += 362437;
  return s->v[4] + s->d;
}
}  // namespace emu::rng

inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset, curandStateXORWOW* s) {
  unsigned long long x = seed ^ (subsequence * 0xD1B54A32D192ED03ULL);
  for (unsigned int& w : s->v) {
    w = (unsigned int)emu::rng::splitmix(x);
    if (w == 0) w = 0x6C078965u;  // xorwow's state must not be all zero
  }
  s->d = (unsigned int)emu::rng::splitmix(x);
  s->has_normal = s->has_normal_d = 0;
  for (unsigned long long i = 0; i < offset; ++i) emu::rng::next(s);
}
EMU_INL unsigned int curand(curandStateXORWOW* s) { return emu::rng::next(s); }
// (0, 1]: as cuRAND's, zero excluded and one included
EMU_INL float curand_uniform(curandStateXORWOW* s) { return (float)emu::rng::next(s) * 2.3283064e-10f + 1.1641532e-10f; }
EMU_INL double curand_uniform_double(curandStateXORWOW* s) {
  unsigned long long hi = emu::rng::next(s), lo = emu::rng::next(s);
  return (double)((hi << 21) ^ lo) * (1.0 / 9007199254740992.0) + (1.0 / 9007199254740992.0);
}
inline float curand_normal(curandStateXORWOW* s) {
  if (s->has_normal) { s->has_normal = 0; return s->normal; }
  float u = curand_uniform(s), v = curand_uniform(s);
  float r = std::sqrt(-2.0f * std::log(u)), a = 6.2831853071795864f * v;
  s->normal = r * std::cos(a);
  s->has_normal = 1;
  return r * std::sin(a);
}
inline double curand_normal_double(curandStateXORWOW* s) {
  if (s->has_normal_d) { s->has_normal_d = 0; return s->normal_d; }
  double u = curand_uniform_double(s), v = curand_uniform_double(s);
  double r = std::sqrt(-2.0 * std::log(u)), a = 6.283185307179586 * v;
  s->normal_d = r * std::cos(a);
  s->has_normal_d = 1;
  return r * std::sin(a);
}
EMU_INL float curand_log_normal(curandStateXORWOW* s, float mean, float stddev) { return std::exp(mean + stddev * curand_normal(s)); }
EMU_INL double curand_log_normal_double(curandStateXORWOW* s, double mean, double stddev) {
  return std::exp(mean + stddev * curand_normal_double(s));
}
EMU_INL float2 curand_normal2(curandStateXORWOW* s) { float a = curand_normal(s); return float2{a, curand_normal(s)}; }
EMU_INL float4 curand_uniform4(curandStateXORWOW* s) {
  float a = curand_uniform(s), b = curand_uniform(s), c = curand_uniform(s);
  return float4{a, b, c, curand_uniform(s)};
}
EMU_INL uint4 curand4(curandStateXORWOW* s) {
  unsigned a = curand(s), b = curand(s), c = curand(s);
  return uint4{a, b, c, curand(s)};
}
inline void skipahead(unsigned long long n, curandStateXORWOW* s) { for (unsigned long long i = 0; i < n; ++i) emu::rng::next(s); }

// ---- host API (curand.h): a generator fills memory with one stream of numbers ------------------
struct emu_curand_generator {
  curandRngType_t type;
  unsigned long long seed, offset;
  curandStateXORWOW state;
  bool fresh;  // reseed before the next generation (after the seed or offset changed)
};
typedef emu_curand_generator* curandGenerator_t;
namespace emu::rng {
inline curandStateXORWOW& ready(curandGenerator_t g) {
  if (g->fresh) { curand_init(g->seed, 0, g->offset, &g->state); g->fresh = false; }
  return g->state;
}
}  // namespace emu::rng
inline curandStatus_t curandCreateGenerator(curandGenerator_t* g, curandRngType_t t) {
  if (t != CURAND_RNG_PSEUDO_DEFAULT && t != CURAND_RNG_PSEUDO_XORWOW && t != CURAND_RNG_PSEUDO_PHILOX4_32_10 &&
      t != CURAND_RNG_PSEUDO_MRG32K3A && t != CURAND_RNG_PSEUDO_MT19937)
    return CURAND_STATUS_TYPE_ERROR;
  *g = new emu_curand_generator{t, 0, 0, {}, true};
  return CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandCreateGeneratorHost(curandGenerator_t* g, curandRngType_t t) { return curandCreateGenerator(g, t); }
inline curandStatus_t curandDestroyGenerator(curandGenerator_t g) { delete g; return CURAND_STATUS_SUCCESS; }
inline curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t g, unsigned long long seed) {
  g->seed = seed; g->fresh = true; return CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandSetGeneratorOffset(curandGenerator_t g, unsigned long long off) {
  g->offset = off; g->fresh = true; return CURAND_STATUS_SUCCESS;
}
enum curandOrdering_t {
  CURAND_ORDERING_PSEUDO_BEST = 100, CURAND_ORDERING_PSEUDO_DEFAULT = 101, CURAND_ORDERING_PSEUDO_SEEDED = 102,
  CURAND_ORDERING_PSEUDO_LEGACY = 103, CURAND_ORDERING_PSEUDO_DYNAMIC = 104, CURAND_ORDERING_QUASI_DEFAULT = 201
};
typedef curandOrdering_t curandOrdering;
// The ordering chooses how cuRAND lays one stream out across a GPU's threads; here the stream
// is generated in order, so every pseudo-random ordering gives the same (emulated) numbers. A
// quasi-random ordering on a pseudo-random generator is the error cuRAND gives.
inline curandStatus_t curandSetGeneratorOrdering(curandGenerator_t, curandOrdering_t order) {
  if (order < CURAND_ORDERING_PSEUDO_BEST || order > CURAND_ORDERING_PSEUDO_DYNAMIC) return CURAND_STATUS_OUT_OF_RANGE;
  return CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandSetStream(curandGenerator_t, cudaStream_t) { return CURAND_STATUS_SUCCESS; }
inline curandStatus_t curandGenerateSeeds(curandGenerator_t g) { emu::rng::ready(g); return CURAND_STATUS_SUCCESS; }
inline curandStatus_t curandGenerate(curandGenerator_t g, unsigned int* out, size_t n) {
  auto& s = emu::rng::ready(g);
  for (size_t i = 0; i < n; ++i) out[i] = curand(&s);
  return CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandGenerateUniform(curandGenerator_t g, float* out, size_t n) {
  auto& s = emu::rng::ready(g);
  for (size_t i = 0; i < n; ++i) out[i] = curand_uniform(&s);
  return CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandGenerateUniformDouble(curandGenerator_t g, double* out, size_t n) {
  auto& s = emu::rng::ready(g);
  for (size_t i = 0; i < n; ++i) out[i] = curand_uniform_double(&s);
  return CURAND_STATUS_SUCCESS;
}
// cuRAND requires an even count for normal outputs (two per Box-Muller step)
inline curandStatus_t curandGenerateNormal(curandGenerator_t g, float* out, size_t n, float mean, float stddev) {
  if (n % 2) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  auto& s = emu::rng::ready(g);
  for (size_t i = 0; i < n; ++i) out[i] = mean + stddev * curand_normal(&s);
  return CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandGenerateNormalDouble(curandGenerator_t g, double* out, size_t n, double mean, double stddev) {
  if (n % 2) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  auto& s = emu::rng::ready(g);
  for (size_t i = 0; i < n; ++i) out[i] = mean + stddev * curand_normal_double(&s);
  return CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandGenerateLogNormal(curandGenerator_t g, float* out, size_t n, float mean, float stddev) {
  if (n % 2) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  auto& s = emu::rng::ready(g);
  for (size_t i = 0; i < n; ++i) out[i] = curand_log_normal(&s, mean, stddev);
  return CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandGetVersion(int* v) { *v = 10300; return CURAND_STATUS_SUCCESS; }
