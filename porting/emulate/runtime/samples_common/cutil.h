// rocm-port `port emulate`: the CUDA 2-4 SDK's helper library (cutil.h, libcutil), written anew
// for the emulator: the error-checking macros, the stop-watch timers, the array comparisons,
// command-line flags, file lookup and free. Found after the program's own -I directories
// (-idirafter): a program that brings its own cutil.h uses that one. Timers are host wall-clock
// milliseconds (their printed values are masked as timings by default).
#pragma once
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#include "helper_string.h"

enum CUTBoolean { CUTFalse = 0, CUTTrue = 1 };

// ---- command line (`--name`, `-name=value`) -----------------------------------------------------
inline CUTBoolean cutCheckCmdLineFlag(const int argc, const char** argv, const char* flag) {
  return checkCmdLineFlag(argc, argv, flag) ? CUTTrue : CUTFalse;
}
inline CUTBoolean cutGetCmdLineArgumenti(const int argc, const char** argv, const char* name, int* value) {
  const char* v = emu_cmd_line_match(argc, argv, name);
  if (!v || *v != '=') return CUTFalse;
  *value = std::atoi(v + 1);
  return CUTTrue;
}
inline CUTBoolean cutGetCmdLineArgumentf(const int argc, const char** argv, const char* name, float* value) {
  const char* v = emu_cmd_line_match(argc, argv, name);
  if (!v || *v != '=') return CUTFalse;
  *value = (float)std::atof(v + 1);
  return CUTTrue;
}
inline CUTBoolean cutGetCmdLineArgumentstr(const int argc, const char** argv, const char* name, char** value) {
  return getCmdLineArgumentString(argc, argv, name, value) ? CUTTrue : CUTFalse;
}
inline void cutFree(void* p) { std::free(p); }

// the file itself or data/NAME beside the working directory, as a malloc'd path (cutFree); else NULL
inline char* cutFindFilePath(const char* name, const char*) {
  const char* forms[] = {"%s", "data/%s", "./data/%s", "../data/%s"};
  for (const char* form : forms) {
    char path[4096];
    std::snprintf(path, sizeof path, form, name);
    if (std::FILE* f = std::fopen(path, "rb")) {
      std::fclose(f);
      char* out = static_cast<char*>(std::malloc(std::strlen(path) + 1));
      std::strcpy(out, path);
      return out;
    }
  }
  return nullptr;
}

// ---- timers: a handle indexes a stop-watch of this process --------------------------------------
namespace emu { namespace cutil {
struct Timer {
  std::chrono::steady_clock::time_point began;
  double total_ms = 0;
  int sessions = 0;
  bool running = false, live = false;
};
inline std::vector<Timer>& timers() { static std::vector<Timer> t; return t; }
inline Timer* timer(unsigned int h) { return h < timers().size() && timers()[h].live ? &timers()[h] : nullptr; }
inline double running_ms(const Timer& t) {
  return t.running ? std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t.began).count() : 0.0;
}
}}  // namespace emu::cutil
inline CUTBoolean cutCreateTimer(unsigned int* h) {
  emu::cutil::timers().push_back(emu::cutil::Timer{});
  emu::cutil::timers().back().live = true;
  *h = (unsigned int)emu::cutil::timers().size() - 1;
  return CUTTrue;
}
inline CUTBoolean cutDeleteTimer(unsigned int h) {
  emu::cutil::Timer* t = emu::cutil::timer(h);
  if (!t) return CUTFalse;
  t->live = false;
  return CUTTrue;
}
inline CUTBoolean cutStartTimer(const unsigned int h) {
  emu::cutil::Timer* t = emu::cutil::timer(h);
  if (!t) return CUTFalse;
  t->began = std::chrono::steady_clock::now();
  t->running = true;
  return CUTTrue;
}
inline CUTBoolean cutStopTimer(const unsigned int h) {
  emu::cutil::Timer* t = emu::cutil::timer(h);
  if (!t) return CUTFalse;
  if (t->running) {
    t->total_ms += emu::cutil::running_ms(*t);
    t->running = false;
    ++t->sessions;
  }
  return CUTTrue;
}
inline CUTBoolean cutResetTimer(const unsigned int h) {
  emu::cutil::Timer* t = emu::cutil::timer(h);
  if (!t) return CUTFalse;
  bool running = t->running;
  *t = emu::cutil::Timer{};
  t->live = true;
  if (running) cutStartTimer(h);
  return CUTTrue;
}
inline float cutGetTimerValue(const unsigned int h) {  // ms of every session, the running one included
  emu::cutil::Timer* t = emu::cutil::timer(h);
  return t ? (float)(t->total_ms + emu::cutil::running_ms(*t)) : 0.0f;
}
inline float cutGetAverageTimerValue(const unsigned int h) {  // ms per completed session
  emu::cutil::Timer* t = emu::cutil::timer(h);
  return t && t->sessions > 0 ? (float)(t->total_ms / t->sessions) : 0.0f;
}

