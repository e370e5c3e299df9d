"""An explicit width of 32 on the width-less fixed-lane and up/down shuffles of a 32-lane logical warp.

In a "logical32" function (source.py) the code is a consistent 32-lane warp. Once its masks are
full 64-bit masks, a 64-lane wavefront runs it as two logical warps, except where a shuffle
crosses the halves: ``__shfl_sync(m, v, 0)`` would give lanes 32-63 lane 0's value and
``__shfl_up/down_sync`` would read across lane 31/32. Width 32 (CUDA's default on a 32-lane warp,
so nothing changes there) keeps each shuffle inside its half. Xor shuffles with offsets below 32
never cross and are left alone.
"""

from __future__ import annotations

import re

from .model import Note, Repair
from .source import Source, call_args

RULE = "warp-size-literal"
_SHFL = re.compile(r"\b(__shfl_sync|__shfl_up_sync|__shfl_down_sync)\s*\(")


def find(src: Source) -> tuple[list[Repair], list[Note]]:
    repairs: list[Repair] = []
    for m in _SHFL.finditer(src.code):
        at = m.start()
        if src.guarded(at) or src.kind(at) != "logical32":
            continue
        args = call_args(src.code, m.end() - 1)
        if args is None or len(args) != 3:
            continue  # a width is already given (or the call is not plain)
        end = args[-1][1]
        tail = len(src.code[args[-1][0]:end].rstrip())
        insert = args[-1][0] + tail
        repairs.append(src.repair(insert, insert, ", 32", RULE, "shuffle-width",
                                  f"{m.group(1)} in a 32-lane logical warp: width 32 keeps it inside its half "
                                  "of a 64-lane wavefront"))
    return repairs, []
