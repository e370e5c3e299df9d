// port emulate: NVRTC over sources compiled ahead (porting/emulate/modules.py).
//
// A program that includes <nvrtc.h> names the .cu files of its tree it compiles at run time; port
// emulate compiles them into the program with the emulator and gives the runs each one's 64-bit
// FNV-1a hash and translation unit (EMU_NVRTC_SOURCES="hash:unit,..."). nvrtcCompileProgram
// accepts a source string whose bytes hash to one of them and answers, as its PTX and CUBIN, the
// marker cuModuleLoadData takes for that unit (emu_driver.h): the kernels that run are the ones
// compiled from exactly that text. Options (architecture, include paths) have nothing to act on.
// A source string that is none of those files (generated in memory) stops the run as
// unsupported, named: nothing compiles code at run time here.
#pragma once
#include "emu_runtime.h"
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

typedef enum {
  NVRTC_SUCCESS = 0, NVRTC_ERROR_OUT_OF_MEMORY = 1, NVRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
  NVRTC_ERROR_INVALID_INPUT = 3, NVRTC_ERROR_INVALID_PROGRAM = 4, NVRTC_ERROR_INVALID_OPTION = 5,
  NVRTC_ERROR_COMPILATION = 6, NVRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7,
  NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION = 8, NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION = 9,
  NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID = 10, NVRTC_ERROR_INTERNAL_ERROR = 11
} nvrtcResult;
struct _nvrtcProgram { std::string source, name, image; bool compiled = false; };
typedef _nvrtcProgram* nvrtcProgram;

namespace emu { namespace nvrtc {
inline uint64_t fnv1a(const char* s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}
// the unit whose kernels the source was compiled into, or nullptr
inline const char* unit_of(const std::string& source) {
  static std::string units;
  const char* env = std::getenv("EMU_NVRTC_SOURCES");
  char want[17];
  std::snprintf(want, sizeof want, "%016llx", (unsigned long long)fnv1a(source.c_str()));
  for (const char* p = env ? env : ""; *p;) {
    const char* end = std::strchr(p, ',');
    std::string entry(p, end ? end - p : std::strlen(p));
    if (entry.compare(0, 16, want) == 0 && entry.size() > 17) {
      units = entry.substr(17);
      return units.c_str();
    }
    if (!end) break;
    p = end + 1;
  }
  return nullptr;
}
}}  // namespace emu::nvrtc

inline const char* nvrtcGetErrorString(nvrtcResult r) {
  switch (r) {
    case NVRTC_SUCCESS: return "NVRTC_SUCCESS";
    case NVRTC_ERROR_INVALID_INPUT: return "NVRTC_ERROR_INVALID_INPUT";
    case NVRTC_ERROR_INVALID_PROGRAM: return "NVRTC_ERROR_INVALID_PROGRAM";
    case NVRTC_ERROR_COMPILATION: return "NVRTC_ERROR_COMPILATION";
    default: return "NVRTC_ERROR_INTERNAL_ERROR";
  }
}
inline nvrtcResult nvrtcVersion(int* major, int* minor) {
  if (!major || !minor) return NVRTC_ERROR_INVALID_INPUT;
  *major = CUDA_VERSION / 1000;
  *minor = CUDA_VERSION % 1000 / 10;
  return NVRTC_SUCCESS;
}
inline nvrtcResult nvrtcCreateProgram(nvrtcProgram* p, const char* src, const char* name, int, const char* const*,
                                      const char* const*) {
  if (!p || !src) return NVRTC_ERROR_INVALID_INPUT;
  *p = new _nvrtcProgram{src, name ? name : "default_program", "", false};
  return NVRTC_SUCCESS;
}
inline nvrtcResult nvrtcDestroyProgram(nvrtcProgram* p) {
  if (!p || !*p) return NVRTC_ERROR_INVALID_PROGRAM;
  delete *p;
  *p = nullptr;
  return NVRTC_SUCCESS;
}
inline nvrtcResult nvrtcCompileProgram(nvrtcProgram p, int, const char* const*) {
  if (!p) return NVRTC_ERROR_INVALID_PROGRAM;
  const char* unit = emu::nvrtc::unit_of(p->source);
  if (!unit) {
    std::string why = "nvrtcCompileProgram of '" + p->name + "', a source that is not one of the .cu files of the "
                      "program's tree port emulate compiled ahead (source text made or changed at run time)";
    emu::unsupported(why.c_str());
  }
  p->image = std::string("EMU-MODULE\t") + unit + "\n";
  p->compiled = true;
  return NVRTC_SUCCESS;
}
inline nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram p, size_t* n) {
  if (!p || !n) return NVRTC_ERROR_INVALID_INPUT;
  *n = 1;
  return NVRTC_SUCCESS;
}
inline nvrtcResult nvrtcGetProgramLog(nvrtcProgram p, char* log) {
  if (!p || !log) return NVRTC_ERROR_INVALID_INPUT;
  log[0] = '\0';
  return NVRTC_SUCCESS;
}
inline nvrtcResult emu_nvrtc_size(nvrtcProgram p, size_t* n) {
  if (!p || !n) return NVRTC_ERROR_INVALID_INPUT;
  if (!p->compiled) return NVRTC_ERROR_INVALID_PROGRAM;
  *n = p->image.size() + 1;
  return NVRTC_SUCCESS;
}
inline nvrtcResult emu_nvrtc_image(nvrtcProgram p, char* out) {
  if (!p || !out) return NVRTC_ERROR_INVALID_INPUT;
  if (!p->compiled) return NVRTC_ERROR_INVALID_PROGRAM;
  std::memcpy(out, p->image.c_str(), p->image.size() + 1);
  return NVRTC_SUCCESS;
}
inline nvrtcResult nvrtcGetPTXSize(nvrtcProgram p, size_t* n) { return emu_nvrtc_size(p, n); }
inline nvrtcResult nvrtcGetPTX(nvrtcProgram p, char* out) { return emu_nvrtc_image(p, out); }
inline nvrtcResult nvrtcGetCUBINSize(nvrtcProgram p, size_t* n) { return emu_nvrtc_size(p, n); }
inline nvrtcResult nvrtcGetCUBIN(nvrtcProgram p, char* out) { return emu_nvrtc_image(p, out); }
