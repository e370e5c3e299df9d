// port emulate: <cub/device/device_run_length_encode.cuh> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
