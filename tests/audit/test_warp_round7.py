"""Issue 26, round 7 (classes seen in corpus 6's TUNE half; own programs, not its code). Each class:
the program that shows it, a correct variant that stays quiet, and the input that breaks the rule.

- (d) A ballot handed on in 32 bits: returned from a function declared to return ``unsigned`` /
  ``uint32_t`` / ``int``, or passed straight to a function of the file whose only parameter is a
  32-bit integer (a user ``find_msb(unsigned)``). Either conversion drops lanes 32-63. A function
  returning 64 bits, a test of the ballot (``return __ballot(p) != 0``), a template or 64-bit
  overload of the callee, and a file whose every launch runs blocks of at most 32 threads (no lane
  32-63 exists) stay quiet."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths


def found(tmp_path: Path, name: str, text: str) -> list[tuple[int, str]]:
    (tmp_path / name).write_text(text)
    return sorted((f.line, f.rule) for f in audit_paths([tmp_path / name], jobs=1).findings)


HANDED_ON = """__device__ unsigned find_msb(unsigned word) { return 31 - __clz(word); }
__device__ unsigned wide_msb(unsigned long long w) { return 63 - __clzll(w); }
template <typename T> __device__ unsigned any_msb(T w) { return 8 * sizeof(T) - 1 - __clzll(w); }
__device__ unsigned group_ballot(bool p) {
  return __ballot_sync(__activemask(), p);
}
__device__ unsigned long long wide_ballot(bool p) {
  return __ballot_sync(__activemask(), p);
}
__device__ bool any_set(bool p) {
  return __ballot_sync(__activemask(), p) != 0;
}
__device__ unsigned count_set(bool p) {
  return __popcll(__ballot_sync(__activemask(), p));
}
__global__ void elect(int* out) {
  bool p = out[threadIdx.x] > 0;
  unsigned leader = find_msb(__ballot_sync(__activemask(), p));
  unsigned l2 = wide_msb(__ballot_sync(__activemask(), p));
  unsigned l3 = any_msb(__ballot_sync(__activemask(), p));
  out[threadIdx.x] = leader + l2 + l3 + group_ballot(p) + wide_ballot(p) + any_set(p) + count_set(p);
}
"""


def ballots(rules: list[tuple[int, str]]) -> set[int]:
    return {line for line, rule in rules if rule == "ballot-32bit"}


def test_a_ballot_returned_or_passed_in_32_bits_is_named(tmp_path: Path) -> None:
    assert ballots(found(tmp_path, "elect.cu", HANDED_ON)) == {5, 18}


def test_a_file_of_one_warp_blocks_keeps_them_quiet(tmp_path: Path) -> None:
    # every launch runs 32 threads: the ballot has no bit above 31 to lose
    launched = HANDED_ON + "void run(int* d) { elect<<<4, 32>>>(d); }\n"
    assert ballots(found(tmp_path, "elect32.cu", launched)) == set()
    wide = HANDED_ON + "void run(int* d) { elect<<<4, 256>>>(d); }\n"
    assert ballots(found(tmp_path, "elect256.cu", wide)) == {5, 18}


# the input that breaks it: the callee declared only in a header the file does not include (or in
# an angle-bracket include) is not seen, so the 32-bit parameter goes unnamed; likewise a ballot
# kept in a 64-bit variable first and then passed (`find_msb(b)`)
UNSEEN = HANDED_ON.replace("__device__ unsigned find_msb(unsigned word) { return 31 - __clz(word); }\n",
                           '#include <bits.cuh>\n')


def test_a_callee_declared_out_of_sight_is_the_known_miss(tmp_path: Path) -> None:
    assert ballots(found(tmp_path, "unseen.cu", UNSEEN)) == {5}
