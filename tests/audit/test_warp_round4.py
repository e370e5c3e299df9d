"""Issue 26, round 4 (classes seen in corpus 4's hold-out misses; own programs, not its code).

- A ballot compared with a 32-bit all-ones constant (``__ballot_sync(m, done) == ~0u``,
  ``0xffffffff != __ballot_sync(...)``): on a 64-lane wavefront the ballot has 64 bits, so the test
  is false when all 64 lanes vote (an early exit that never happens). ``~0`` / ``-1`` (signed,
  sign-extended) and ``~0ull`` are right at 64 and stay quiet."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths

TILE_DONE = """__global__ void raster(const int* work, int* out, int n) {
  unsigned long long full = ~0ull;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    bool done = work[i] == 0;
    if (__ballot_sync(full, done) == ~0u)
      break;
    out[i] += work[i];
  }
  if (0xFFFFFFFFu != __ballot_sync(full, out[threadIdx.x] > 0))
    out[0] = 1;
}
"""
# the same kernel comparing with the wavefront's full mask: right at 64
TILE_DONE_64 = TILE_DONE.replace("== ~0u", "== ~0ull").replace("0xFFFFFFFFu !=", "full !=")
# `~0` and `-1` are ints, sign-extended to all 64 ones when compared with the 64-bit ballot: right
TILE_DONE_SIGNED = TILE_DONE.replace("== ~0u", "== ~0").replace("0xFFFFFFFFu !=", "-1 !=")
# the input that should break the rule: a 32-bit constant inside the ballot's arguments (its mask)
# is not a comparison of its result; only the mask rule speaks there
MASK_ONLY = TILE_DONE_64.replace("__ballot_sync(full, done)", "__ballot_sync(0xffffffffu, done == (0xffffffffu == 0))")


def rules(tmp_path: Path, name: str, text: str) -> list[tuple[int, str]]:
    (tmp_path / name).write_text(text)
    return sorted((f.line, f.rule) for f in audit_paths([tmp_path / name], jobs=1).findings)


def test_a_ballot_compared_with_32_bit_all_ones_is_named(tmp_path: Path) -> None:
    found = rules(tmp_path, "raster.cu", TILE_DONE)
    assert (5, "ballot-32bit") in found and (9, "ballot-32bit") in found


def test_a_ballot_compared_with_a_64_bit_or_signed_all_ones_is_quiet(tmp_path: Path) -> None:
    assert not [r for r in rules(tmp_path, "raster64.cu", TILE_DONE_64) if r[1] == "ballot-32bit"]
    assert not [r for r in rules(tmp_path, "rasters.cu", TILE_DONE_SIGNED) if r[1] == "ballot-32bit"]


def test_a_32_bit_constant_inside_the_ballot_arguments_is_not_a_comparison(tmp_path: Path) -> None:
    found = rules(tmp_path, "mask.cu", MASK_ONLY)
    assert (5, "warp-mask-32bit") in found and (5, "ballot-32bit") not in found


# A ballot re-assigned to a variable declared 32-bit (and first filled) in an earlier statement:
# each `amask = __ballot_sync(amask, ...)` drops lanes 32-63 again (corpus 2's btree 669 class).
REASSIGNED = """__global__ void grads(const int* item, float* g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int amask = __ballot_sync(~0ull, i < n);
  if (i >= n) return;
  bool fail = item[i] < 0;
  amask = __ballot_sync(amask, !fail);
  if (fail) return;
  g[i] = __popcll(amask);
}
"""
# declared 64-bit: right at 64, quiet
REASSIGNED_64 = REASSIGNED.replace("unsigned int amask", "unsigned long long amask")
# the input that breaks it: a second name declared after an initializer holding a comma
# (`unsigned a = __ballot_sync(m, p), b;`) is not seen as 32-bit, so `b = __ballot_sync(...)` is
# missed; the declaration's own ballot (a) is still named
BREAKS = REASSIGNED.replace("unsigned int amask = __ballot_sync(~0ull, i < n);",
                            "unsigned int first = __ballot_sync(~0ull, i < n), amask;")


def test_a_ballot_reassigned_to_a_32_bit_variable_declared_earlier_is_named(tmp_path: Path) -> None:
    found = rules(tmp_path, "grads.cu", REASSIGNED)
    assert (3, "ballot-32bit") in found and (6, "ballot-32bit") in found


def test_a_ballot_reassigned_to_a_64_bit_variable_is_quiet(tmp_path: Path) -> None:
    assert not [r for r in rules(tmp_path, "grads64.cu", REASSIGNED_64) if r[1] == "ballot-32bit"]


def test_a_name_declared_after_an_initializer_with_a_comma_is_the_known_miss(tmp_path: Path) -> None:
    found = rules(tmp_path, "grads_b.cu", BREAKS)
    assert (3, "ballot-32bit") in found and (6, "ballot-32bit") not in found


# a name declared in the call's own statement is no re-assignment: `while (auto q = __ballot(..))`
# after a 32-bit `q` of another scope (64-bit on HIP: right), and a 32-bit store of another
# intrinsic's result that merely takes __activemask() as its mask
OWN_STATEMENT = """__device__ unsigned other(int p) { uint32_t q = p; return q; }
__global__ void walk(int* out, bool todo) {
  while (auto q = __ballot_sync(~0ull, todo)) {
    int src = __ffsll(q) - 1;
    todo = todo && threadIdx.x != src;
  }
  uint32_t q;
  int m = __match_any_sync(__activemask(), (unsigned long long)out);
  out[threadIdx.x] = m;
}
"""


def test_a_declaration_in_the_calls_own_statement_is_not_a_reassignment(tmp_path: Path) -> None:
    assert not [r for r in rules(tmp_path, "walk.cu", OWN_STATEMENT) if r[1] == "ballot-32bit"]
