#pragma once
#define USED_VALUE 7
