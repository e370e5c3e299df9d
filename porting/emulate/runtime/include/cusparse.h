// port emulate: cusparse.h on the CPU (emu_cusparse.h)
#pragma once
#include "emu_cusparse.h"
