// port emulate: <cub/util_ptx.cuh> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
