// rocm-port `port emulate`: the CUDA 4 SDK's shrQATest.h (the samples' pass/fail banner), written
// anew; found after the program's own -I directories.
#pragma once
#include <cstdio>
#include <cstdlib>

enum eQAstatus { QA_FAILED = 0, QA_PASSED = 1, QA_WAIVED = 2 };

inline void shrQAStart(int argc, char** argv) {
  std::printf("[%s] starting...\n", argc > 0 ? argv[0] : "program");
}
inline void shrQAFinish(int argc, const char** argv, int status) {
  const char* word[] = {"FAILED", "PASSED", "WAIVED"};
  std::printf("[%s] test results...\n%s\n\n", argc > 0 ? argv[0] : "program", word[status >= 0 && status <= 2 ? status : 0]);
}
inline void shrQAFinishExit(int argc, const char** argv, int status) {
  shrQAFinish(argc, argv, status);
  std::exit(status == QA_PASSED || status == QA_WAIVED ? EXIT_SUCCESS : EXIT_FAILURE);
}
inline void shrQAFinishExit2(bool ok, int argc, const char** argv) {
  shrQAFinishExit(argc, argv, ok ? QA_PASSED : QA_FAILED);
}
