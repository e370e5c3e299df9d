#pragma once
#include <cufft.h>
