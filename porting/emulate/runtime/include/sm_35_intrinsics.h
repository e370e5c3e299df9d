// port emulate: the runtime (emu_runtime.h) is force-included into every translation unit;
// this header only lets `#include <sm_35_intrinsics.h>` resolve to it instead of a GPU toolkit's.
#pragma once
#include "emu_runtime.h"
