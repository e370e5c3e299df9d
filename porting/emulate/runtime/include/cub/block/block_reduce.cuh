// port emulate: <cub/block/block_reduce.cuh> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
