// port emulate: <cub/iterator/counting_input_iterator.cuh> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
