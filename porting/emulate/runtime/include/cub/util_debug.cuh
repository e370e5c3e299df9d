// port emulate: <cub/util_debug.cuh> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
