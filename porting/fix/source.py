"""One CUDA file as `port fix` reads it: the text, the masked code (comments and literals blanked, the
audit's masker), the lines behind the project's ROCm guards, and each function's warp model.

A function (the audit's scope: between top-level braces) is classified once, from what it does:

- ``hardware``: it works on the hardware warp's lane masks (ballot, activemask, popc/ffs, match,
  ``1 << lane``): its lane math, shuffle loops and per-lane arrays must follow ``warpSize``;
- ``logical32``: it is written for 32-lane warps (lane math with 31/5/32, a shuffle loop from 16 or
  to 32, a shuffle width of 32) and uses no lane masks: it stays a consistent 32-lane logical warp
  on a 64-lane wavefront when only the masks are repaired and the fixed-lane shuffles get width 32;
- ``neutral``: neither (only its masks need repairing);
- ``mixed``: a hardware function that also uses a tree constant equal to 32 as the warp width: what
  the constant means elsewhere is not known here, so its lane repairs become notes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..audit import branches, warp
from ..audit.mask import Masked, mask
from .model import Note, Repair

_LANE_NAME = re.compile(r"(?i)lane")
_LANE_EXPR = re.compile(r"%\s*(?:32|warpSize)\b|&\s*(?:31|0[xX]1[fF]|\(\s*warpSize\s*-\s*1\s*\))"
                        r"|__lane_id|laneid|thread_rank")
_SHIFTED = re.compile(r"1[uU]?\s*<<\s*\(?\s*([A-Za-z_]\w*)")
_HARDWARE = re.compile(r"__ballot|__activemask|__popc\b|__ffs\b|__match_(?:any|all)_sync|__lanemask")


@dataclass
class Source:
    path: str
    text: str
    masked: Masked = field(init=False)
    code: str = field(init=False)
    side: bytearray = field(init=False)
    derived: warp.Derivation = field(init=False)
    lane_hits: list[int] = field(init=False)  # offsets of lane-math operators (warp-size-literal)
    shift_hits: list[int] = field(init=False)  # offsets of `1 << lane` (a lane, not any thread index)
    loop_hits: list[int] = field(init=False)  # offsets of `for` of shuffle loops over 32 lanes
    width_hits: list[int] = field(init=False)  # offsets of shuffles with a literal width 32
    width_names: set[str] = field(init=False)  # names equal to 32/5 this file uses as a warp width
    _kinds: dict[tuple[int, int], str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.masked = mask(self.text, "c")
        self.code = self.masked.code
        self.side, _checks = branches.regions(self.code)
        self.derived = warp.Derivation(self.code)
        self.lane_hits, self.shift_hits = [], []
        for hit in warp.lane_math(self.code, self.derived):
            if not self.code.startswith("1", hit[0]):
                self.lane_hits.append(hit[0])
            elif self._shifts_a_lane(hit[0]):
                self.shift_hits.append(hit[0])
        self.loop_hits, self.width_hits = [], []
        for hit in warp.shuffle_widths(self.code):
            (self.loop_hits if self.code.startswith("for", hit[0]) else self.width_hits).append(hit[0])
        consts = warp.constant_names(self.text)
        self.width_names = warp.width_names(self.code, self.derived, frozenset(consts)) & consts if consts else set()

    def _shifts_a_lane(self, at: int) -> bool:
        """Is the name shifted at ``at`` a lane (named so, or assigned a lane expression)? ``1 << tid``
        on a block or grid index is a bit per thread of a bitmap, not a lane bit."""
        m = _SHIFTED.match(self.code, at)
        if m is None:
            return False
        name = m.group(1)
        if _LANE_NAME.search(name):
            return True
        lo, _hi = self.derived.scope(at)
        assigned = re.finditer(r"(?<![\w.])" + re.escape(name) + r"\s*=(?!=)([^;]*);", self.code[lo:at])
        return any(_LANE_EXPR.search(a.group(1)) for a in assigned)

    # -- places ------------------------------------------------------------------------------
    def guarded(self, offset: int) -> bool:
        """Behind a ROCm guard (either side of an ``#if`` on a HIP/ROCm macro): never touched."""
        line, _col = self.masked.position(offset)
        return line < len(self.side) and self.side[line] != branches.NEUTRAL

    def scope(self, offset: int) -> tuple[int, int]:
        return self.derived.scope(offset)

    def kind(self, offset: int) -> str:
        """The warp model of the function around ``offset`` (see the module docstring)."""
        lo, hi = self.scope(offset)
        known = self._kinds.get((lo, hi))
        if known is None:
            known = self._kinds[(lo, hi)] = self._classify(lo, hi)
        return known

    def _classify(self, lo: int, hi: int) -> str:
        body = self.code[lo:hi]
        inside = any(lo <= at < hi for at in self.shift_hits)
        if _HARDWARE.search(body) or inside:
            if any(re.search(r"\b" + re.escape(n) + r"\b", body) for n in self.width_names):
                return "mixed"
            return "hardware"
        if any(lo <= at < hi for at in (*self.lane_hits, *self.loop_hits, *self.width_hits)):
            return "logical32"
        if any(re.search(r"\b" + re.escape(n) + r"\b", body) for n in self.width_names):
            return "logical32"
        return "neutral"

    # -- records -----------------------------------------------------------------------------
    def repair(self, start: int, end: int, new: str, rule: str, kind: str, why: str,
               needs_header: bool = False) -> Repair:
        line, col = self.masked.position(start)
        return Repair(self.path, line, col, start, end, self.text[start:end], new, rule, kind, why,
                      needs_header=needs_header)

    def note(self, offset: int, rule: str, message: str) -> Note:
        line, col = self.masked.position(offset)
        return Note(self.path, line, col, rule, message)


def call_args(code: str, open_at: int, limit: int = 2000) -> list[tuple[int, int]] | None:
    """The (start, end) of each top-level argument of the call whose '(' is at ``open_at``."""
    depth, start, out = 0, open_at + 1, []
    for i in range(open_at, min(len(code), open_at + limit)):
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                out.append((start, i))
                return out
        elif c == "," and depth == 1:
            out.append((start, i))
            start = i + 1
    return None


def strip_span(code: str, start: int, end: int) -> tuple[int, int]:
    while start < end and code[start].isspace():
        start += 1
    while end > start and code[end - 1].isspace():
        end -= 1
    return start, end
