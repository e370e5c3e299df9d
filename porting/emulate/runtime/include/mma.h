// port emulate: mma.h (tensor-core WMMA) on the CPU (emu_wmma.h)
#pragma once
#include "emu_wmma.h"
