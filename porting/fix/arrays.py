"""Per-warp shared arrays of 32 in functions on the hardware warp -> sized for 64 lanes.

A ``__shared__ T a[32]`` in a "hardware" function (source.py) holds one slot per lane or per warp
of a 32-lane machine; with the lane math on ``warpSize`` a lane index reaches 63. 64 slots serve
both widths, and at 32 lanes the extra half is never read. A size written as a macro or constant
is left to warp-size-literal's note at its definition.
"""

from __future__ import annotations

import re

from .model import Note, Repair
from .source import Source

RULE = "warp-size-literal"
_SHARED_32 = re.compile(r"__shared__[^;{}()]*?\b[A-Za-z_]\w*\s*\[\s*(32)\s*\]")


def find(src: Source) -> tuple[list[Repair], list[Note]]:
    repairs: list[Repair] = []
    notes: list[Note] = []
    for m in _SHARED_32.finditer(src.code):
        at = m.start()
        if src.guarded(at):
            continue
        kind = src.kind(at)
        if kind == "hardware":
            repairs.append(src.repair(m.start(1), m.end(1), "64", RULE, "warp-array",
                                      "a per-warp shared array of 32 slots in a function on the hardware warp: "
                                      "64 slots serve 32- and 64-lane warps"))
        elif kind == "mixed":
            notes.append(src.note(at, RULE, "a shared array of 32 in a function that also uses a warp-width "
                                  "constant of the tree: not resized"))
    return repairs, notes
