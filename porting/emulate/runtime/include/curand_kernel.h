// port emulate: curand_kernel.h on the CPU (emu_curand.h)
#pragma once
#include "emu_curand.h"
