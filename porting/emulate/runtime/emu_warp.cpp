// rocm-port `port emulate`: the warp collectives. A lane that reaches one (shuffle, vote, match,
// reduce, __syncwarp) records its Arrival and suspends; when no fiber of the block can run, the
// scheduler (emu_scheduler.cpp) completes them per warp here: the lanes waiting at one call site
// are that collective's active lanes, and the *_sync masks are checked against them.
#include "emu_internal.h"

#include <cstdarg>

namespace emu {
namespace {
inline uint64_t bit(int lane) { return 1ull << lane; }

void warn_inactive_source(Runtime& r, const Arrival* a, int lane, int src) {
  if (std::find(r.warned_sites.begin(), r.warned_sites.end(), a->site) != r.warned_sites.end()) return;
  r.warned_sites.push_back(a->site);
  std::fprintf(stderr, "emu: warning: %s: lane %d reads lane %d, which is not active at this call; a GPU "
               "returns an undefined value, the emulator the caller's own [warp %d]\n", a->name, lane, src, EMU_WARP);
}

// How a *_sync call whose mask is wrong goes on (port emulate sets these from its options):
//   EMU_MASK_FAULTS=stop (default) | report: a 32-bit mask at 64 lanes that leaves out the caller
//     faults, or is reported once per call site as a finding and widened to both halves
//     (mask | mask << 32: what the 32-lane code meant), so the run's results can still be compared;
//   EMU_SYNC=hardware (default) | strict: a mask naming a lane that waits at another call site is
//     undefined in CUDA but runs on NVIDIA GPUs (independent thread scheduling): reported once
//     per call site and resolved with the lanes that arrived, or a fault under strict.
bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, value) == 0;
}
bool mask_report() { static const bool on = env_is("EMU_MASK_FAULTS", "report"); return on; }
bool sync_strict() { static const bool on = env_is("EMU_SYNC", "strict"); return on; }

void finding(Runtime& r, const Arrival* a, const char* fmt, ...) {
  if (std::find(r.finding_sites.begin(), r.finding_sites.end(), a->site) != r.finding_sites.end()) return;
  r.finding_sites.push_back(a->site);
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "emu: finding: %s [warp %d: block (%u,%u,%u) thread (%u,%u,%u)]\n", buf, EMU_WARP,
               blockIdx.x, blockIdx.y, blockIdx.z, r.cur->tid.x, r.cur->tid.y, r.cur->tid.z);
}

// A 32-bit mask at 64 lanes that leaves out a caller: under EMU_MASK_FAULTS=report, every such
// mask of the group is widened before any lane completes, so all lanes see one consistent group.
void widen_narrow_masks(Runtime& r, int base, const int* lanes, int n) {
  if (EMU_WARP != 64 || !mask_report()) return;
  for (int i = 0; i < n; ++i) {
    Arrival* a = r.fibers[base + lanes[i]].arrival;
    if (!a->synced || (a->mask & bit(lanes[i])) || (a->mask >> 32) != 0) continue;
    r.cur = &r.fibers[base + lanes[i]];
    finding(r, a, "%s: lane %d is not in its mask 0x%llx (a 32-bit mask leaves out lanes 32-63 of a 64-lane "
            "wavefront); continuing with the mask widened to 0x%llx", a->name, lanes[i], a->mask,
            (a->mask & 0xffffffffull) | (a->mask << 32));
    site_narrow_mask(a, lanes[i]);  // emu_sites.cpp: the line, for port audit --confirm
    for (int j = 0; j < n; ++j) {
      Arrival* b = r.fibers[base + lanes[j]].arrival;
      if (b->synced && (b->mask >> 32) == 0) b->mask |= b->mask << 32;
    }
    return;
  }
}

void check_mask(Runtime& r, int lane, const Arrival* a, uint64_t active, uint64_t gone) {
  uint64_t m = a->mask & kFull;
  if (!(m & bit(lane))) {
    if (EMU_WARP == 64 && (a->mask >> 32) == 0) site_narrow_mask(a, lane);
    faultf("%s: lane %d is not in its mask 0x%llx%s", a->name, lane, a->mask,
           (EMU_WARP == 64 && (a->mask >> 32) == 0) ? " (a 32-bit mask leaves out lanes 32-63 of a 64-lane wavefront)" : "");
  }
  uint64_t missing = m & ~active & ~gone;
  if (missing && sync_strict()) {
    faultf("%s: mask 0x%llx names lane %d, which has not exited but does not reach this call "
           "(it waits at another call site or barrier)", a->name, a->mask, __builtin_ctzll(missing));
  }
  if (missing) {
    finding(r, a, "%s: mask 0x%llx names lane %d, which waits at another call site or barrier (undefined in "
            "CUDA; NVIDIA GPUs run it under independent thread scheduling): continuing with the lanes that "
            "arrived", a->name, a->mask, __builtin_ctzll(missing));
  }
}

int shuffle_source(Runtime& r, const Arrival* a, int lane) {
  int w = a->width;
  if (w < 1 || w > EMU_WARP || (w & (w - 1)) != 0) {
    faultf("%s: width %d is not a power of two in [1, %d]", a->name, w, EMU_WARP);
  }
  int src = lane;
  switch (a->op) {  // the index arithmetic of HIP's amd_warp_functions.h (CUDA's is the same)
    case SHFL_IDX: src = (a->arg & (w - 1)) + (lane & ~(w - 1)); break;
    case SHFL_UP: src = lane - a->arg; if (src < (lane & ~(w - 1))) src = lane; break;
    case SHFL_DOWN: src = lane + a->arg; if ((lane & (w - 1)) + a->arg >= w) src = lane; break;
    case SHFL_XOR: src = lane ^ a->arg; if (src >= ((lane + w) & ~(w - 1))) src = lane; break;
    default: break;
  }
  return src;
}

