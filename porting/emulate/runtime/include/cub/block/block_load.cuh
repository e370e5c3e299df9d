// port emulate: <cub/block/block_load.cuh> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
