// rocm-port `port emulate`: the sites of a 64-lane run where a warp collective behaves otherwise
// than in a 32-lane warp. Each is printed once per (kind, file, line) on stderr as
//   emu: site: KIND<TAB>LINE<TAB>FILE<TAB>DETAIL
// and read back by porting/emulate/run.py (the record's `sites`). The kinds:
//   mask-32bit          a *_sync mask with zero upper bits leaves out a lane of the caller's group
//   shuffle-other-half  a lane read another value than a 32-lane warp gives it (its source lane
//                       lies in the other 32-lane half, or the width lets it wrap past lane 31)
//   ballot-64bit        a lane's ballot differs from its 32-lane half's own ballot (bits of the
//                       other half are set)
//   vote-other-half     __any/__all gave a lane another answer than its half alone gives
//   match-other-half    __match_any_sync named lanes of the other half
// and each line whose collective completed at all, once, as `emu: reached:<TAB>LINE<TAB>FILE` (so
// port audit --confirm can tell "behaved as in a 32-lane warp" from "never ran").
// Nothing here runs at 32 lanes, and only when a group completes (never for a plain thread).
#include "emu_internal.h"

#include <cstdarg>

namespace emu {
namespace {
// one pointer per kind: Seen compares kinds by address
constexpr const char* kShuffle = "shuffle-other-half";
constexpr const char* kBallot = "ballot-64bit";
constexpr const char* kVote = "vote-other-half";
constexpr const char* kMatch = "match-other-half";
constexpr const char* kMask = "mask-32bit";
constexpr const char* kReached = "reached";  // not a site: a line whose collective completed at 64 lanes

struct Seen {
  const char* kind;
  const char* file;
  int line;
};

std::vector<Seen>& seen() {
  static std::vector<Seen> v;
  return v;
}

bool reported(const char* kind, const Arrival* a) {
  for (const Seen& s : seen()) {
    if (s.kind == kind && s.line == a->line && (s.file == a->file || std::strcmp(s.file, a->file) == 0)) return true;
  }
  return false;
}

bool already(const char* kind, const Arrival* a) {
  if (reported(kind, a)) return true;
  seen().push_back(Seen{kind, a->file, a->line});
  return false;
}

void note(const char* kind, const Arrival* a, const char* fmt, ...) {
  if (a->file == nullptr || already(kind, a)) return;  // a collective the runtime itself calls has no site
  char buf[400];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "emu: site: %s\t%d\t%s\t%s: %s\n", kind, a->line, a->file, a->name, buf);
}

inline uint64_t bit(int lane) { return 1ull << lane; }
inline uint64_t half_of(int lane) { return lane < 32 ? 0xffffffffull : 0xffffffff00000000ull; }

// The lane a 32-lane warp reads for `lane` (numbered in the 64-lane wavefront): the same index
// arithmetic as emu_warp.cpp's shuffle_source, on the lane's own half with the width cut to 32.
// the common operand sizes compared inline (std::memcmp with a run-time size is a call)
inline bool same_bytes(const void* x, const void* y, int size) {
  if (size == 4) { uint32_t a, b; std::memcpy(&a, x, 4); std::memcpy(&b, y, 4); return a == b; }
  if (size == 8) { uint64_t a, b; std::memcpy(&a, x, 8); std::memcpy(&b, y, 8); return a == b; }
  return std::memcmp(x, y, size) == 0;
}

int source32(const Arrival* a, int lane) {
  const int w = a->width < 32 ? a->width : 32, l = lane & 31, arg = a->arg;
  int src = l;
  switch (a->op) {
    case SHFL_IDX: src = (arg & (w - 1)) + (l & ~(w - 1)); break;
    case SHFL_UP: src = l - arg; if (src < (l & ~(w - 1))) src = l; break;
    case SHFL_DOWN: src = l + arg; if ((l & (w - 1)) + arg >= w) src = l; break;
    default: src = l ^ arg; if (src >= ((l + w) & ~(w - 1))) src = l; break;
  }
  return src + (lane & 32);
}

void check_shuffle(const Arrival* a, int lane, const Arrival* const* at, uint64_t active) {
  int src = source32(a, lane);
  const void* want = (src >= 0 && src < 64 && (active & bit(src))) ? at[src]->in : a->in;
  if (!same_bytes(a->out, want, a->size)) {
    note(kShuffle, a, "lane %d gets another value than in a 32-lane warp, where it reads lane %d "
         "(width %d, operand %d)", lane, src, a->width, a->arg);
  }
}

int pred(const Arrival* a) { return *static_cast<const int*>(a->in) != 0; }

// `preds`: the lanes of the group whose predicate is true (computed once per group)
void check_vote(const Arrival* a, int lane, uint64_t preds, uint64_t part) {
  uint64_t got, mine = part & half_of(lane), want = preds & mine;
  std::memcpy(&got, a->out, sizeof got);
  if (a->op == BALLOT) {
    uint64_t as32 = lane < 32 ? want : want >> 32;  // a 32-lane warp numbers its lanes from 0
    if (got != as32) note(kBallot, a, "lane %d gets 0x%llx, its 32-lane half alone 0x%llx", lane, got, as32);
    return;
  }
  int expect = a->op == ANY ? want != 0 : want == mine;
  if ((int)got != expect) note(kVote, a, "lane %d gets %d, its 32-lane half alone %d", lane, (int)got, expect);
}
const char* kind_of(int op) {
  switch (op) {
    case SHFL_IDX: case SHFL_UP: case SHFL_DOWN: case SHFL_XOR: return kShuffle;
    case BALLOT: return kBallot;
    case ANY: case ALL: return kVote;
    case MATCH_ANY: return kMatch;
    default: return nullptr;  // __syncwarp, __activemask, reductions, match_all: not compared
  }
}
}  // namespace

