// The module is "warp_sum.ptx": built here from warp_sum.cu, whose reduction follows warpSize.
#include "host.h"
int main() { return run("warp_sum.ptx"); }
