// port emulate: <cub/warp/warp_reduce.cuh> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