void site_narrow_mask(const Arrival* a, int lane) {
  note(kMask, a, "lane %d is not in the mask 0x%llx (a 32-bit mask leaves out lanes 32-63)", lane, a->mask);
}

// Call sites (return addresses, Arrival::site) already reached, and those whose line is reported
// for its kind: a direct-mapped cache in front of the linear lists, so a collective in a loop
// costs one comparison per group once its line is known.
static const void* reached_cache[256];
static const void* done_cache[256];
static inline unsigned slot(const void* site) { return (unsigned)(((uintptr_t)site >> 2) * 2654435761u >> 24) & 255u; }

void sites_after_group(const Arrival* const* at, const int* lanes, int n, uint64_t active) {
  if (EMU_WARP != 64) return;
  const Arrival* first = at[lanes[0]];
  if (first->file == nullptr) return;  // a collective the runtime itself calls has no site
  const unsigned k = slot(first->site);
  if (reached_cache[k] != first->site) {
    if (!already(kReached, first)) std::fprintf(stderr, "emu: reached:\t%d\t%s\n", first->line, first->file);
    reached_cache[k] = first->site;
  }
  if (done_cache[k] == first->site) return;
  const char* kind = kind_of(first->op);
  if (kind == nullptr || reported(kind, first)) {  // a line is reported once
    done_cache[k] = first->site;
    return;
  }
  uint64_t preds = 0;
  if (first->op == BALLOT || first->op == ANY || first->op == ALL) {
    for (int i = 0; i < n; ++i) preds |= (uint64_t)pred(at[lanes[i]]) << lanes[i];
  }
  for (int i = 0; i < n; ++i) {
    const Arrival* a = at[lanes[i]];
    uint64_t part = a->synced ? (a->mask & kFull & active) : active;
    switch (a->op) {
      case SHFL_IDX: case SHFL_UP: case SHFL_DOWN: case SHFL_XOR: check_shuffle(a, lanes[i], at, active); break;
      case BALLOT: case ANY: case ALL: check_vote(a, lanes[i], preds, part); break;
      case MATCH_ANY: {
        uint64_t got;
        std::memcpy(&got, a->out, sizeof got);
        if (got & ~half_of(lanes[i])) note(kMatch, a, "lane %d matches lanes of the other 32-lane half", lanes[i]);
        break;
      }
      default: break;
    }
  }
}
}  // namespace emu
