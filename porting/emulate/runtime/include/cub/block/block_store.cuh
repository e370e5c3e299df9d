// port emulate: <cub/block/block_store.cuh> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
