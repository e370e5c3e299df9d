// The module is "warp_sum_bad64.fatbin" (the samples' naming: the .cu's stem and the bitness):
// built from warp_sum_bad.cu, which takes every 32nd lane for a warp's first lane.
#include "host.h"
int main() { return run("warp_sum_bad64.fatbin"); }
