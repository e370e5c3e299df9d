// port emulate: cusparse_v2.h on the CPU (emu_cusparse.h)
#pragma once
#include "emu_cusparse.h"
