// port emulate: NVRTC over the tree's .cu files compiled ahead (emu_nvrtc.h, porting/emulate/modules.py).
#pragma once
#include "emu_runtime.h"
#include "emu_nvrtc.h"
