"""``1 << lane`` on a lane index -> ``1ull << lane``: at 64 lanes a 32-bit shift by 32-63 is
undefined behaviour; at 32 lanes the bit is the same (a wider type, converted back where stored).

Only when the shifted name is a lane (source.py keeps only those shift sites): ``1 << tid`` on a
block or grid index is another program's logic (a bit per thread of a bitmap), not a lane bit,
and widening it would change what CUDA computes.
"""

from __future__ import annotations

import re

from .model import Note, Repair
from .source import Source

RULE = "warp-size-literal"
_ONE = re.compile(r"1[uU]?(?=\s*<<\s*\(?\s*([A-Za-z_]\w*))")



def find(src: Source) -> tuple[list[Repair], list[Note]]:
    repairs = []
    for at in src.shift_hits:
        m = _ONE.match(src.code, at)
        if m is None or src.guarded(at) or src.kind(at) != "hardware":
            continue
        repairs.append(src.repair(m.start(), m.end(), "1ull", RULE, "shift",
                                  "a lane bit built in 64 bits: lanes 32-63 of a wavefront no longer shift out"))
    return repairs, []

