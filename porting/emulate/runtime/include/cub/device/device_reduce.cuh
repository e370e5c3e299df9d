// port emulate: <cub/device/device_reduce.cuh> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
