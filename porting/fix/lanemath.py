"""Lane and warp math written for 32 lanes -> ``warpSize``, where the function means the hardware warp.

Only in "hardware" functions (source.py): there a lane index must run to 63 and a warp index count
64-lane wavefronts, so every 32-lane constant in the function's lane math moves to ``warpSize``
together (``& 31`` -> ``& (warpSize - 1)``, ``% 32``, ``/ 32``, ``>> 5`` -> ``>> (__ffs(warpSize) - 1)``
(same precedence as the shift), ``== 31``, ``< 32``), and so do its shuffle loops (start 16 ->
``warpSize / 2``, bound 32 -> ``warpSize``) and literal shuffle widths of 32. At 32 lanes
``warpSize`` is 32: nothing changes there. In a 32-lane logical warp the 32s are right and stay
(width.py makes its shuffles say so); in a "mixed" function each is a note.
"""

from __future__ import annotations

import re

from .model import Note, Repair
from .source import Source, call_args

RULE = "warp-size-literal"
_OP = re.compile(r"(%|/|&|>>|==|<)(\s*)(32|31|0[xX]1[fF]|5)\b")
_NEW = {("%", "32"): "% warpSize", ("/", "32"): "/ warpSize", ("&", "31"): "& (warpSize - 1)",
        (">>", "5"): ">> (__ffs(warpSize) - 1)", ("==", "31"): "== (warpSize - 1)", ("<", "32"): "< warpSize"}
_LOOP_START = re.compile(r"=\s*(16)\s*;")
_LOOP_BOUND = re.compile(r"(<=?)\s*(32)\b")
_SHFL_OPEN = re.compile(r"__shfl(?:_up|_down|_xor)?(?:_sync)?\s*\(")


def find(src: Source) -> tuple[list[Repair], list[Note]]:
    repairs: list[Repair] = []
    notes: list[Note] = []
    for at in src.lane_hits:
        m = _OP.match(src.code, at)
        if m is None or src.guarded(at):
            continue
        num = "31" if m.group(3).lower() == "0x1f" else m.group(3)
        new = _NEW.get((m.group(1), num))
        if new is None:
            continue
        if _allowed(src, at, notes, f"'{m.group(0)}' on a lane index"):
            repairs.append(src.repair(m.start(), m.end(), new, RULE, "lane-math",
                                      f"'{m.group(0)}' on a lane/warp index: the hardware warp is warpSize wide"))
    for at in src.loop_hits:
        if src.guarded(at) or not _allowed(src, at, notes, "a shuffle loop over 32 lanes"):
            continue
        repairs += _loop(src, at)
    for at in src.width_hits:
        if src.guarded(at) or not _allowed(src, at, notes, "a shuffle of width 32"):
            continue
        open_at = _SHFL_OPEN.match(src.code, at)
        args = call_args(src.code, open_at.end() - 1) if open_at else None
        if args:
            start, end = args[-1]
            lit = re.search(r"32", src.code[start:end])
            if lit:
                repairs.append(src.repair(start + lit.start(), start + lit.end(), "warpSize", RULE, "lane-math",
                                          "shuffle width 32 in a function on the hardware warp: warpSize"))
    return repairs, notes


def _allowed(src: Source, at: int, notes: list[Note], what: str) -> bool:
    kind = src.kind(at)
    if kind == "mixed":
        notes.append(src.note(at, RULE, f"{what} in a function that also uses a warp-width constant of the "
                              "tree: not repaired (what the constant means elsewhere is not known here)"))
    return kind == "hardware"


def _loop(src: Source, at: int) -> list[Repair]:
    open_at = src.code.find("(", at)
    close = src.code.find(")", open_at)
    out = []
    start = _LOOP_START.search(src.code, open_at, close)
    if start:
        out.append(src.repair(start.start(1), start.end(1), "warpSize / 2", RULE, "lane-math",
                              "shuffle loop from 16: from warpSize / 2, so lanes 32-63 join"))
    bound = _LOOP_BOUND.search(src.code, open_at, close)
    if bound:
        out.append(src.repair(bound.start(2), bound.end(2), "warpSize", RULE, "lane-math",
                              "shuffle loop to 32: to warpSize"))
    return out
