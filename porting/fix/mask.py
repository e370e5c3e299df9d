"""Full lane masks written as 32-bit values in ``*_sync`` intrinsics -> ``GPU_FULL_MASK``.

ROCm 7's amd_warp_sync_functions.h static_asserts a 64-bit mask, and on a 64-lane wavefront
0xffffffff leaves out lanes 32-63. ``GPU_FULL_MASK`` (rocm-port's portable header, inlined into the
file by header.py) is ``~0ull``: every lane at any width, and on CUDA the 32-bit mask parameter
takes its low 32 bits, the same 0xffffffff as before. A macro defined as a 32-bit full mask is
repaired at its definition only when every use of it is the mask of a ``*_sync`` call (a compare
with a ballot would change at 32 lanes); so is a local variable initialised to the 32-bit full mask
(its type becomes ``unsigned long long``); any other 32-bit mask held in a variable is a note.
"""

from __future__ import annotations

import re

from .model import Note, Repair
from .source import Source, call_args, strip_span

RULE = "warp-mask-32bit"
FULL = "GPU_FULL_MASK"
SYNC = re.compile(r"\b(__shfl(?:_up|_down|_xor)?_sync|__ballot_sync|__any_sync|__all_sync|__match_any_sync"
                  r"|__match_all_sync|__reduce_\w+_sync|__syncwarp|__uni_sync)\s*\(")
MASK32 = re.compile(r"\(?\s*(?:0[xX][fF]{8}[uU]?|~0[uU]?|-1|4294967295[uU]?|~0x0[uU]?)\s*\)?")
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+(\(?[ \t]*(?:0[xX][fF]{8}[uU]?|~0[uU]?)[ \t]*\)?)"
                     r"[ \t]*$", re.MULTILINE)
_INT32_VAR = r"(?:unsigned\s+int|unsigned|uint32_t|int32_t|int|u32|uint)"


def mask_spans(src: Source) -> list[tuple[int, int, str]]:
    """(start, end, intrinsic) of every call's mask argument (the first; the only one of __syncwarp)."""
    out = []
    for m in SYNC.finditer(src.code):
        args = call_args(src.code, m.end() - 1)
        if args:
            start, end = strip_span(src.code, *args[0])
            if end > start:
                out.append((start, end, m.group(1)))
    return out


def find(src: Source) -> tuple[list[Repair], list[Note]]:
    repairs: list[Repair] = []
    notes: list[Note] = []
    spans = mask_spans(src)
    mask_uses: set[int] = set()
    held: dict[str, list[int]] = {}
    for start, end, func in spans:
        arg = src.code[start:end]
        mask_uses.add(start)
        if src.guarded(start):
            continue
        if MASK32.fullmatch(arg):
            repairs.append(src.repair(start, end, FULL, RULE, "mask",
                                      f"{func}: the 32-bit full mask {arg} as the portable full mask", True))
        elif re.fullmatch(r"[A-Za-z_]\w*", arg):
            held[arg] = held.get(arg, []) + [start]
    for name, uses in held.items():
        repairs += _variable(src, name, uses, mask_uses, notes)
    repairs += _defines(src, mask_uses, notes)
    return repairs, notes


def _variable(src: Source, name: str, uses: list[int], mask_uses: set[int], notes: list[Note]) -> list[Repair]:
    """A 32-bit local initialised to the full mask and used only as *_sync masks: widened, full mask."""
    out: list[Repair] = []
    for lo, hi in sorted({src.scope(at) for at in uses}):
        decl = re.compile(r"\b(" + _INT32_VAR + r")\s+" + re.escape(name) + r"\s*=\s*([^;]*);").search(src.code, lo, hi)
        if decl is None or src.guarded(decl.start()):
            continue  # a 64-bit variable, a parameter, or a ballot (ballot.py)
        if not MASK32.fullmatch(decl.group(2).strip()):
            if not re.search(r"__ballot|__activemask", decl.group(2)):
                notes.append(src.note(decl.start(), RULE, f"mask {name} is held in a 32-bit variable; what it "
                                      "should hold on a 64-lane wavefront is not repaired mechanically"))
            continue
        name_at = decl.start() + decl.group(0).index(name, len(decl.group(1)))
        others = [lo + m.start() for m in re.finditer(r"(?<![\w.])" + re.escape(name) + r"\b", src.code[lo:hi])]
        if any(at not in mask_uses and at != name_at for at in others):
            notes.append(src.note(decl.start(), RULE, f"mask {name} holds a 32-bit full mask and is used outside "
                                  "*_sync masks too: not repaired"))
            continue
        value = decl.start(2) + len(decl.group(2)) - len(decl.group(2).lstrip())
        out.append(src.repair(decl.start(1), decl.end(1), "unsigned long long", RULE, "mask",
                              f"mask variable {name}: 64 bits, so that it can hold every lane"))
        out.append(src.repair(value, decl.start(2) + len(decl.group(2).rstrip()), FULL, RULE, "mask",
                              f"mask variable {name}: the portable full mask", True))
    return out


def _defines(src: Source, mask_uses: set[int], notes: list[Note]) -> list[Repair]:
    out = []
    for m in _DEFINE.finditer(src.code):
        name = m.group(1)
        if src.guarded(m.start()):
            continue
        uses = [u.start() for u in re.finditer(r"\b" + name + r"\b", src.code) if u.start() != m.start(1)]
        if uses and all(at in mask_uses for at in uses):
            out.append(src.repair(m.start(2), m.end(2), FULL, RULE, "mask-const",
                                  f"{name} is only used as a *_sync mask: the portable full mask", True))
        elif uses:
            notes.append(src.note(m.start(1), RULE, f"{name} is a 32-bit full mask also used outside *_sync "
                                  "masks (a compare or an operand): not repaired, its value there is 32-bit"))
    return out
