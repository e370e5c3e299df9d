// port emulate: cublas_v2.h on the CPU (emu_cublas.h)
#pragma once
#include "emu_cublas.h"
