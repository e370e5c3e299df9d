"""Issue 26, round 8 (classes seen in corpus 7's TUNE half; own programs, not its code). Each class:
the program that shows it, a correct variant that stays quiet, and the input that breaks the rule.

- (1) A width-less shuffle in a 32-lane logical warp whose source lane is data chosen by a test on
  the thread (``bucket = (idx < n) ? classify(key) : LAST``, packed one per byte and read back
  with ``& 0xFF``) reads another lane's bucket: lanes wrap at 64 on a 64-lane wavefront, so lanes
  32-63 read the lower half. A ternary's condition is not the value: only a source lane whose value
  is a thread index (``threadIdx.x ^ 1``, the same lane at 64) is left alone."""

from __future__ import annotations

from pathlib import Path

from porting.audit.scan import audit_paths


def found(tmp_path: Path, name: str, text: str) -> list[tuple[int, str]]:
    (tmp_path / name).write_text(text)
    return sorted((f.line, f.rule) for f in audit_paths([tmp_path / name], jobs=1).findings)


BYTE_BUCKETS = """__device__ unsigned classify(unsigned key) { return key >> 27; }
__global__ void scatter(const unsigned* in, unsigned* out, unsigned n) {
  unsigned lane = threadIdx.x & 31;
  unsigned idx = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned packed = 0;
  unsigned count = 0;
  for (int r = 0; r < 4; r++) {
    unsigned bucket = (idx < n) ? classify(in[idx]) : 31;
    packed |= bucket << (r << 3);
    count += __popc(__ballot_sync(0xffffffff, bucket == lane));
  }
  for (int r = 0; r < 4; r++) {
    unsigned base = __shfl_sync(0xffffffff, count, packed & 0xFF);
    unsigned fixed = __shfl_sync(0xffffffff, count, packed & 0xFF, 32);
    unsigned pair = (idx < n) ? threadIdx.x ^ 1 : threadIdx.x;
    unsigned mine = __shfl_sync(0xffffffff, count, pair);
    out[idx] = base + fixed + mine + lane;
    packed >>= 8;
  }
}
"""


def test_byte_packed_bucket_lane_is_named(tmp_path: Path) -> None:
    got = found(tmp_path, "byte_buckets.cu", BYTE_BUCKETS)
    assert (13, "shfl-fixed-lane") in got  # packed & 0xFF: a bucket id, lanes 32-63 read the lower half
    assert (14, "shfl-fixed-lane") not in got  # width 32: each half reads its own
    # the input that breaks the rule: a ternary whose VALUE is the thread index (threadIdx.x ^ 1)
    # is an absolute lane, the same lane at 64: quiet
    assert (16, "shfl-fixed-lane") not in got
