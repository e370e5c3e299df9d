// port emulate: the runtime (emu_runtime.h) is force-included into every translation unit;
// `#include <cuda.h>` adds the plain parts of the driver API (emu_driver.h: devices, contexts,
// memory, copies, streams, events, and modules built from a .cu of the program's tree with their
// launches: porting/emulate/modules.py); the linker and libraries are refused (refuse.py).
#pragma once
#include "emu_runtime.h"
#include "emu_driver.h"
