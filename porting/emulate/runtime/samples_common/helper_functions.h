// rocm-port `port emulate`: the CUDA samples' helper_functions.h umbrella (timers and command-line
// helpers), written anew; found after the program's own -I directories.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "helper_string.h"
#include "helper_timer.h"
