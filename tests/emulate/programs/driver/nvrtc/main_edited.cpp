// The source string differs from lane_mod.cu (a line appended in memory): not what was compiled.
#include "nvrtc_host.h"
int main() { return run_nvrtc("lane_mod.cu", true); }