uint32_t reduce32(const Arrival* const* at, uint64_t part, int op, bool is_signed) {
  int64_t acc = 0;
  bool first = true;
  for (int p = 0; p < EMU_WARP; ++p) {
    if (!(part & bit(p))) continue;
    uint32_t u;
    std::memcpy(&u, at[p]->in, 4);
    int64_t v = is_signed ? (int64_t)(int32_t)u : (int64_t)u;
    if (first) { acc = (op == RED_ADD) ? (int64_t)u : v; first = false; continue; }
    switch (op) {
      case RED_ADD: acc = (int64_t)(uint32_t)((uint32_t)acc + u); break;
      case RED_MIN: acc = std::min(acc, v); break;
      case RED_MAX: acc = std::max(acc, v); break;
      case RED_AND: acc = (int64_t)((uint32_t)acc & u); break;
      case RED_OR: acc = (int64_t)((uint32_t)acc | u); break;
      default: acc = (int64_t)((uint32_t)acc ^ u); break;
    }
  }
  return (uint32_t)acc;
}

int pred_of(const Arrival* a) { return *static_cast<const int*>(a->in) != 0; }

void complete(Runtime& r, int base, int lane, Arrival* a, const Arrival* const* at, uint64_t part, uint64_t active) {
  uint64_t out = 0;
  switch (a->op) {
    case SHFL_IDX: case SHFL_UP: case SHFL_DOWN: case SHFL_XOR: {
      int src = shuffle_source(r, a, lane);
      if (src < 0 || src >= EMU_WARP || !(active & bit(src))) {
        warn_inactive_source(r, a, lane, src);
        src = lane;
      }
      std::memcpy(a->out, at[src]->in, a->size);
      return;
    }
    case BALLOT: for (int p = 0; p < EMU_WARP; ++p) if ((part & bit(p)) && pred_of(at[p])) out |= bit(p); break;
    case ANY: for (int p = 0; p < EMU_WARP; ++p) if ((part & bit(p)) && pred_of(at[p])) out = 1; break;
    case ALL: out = 1; for (int p = 0; p < EMU_WARP; ++p) if ((part & bit(p)) && !pred_of(at[p])) out = 0; break;
    case ACTIVEMASK: out = active; break;
    case SYNCWARP: return;
    case MATCH_ANY: case MATCH_ALL: {
      uint64_t same = 0;
      for (int p = 0; p < EMU_WARP; ++p)
        if ((part & bit(p)) && std::memcmp(at[p]->in, a->in, a->size) == 0) same |= bit(p);
      if (a->op == MATCH_ANY) { out = same; break; }
      a->pred_out = same == part;
      out = same == part ? part : 0;
      break;
    }
    default: {
      uint32_t v = reduce32(at, part, a->op, a->is_signed);
      std::memcpy(a->out, &v, 4);
      return;
    }
  }
  std::memcpy(a->out, &out, sizeof out);
  (void)base;
}

void resolve_group(Runtime& r, int base, const int* lanes, int n, uint64_t gone) {
  const Arrival* at[64] = {};
  uint64_t active = 0;
  for (int i = 0; i < n; ++i) {
    at[lanes[i]] = r.fibers[base + lanes[i]].arrival;
    active |= bit(lanes[i]);
  }
  widen_narrow_masks(r, base, lanes, n);
  for (int i = 0; i < n; ++i) {
    Arrival* a = r.fibers[base + lanes[i]].arrival;
    r.cur = &r.fibers[base + lanes[i]];  // a fault names this lane's thread
    if (a->synced) check_mask(r, lanes[i], a, active, gone);
    uint64_t part = a->synced ? (a->mask & kFull & active) : active;
    complete(r, base, lanes[i], a, at, part, active);
  }
  if (EMU_WARP == 64) sites_after_group(at, lanes, n, active);  // emu_sites.cpp
  r.cur = &r.sched;
  for (int i = 0; i < n; ++i) r.fibers[base + lanes[i]].state = READY;
}
}  // namespace

bool resolve_warp(Runtime& r, int w) {
  int base = w * EMU_WARP;
  uint64_t gone = 0;
  int waiting[64];
  int nw = 0;
  for (int l = 0; l < EMU_WARP; ++l) {
    int t = base + l;
    if (t >= r.nthreads || r.fibers[t].state == DONE) gone |= bit(l);
    else if (r.fibers[t].state == AT_WARP) waiting[nw++] = l;
  }
  if (nw == 0) return false;
  // the lanes waiting at one call site are that collective's active lanes
  bool taken[64] = {};
  int group[64];
  for (int i = 0; i < nw; ++i) {
    if (taken[i]) continue;
    const void* site = r.fibers[base + waiting[i]].arrival->site;
    int n = 0;
    for (int j = i; j < nw; ++j) {
      if (!taken[j] && r.fibers[base + waiting[j]].arrival->site == site) {
        taken[j] = true;
        group[n++] = waiting[j];
      }
    }
    resolve_group(r, base, group, n, gone);
  }
  return true;
}

__attribute__((noinline)) void arrive(Arrival* a) {
  a->site = __builtin_return_address(0);  // the call site in the kernel: lanes meet per site
  Runtime& r = rt();
  current(r).arrival = a;
  suspend(AT_WARP);
}
}  // namespace emu
