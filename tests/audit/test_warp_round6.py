"""Issue 26, round 6 (classes seen in corpus 6's TUNE half, after both halves ran once; own
programs, not its code).

- A 32-lane logical-warp function (``lane = tid & 0x1F``, width-32 shuffles) that also takes a raw
  ``__ballot`` / ``__ballot_sync`` picks lanes or counts from a vote of the whole 64-lane wavefront,
  so its halves are not independent: no "consistent at 64" note there (as beside ``__all``/``__any``).
- A ballot stored through a parenthesis (``uint32_t e = (__ballot_sync(m, p)) & MASK;``) or into
  nvbio's ``uint32`` typedef is a 32-bit store.
- A ballot compared with ``static_cast<unsigned>(-1)`` / ``(uint32_t)-1`` (32-bit all-ones) is false
  when all 64 lanes vote, like ``== ~0u``."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths

QUEUE = """__global__ void drain(const unsigned* keys, unsigned* table, int n) {
  unsigned lane = threadIdx.x & 0x1F;
  bool todo = threadIdx.x < n;
  unsigned work = 0;
  while ((work = __ballot_sync(0xFFFFFFFFu, todo))) {
    unsigned src = __ffs(work) - 1;
    unsigned key = __shfl_sync(0xFFFFFFFFu, keys[threadIdx.x], src, 32);
    if (lane == src) { table[key % 1024] = key; todo = false; }
  }
}
"""
# the same 32-lane logical warp without the wavefront-wide ballot: its halves are independent
QUEUE_NO_BALLOT = """__global__ void rotate(const unsigned* keys, unsigned* out) {
  unsigned lane = threadIdx.x & 0x1F;
  unsigned key = __shfl_sync(0xFFFFFFFFu, keys[threadIdx.x], (lane + 1) % 32, 32);
  out[threadIdx.x] = key;
}
"""
STORES = """typedef unsigned int uint32;
__global__ void votes(const int* v, unsigned* out, unsigned long long* wide) {
  uint32_t hit = (__ballot_sync(0xFFFFFFFFu, v[threadIdx.x] > 0)) & 0x55555555u;
  const uint32 mask = __ballot_sync(0xFFFFFFFFu, v[threadIdx.x] < 0);
  unsigned long long ok = (__ballot_sync(0xFFFFFFFFu, v[threadIdx.x] == 0));
  if (__ballot_sync(0xFFFFFFFFu, true) == static_cast<unsigned>(-1)) out[0] = hit + mask;
  if ((uint32_t)-1 != __ballot_sync(0xFFFFFFFFu, true)) wide[0] = ok;
  if (__ballot_sync(0xFFFFFFFFu, true) == static_cast<unsigned long long>(-1)) wide[1] = ok;
}
"""
# the input that breaks it: a ballot masked to its own half (`b >> (threadIdx.x & 32)`) before any
# lane is picked keeps the halves independent, but the function still loses its notes


def found(tmp_path: Path, name: str, text: str) -> list[tuple[int, str]]:
    (tmp_path / name).write_text(text)
    return sorted((f.line, f.rule) for f in audit_paths([tmp_path / name], jobs=1).findings)


def test_a_wavefront_ballot_withholds_the_consistency_note(tmp_path: Path) -> None:
    rules = found(tmp_path, "drain.cu", QUEUE)
    assert not [r for r in rules if r[1] == "warp32-logical"], rules
    assert (5, "ballot-32bit") in rules


def test_logical_warps_without_a_ballot_keep_their_note(tmp_path: Path) -> None:
    assert (2, "warp32-logical") in found(tmp_path, "rotate.cu", QUEUE_NO_BALLOT)


def test_parenthesised_typedef_and_cast_all_ones_ballots_are_named(tmp_path: Path) -> None:
    rules = found(tmp_path, "votes.cu", STORES)
    named = {line for line, rule in rules if rule == "ballot-32bit"}
    assert {3, 4, 6, 7} <= named and 5 not in named and 8 not in named, rules


HALF_MASKED = QUEUE_NO_BALLOT.replace(
    "  out[threadIdx.x] = key;",
    "  unsigned long long b = __ballot_sync(~0ull, key > 0) >> (threadIdx.x & 32);\n"
    "  out[threadIdx.x] = key + __popcll(b & 0xFFFFFFFFull);")


def test_a_ballot_masked_to_its_own_half_is_the_known_miss(tmp_path: Path) -> None:
    # right at 64 (each half reads its own 32 bits), yet the note is withheld
    assert not [r for r in found(tmp_path, "half.cu", HALF_MASKED) if r[1] == "warp32-logical"]
