// rocm-port `port emulate`, part of emu_runtime.h: where in the program a warp collective ran
// that behaves otherwise at 64 lanes than in a 32-lane warp (`port audit --confirm` ties these
// sites to its findings' lines; docs/emulate.md, "Sites").
//
// Every public warp collective (emu_device.h) ends with the parameters EMU_SITE, whose defaults
// are evaluated at the caller: __builtin_FILE() / __builtin_LINE() name the line of the program
// that calls __shfl_down_sync (or the helper's line, when a helper calls it). port emulate's
// rewrite keeps every line where it was, so these are the user's own lines; the file is the
// mirror under OUT/src, which the Python side maps back. The cost is two stores per arrival.
#pragma once
#include <cstdint>

#define EMU_SITE const char* emu_site_file_ = __builtin_FILE(), int emu_site_line_ = __builtin_LINE()
#define EMU_SITE_ARGS emu_site_file_, emu_site_line_

namespace emu {
struct Arrival;
// A *_sync mask at 64 lanes whose upper 32 bits are zero leaves out `lane` (emu_warp.cpp calls
// this before it faults or widens the mask).
void site_narrow_mask(const Arrival* a, int lane);
// After a group of lanes completed one collective at 64 lanes: compares what each lane got with
// what the lanes of its 32-lane half would have got as a warp of their own (emu_sites.cpp).
// `at` holds the group's arrivals by lane (emu_warp.cpp's resolve_group).
void sites_after_group(const Arrival* const* at, const int* lanes, int n, uint64_t active);
}  // namespace emu
