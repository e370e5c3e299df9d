// A program's own helper_timer.h: it wins over the emulator's fallback copy.
#pragma once
inline const char* whose_timer() { return "the program's own"; }
