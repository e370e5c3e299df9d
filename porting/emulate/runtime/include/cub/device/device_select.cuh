// port emulate: <cub/device/device_select.cuh> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
