// port emulate: cuda_bf16.h on the CPU (emu_fp16.h)
#pragma once
#include "emu_fp16.h"