// ---- comparisons of a result with its reference -------------------------------------------------
template <class T> inline CUTBoolean emu_cut_compare(const T* ref, const T* data, unsigned int len, double eps) {
  for (unsigned int i = 0; i < len; ++i)
    if (!(std::fabs((double)ref[i] - (double)data[i]) <= eps)) return CUTFalse;
  return CUTTrue;
}
inline CUTBoolean cutComparef(const float* ref, const float* data, const unsigned int len) {
  return emu_cut_compare(ref, data, len, 0.0);
}
inline CUTBoolean cutComparefe(const float* ref, const float* data, const unsigned int len, const float eps) {
  return emu_cut_compare(ref, data, len, (double)eps);
}
inline CUTBoolean cutComparei(const int* ref, const int* data, unsigned int len) { return emu_cut_compare(ref, data, len, 0.0); }
inline CUTBoolean cutCompareui(const unsigned int* ref, const unsigned int* data, unsigned int len) {
  return emu_cut_compare(ref, data, len, 0.0);
}
inline CUTBoolean cutCompareub(const unsigned char* ref, const unsigned char* data, unsigned int len) {
  return emu_cut_compare(ref, data, len, 0.0);
}
// the relative L2 error sqrt(sum (ref - data)^2 / sum ref^2) below eps
inline CUTBoolean cutCompareL2fe(const float* ref, const float* data, const unsigned int len, const float eps) {
  double err = 0, norm = 0;
  for (unsigned int i = 0; i < len; ++i) {
    double d = (double)ref[i] - (double)data[i];
    err += d * d;
    norm += (double)ref[i] * ref[i];
  }
  if (std::sqrt(norm) < 1e-7) {
    std::fprintf(stderr, "ERROR, reference l2-norm is 0\n");
    return CUTFalse;
  }
  return std::sqrt(err) / std::sqrt(norm) < eps ? CUTTrue : CUTFalse;
}

// ---- checking macros ------------------------------------------------------------------------------
inline void emu_cut_check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "Cuda error in file '%s' in line %i : %s.\n", file, line, cudaGetErrorString(e));
    std::exit(EXIT_FAILURE);
  }
  (void)what;
}
inline void emu_cut_check_msg(const char* msg, const char* file, int line) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "Cuda error: %s in file '%s' in line %i : %s.\n", msg, file, line, cudaGetErrorString(e));
    std::exit(EXIT_FAILURE);
  }
}
#define CUDA_SAFE_CALL_NO_SYNC(call) emu_cut_check((call), #call, __FILE__, __LINE__)
#define CUDA_SAFE_CALL(call) emu_cut_check((call), #call, __FILE__, __LINE__)
#define CUDA_SAFE_THREAD_SYNC() emu_cut_check(cudaDeviceSynchronize(), "sync", __FILE__, __LINE__)
#define CUT_CHECK_ERROR(msg) emu_cut_check_msg((msg), __FILE__, __LINE__)
#define CUT_SAFE_CALL(call) do { if (CUTTrue != (call)) { \
  std::fprintf(stderr, "Cut error in file '%s' in line %i.\n", __FILE__, __LINE__); std::exit(EXIT_FAILURE); } } while (0)
#define CUT_CONDITION(val) do { if (CUTFalse == (val)) { \
  std::fprintf(stderr, "Condition error in file '%s' in line %i.\n", __FILE__, __LINE__); std::exit(EXIT_FAILURE); } } while (0)
#define CUT_DEVICE_INIT(ARGC, ARGV) do { \
  int emu_dev_ = 0; cutGetCmdLineArgumenti((ARGC), (const char**)(ARGV), "device", &emu_dev_); \
  cudaDeviceProp emu_prop_; CUDA_SAFE_CALL_NO_SYNC(cudaGetDeviceProperties(&emu_prop_, 0)); \
  if (cutCheckCmdLineFlag((ARGC), (const char**)(ARGV), "quiet") == CUTFalse) \
    std::fprintf(stderr, "Using device %d: %s\n", 0, emu_prop_.name); \
  CUDA_SAFE_CALL(cudaSetDevice(0)); (void)emu_dev_; } while (0)
// "Press ENTER to exit" unless -noprompt; the runs' stdin is empty or --stdin, so it never blocks
#define CUT_EXIT(argc, argv) do { \
  if (!cutCheckCmdLineFlag((argc), (const char**)(argv), "noprompt")) { \
    std::printf("\nPress ENTER to exit...\n"); std::fflush(stdout); std::fflush(stderr); std::getchar(); } \
  std::exit(EXIT_SUCCESS); } while (0)

// the driver API's forms (CUDA 2 SDK); they expand only in a program that includes <cuda.h>
#define CU_SAFE_CALL_NO_SYNC(call) do { CUresult emu_e_ = (call); if (emu_e_ != CUDA_SUCCESS) { \
  std::fprintf(stderr, "Cuda driver error %x in file '%s' in line %i.\n", (unsigned)emu_e_, __FILE__, __LINE__); \
  std::exit(EXIT_FAILURE); } } while (0)
#define CU_SAFE_CALL(call) CU_SAFE_CALL_NO_SYNC(call)
#define CUT_DEVICE_INIT_DRV(cuDevice, ARGC, ARGV) do { \
  int emu_count_ = 0; \
  if (cuInit(0) == CUDA_SUCCESS) CU_SAFE_CALL_NO_SYNC(cuDeviceGetCount(&emu_count_)); \
  if (emu_count_ == 0) { std::fprintf(stderr, "cutil error: no devices supporting CUDA\n"); std::exit(EXIT_FAILURE); } \
  CU_SAFE_CALL_NO_SYNC(cuDeviceGet(&(cuDevice), 0)); \
  char emu_name_[100]; cuDeviceGetName(emu_name_, 100, (cuDevice)); \
  if (cutCheckCmdLineFlag((ARGC), (const char**)(ARGV), "quiet") == CUTFalse) \
    std::fprintf(stderr, "Using device %d: %s\n", 0, emu_name_); } while (0)
