// port emulate: <cufft.h> on the CPU (emu_cufft.h)
#pragma once
#include "emu_cufft.h"
