// port emulate: <hipcub/hipcub.hpp> on the CPU (emu_cub.h)
#pragma once
#include "emu_cub.h"
