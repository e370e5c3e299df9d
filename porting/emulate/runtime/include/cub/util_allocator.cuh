// port emulate: <cub/util_allocator.cuh> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
