#include "nvrtc_host.h"
int main() { return run_nvrtc("lane_id.cu", false); }
