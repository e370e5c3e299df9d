// port emulate: <cub/iterator/constant_input_iterator.cuh> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
