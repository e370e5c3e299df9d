// rocm-port `port emulate`: the command-line helpers of the CUDA samples' helper_string.h
// (`-name=value` flags), written anew; found after the program's own -I directories.
#pragma once
#include <cstdlib>
#include <cstring>

inline int stringRemoveDelimiter(char delimiter, const char* s) {
  int n = 0;
  while (s[n] == delimiter) ++n;
  return n;
}

// argv[i] (dashes removed) when it is `name` or starts `name=`, else nullptr
inline const char* emu_cmd_line_match(int argc, const char** argv, const char* name) {
  size_t len = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i] + stringRemoveDelimiter('-', argv[i]);
    if (std::strncmp(arg, name, len) == 0 && (arg[len] == '\0' || arg[len] == '=')) return arg + len;
  }
  return nullptr;
}
inline bool checkCmdLineFlag(const int argc, const char** argv, const char* name) {
  return emu_cmd_line_match(argc, argv, name) != nullptr;
}
inline int getCmdLineArgumentInt(const int argc, const char** argv, const char* name) {
  const char* v = emu_cmd_line_match(argc, argv, name);
  return v && *v == '=' ? std::atoi(v + 1) : 0;
}
inline float getCmdLineArgumentFloat(const int argc, const char** argv, const char* name) {
  const char* v = emu_cmd_line_match(argc, argv, name);
  return v && *v == '=' ? (float)std::atof(v + 1) : 0.0f;
}
inline bool getCmdLineArgumentString(const int argc, const char** argv, const char* name, char** value) {
  const char* v = emu_cmd_line_match(argc, argv, name);
  if (!v || *v != '=') return false;
  *value = const_cast<char*>(v + 1);
  return true;
}
