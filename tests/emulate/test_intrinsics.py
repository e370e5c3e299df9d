"""Every warp intrinsic against a reference table of its semantics, at 32 and 64 lanes.

programs/intrinsics.cu prints each intrinsic's result per thread; REFERENCE below says what
CUDA (32 lanes) and HIP on a 64-lane wavefront return, written from their documented index
arithmetic (CUDA Programming Guide, warp shuffle/vote/match/reduce functions; HIP's
amd_warp_functions.h), independently of the C++ runtime. Lanes that exited are inactive;
a shuffle from an inactive lane returns the caller's own value (a GPU returns an undefined
one; docs/emulate.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

PROGRAM = Path(__file__).parent / "programs" / "intrinsics.cu"
THREADS = 128


@dataclass
class Lane:
    tid: int
    width: int          # W
    active: list[int]   # active thread ids of this thread's warp
    block: list[int]    # every thread of the block that did not exit

    @property
    def lane(self) -> int:
        return self.tid % self.width

    @property
    def base(self) -> int:
        return self.tid - self.lane

    def mask(self, tids) -> int:
        return sum(1 << (t - self.base) for t in tids)

    def value_at(self, src_lane: int) -> int:
        src = self.base + src_lane
        return src * 10 + 1 if 0 <= src_lane < self.width and src in self.active else self.tid * 10 + 1


def shfl_idx(c: Lane, src: int, w: int) -> int:
    return c.value_at((src & (w - 1)) + (c.lane & ~(w - 1)))


def shfl_up(c: Lane, d: int, w: int) -> int:
    s = c.lane - d
    return c.value_at(c.lane if s < (c.lane & ~(w - 1)) else s)


def shfl_down(c: Lane, d: int, w: int) -> int:
    return c.value_at(c.lane if (c.lane & (w - 1)) + d >= w else c.lane + d)


def shfl_xor(c: Lane, x: int, w: int) -> int:
    s = c.lane ^ x
    return c.value_at(c.lane if s >= ((c.lane + w) & ~(w - 1)) else s)


def signed32(x: int) -> int:
    return x - (1 << 32) if x & (1 << 31) else x


def signed64(x: int) -> int:
    return x - (1 << 64) if x & (1 << 63) else x


def match_all(c: Lane, value) -> tuple[int, int]:
    same = len({value(t) for t in c.active}) == 1
    return (c.mask(c.active), 1) if same else (0, 0)


def branch(c: Lane, pred) -> int:
    peers = [t for t in c.active if t % 2 == c.tid % 2]
    return c.mask(t for t in peers if pred(t))


REFERENCE = {
    "activemask": lambda c: signed64(c.mask(c.active)),
    "lane_id": lambda c: c.lane,
    "shfl_idx": lambda c: shfl_idx(c, (c.tid * 3) % 7, c.width),
    "shfl_idx_w16": lambda c: shfl_idx(c, c.tid + 5, 16),
    "shfl_up3": lambda c: shfl_up(c, 3, c.width),
    "shfl_up1_w8": lambda c: shfl_up(c, 1, 8),
    "shfl_down5": lambda c: shfl_down(c, 5, c.width),
    "shfl_down2_w16": lambda c: shfl_down(c, 2, 16),
    "shfl_xor1": lambda c: shfl_xor(c, 1, c.width),
    "shfl_xor20": lambda c: shfl_xor(c, 20, c.width),
    "shfl_xor4_w4": lambda c: shfl_xor(c, 4, 4),
    "shfl_legacy_down1": lambda c: shfl_down(c, 1, c.width),
    "shfl_double_idx0": lambda c: 2 * shfl_idx(c, 0, c.width) + 1,
    "ballot": lambda c: signed64(c.mask(t for t in c.active if t % 3 == 0)),
    "ballot_legacy": lambda c: signed64(c.mask(t for t in c.active if t % 4 == 1)),
    "any": lambda c: int(any(t == 5 for t in c.active)),
    "all_true": lambda c: 1,
    "all_even": lambda c: int(all(t % 2 == 0 for t in c.active)),
    "reduce_add": lambda c: sum(c.active) % (1 << 32),
    "reduce_min": lambda c: min(t * 7 % 13 - 6 for t in c.active),
    "reduce_max": lambda c: max(t * 7 % 13 - 6 for t in c.active),
    "reduce_and": lambda c: _fold(lambda a, b: a & b, (t | 0x100 for t in c.active)),
    "reduce_or": lambda c: _fold(lambda a, b: a | b, (1 << (t % 8) for t in c.active)),
    "reduce_xor": lambda c: _fold(lambda a, b: a ^ b, c.active),
    "match_any": lambda c: signed64(c.mask(t for t in c.active if t % 4 == c.tid % 4)),
    "match_all_mask": lambda c: signed64(match_all(c, lambda t: 5)[0]),
    "match_all_pred": lambda c: match_all(c, lambda t: 5)[1],
    "match_all_differ": lambda c: signed64(match_all(c, lambda t: t)[0]),
    "match_all_differ_pred": lambda c: match_all(c, lambda t: t)[1],
    "syncthreads_count": lambda c: sum(1 for t in c.block if t % 3 == 0),
    "syncthreads_and": lambda c: 1,
    "syncthreads_or": lambda c: int(77 in c.block),
    "branch_activemask": lambda c: signed64(branch(c, lambda t: True)),
    "branch_ballot": lambda c: signed64(branch(c, _even_or_odd_ballot(c.tid))),
}


def _even_or_odd_ballot(tid: int):
    return (lambda t: t % 4 == 0) if tid % 2 == 0 else (lambda t: t % 3 == 0)


def _fold(op, values):
    out = None
    for v in values:
        out = v if out is None else op(out, v)
    return out


def bits_reference(width: int) -> dict[int, int]:
    return {0: 8, 1: bin(0xF00000000000F0A0).count("1"), 2: 6, 3: 0, 4: 37, 5: 8, 6: 63, 7: 0x80000000,
            8: 32, 9: width, 10: width, 11: 4 if width == 32 else 8, 12: 0x55441100, 13: 3}


def expected(width: int, partial: bool) -> dict[tuple[str, int], int]:
    block = [t for t in range(THREADS) if not (partial and t % 5 == 3)]
    table: dict[tuple[str, int], int] = {}
    for tid in block:
        base = tid - tid % width
        lane = Lane(tid, width, [t for t in block if base <= t < base + width], block)
        for name, ref in REFERENCE.items():
            table[(name, tid)] = ref(lane)
    for i, v in bits_reference(width).items():
        table[("bits", i)] = v
    return table


def parse(stdout: str) -> dict[tuple[str, int], int]:
    table = {}
    for line in stdout.splitlines():
        name, idx, value = line.split()
        table[(name, int(idx))] = int(value)
    return table


@pytest.mark.parametrize("mode", ["full", "partial"])
@pytest.mark.parametrize("width", [32, 64])
def test_intrinsics_match_the_reference_table(emulate_program, width, mode):
    result = emulate_program(PROGRAM, warps=[width], program_args=[mode])
    [run] = result.runs
    assert run.exit == 0, run.stderr
    got = parse(run.stdout)
    want = expected(width, mode == "partial")
    assert set(got) == set(want)
    wrong = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
    assert not wrong, dict(list(wrong.items())[:10])


def test_the_table_itself_differs_between_widths():
    # the reference is not width-blind: ballots, lane ids and edge shuffles change with W
    a, b = expected(32, False), expected(64, False)
    differs = {name for (name, tid) in a if a[(name, tid)] != b[(name, tid)]}
    assert {"activemask", "lane_id", "ballot", "shfl_down5", "reduce_add", "branch_ballot"} <= differs


@pytest.mark.parametrize("switch, env", [
    ("ucontext", {}),
    ("asm", {"EMU_NO_RUNNER": "1"}),
])
def test_other_switches_and_schedulers_give_the_same_table(tmp_path, emu_cache, switch, env):
    """Other architectures than x86-64 switch fibers with ucontext, and EMU_NO_RUNNER turns off
    the runner fast path (every thread on a fiber of its own): same semantics either way."""
    from porting.emulate import build, run

    tool = build.Toolchain(extra=("-DEMU_UCONTEXT",) if switch == "ucontext" else ())
    program = build.prepare(build.read_files([PROGRAM], [], [], tool), [PROGRAM], [], [], tool, tmp_path / "src")
    compiled = build.compile_all(program, tool, [32, 64], emu_cache)
    for width, c in compiled.items():
        assert c.binary is not None, c.error
        workdir = tmp_path / f"run{width}"
        workdir.mkdir()
        launch = run.Launch(["partial"], "./intrinsics", None, env)
        result = run.run_binary(c.binary, width, launch, workdir, None, 300.0, [])
        assert result.exit == 0, result.stderr
        assert parse(result.stdout) == expected(width, partial=True)
