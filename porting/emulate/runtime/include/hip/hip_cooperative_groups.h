// port emulate: HIP's name for cooperative_groups.h
#pragma once
#include "../cooperative_groups.h"
