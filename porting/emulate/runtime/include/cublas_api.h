// port emulate: cublas_api.h on the CPU (emu_cublas.h)
#pragma once
#include "emu_cublas.h"
