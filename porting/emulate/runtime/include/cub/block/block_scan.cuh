// port emulate: <cub/block/block_scan.cuh> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
