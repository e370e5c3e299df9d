// port emulate: <cub/cub.cuh> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
