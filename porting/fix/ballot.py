"""Ballot results kept in 32-bit integers -> 64-bit storage, and ``__popc``/``__ffs`` -> ``__popcll``/``__ffsll``.

Only in functions that work on the hardware warp's masks (Source.kind == "hardware"): there the
ballot must keep all 64 bits. At 32 lanes the value is the same number in a wider type, and
``__popcll``/``__ffsll`` of it equal ``__popc``/``__ffs``. Uses whose value would change with the
width of the type (``~b``, ``__clz``/``__brev``, a printf, a copy into another 32-bit variable, an
assignment to an earlier 32-bit declaration) make the ballot a note, not a repair. In a 32-lane
logical warp a 64-lane ballot mixes two logical warps: a note.
"""

from __future__ import annotations

import re

from .model import Note, Repair
from .source import Source, call_args

RULE = "ballot-32bit"
_BALLOT = re.compile(r"\b(__ballot_sync|__ballot|__activemask)\s*\(")
_TYPE = re.compile(r"\b(unsigned\s+int|unsigned|uint32_t|u32|uint|int32_t|int)\s+([A-Za-z_]\w*)\s*=\s*\Z")
_COUNT = re.compile(r"\b(__popc|__ffs)\s*\(")
_WIDTH_BOUND = (r"~\s*{n}\b", r"__(?:clz|brev)\s*\([^;]*\b{n}\b", r"printf\s*\([^;]*\b{n}\b",
                r"\b(?:unsigned\s+int|unsigned|uint32_t|u32|uint|int32_t|int)\s+\w+\s*=[^;]*\b{n}\b")


def find(src: Source) -> tuple[list[Repair], list[Note]]:
    repairs: list[Repair] = []
    notes: list[Note] = []
    held: dict[tuple[int, int], set[str]] = {}
    for m in _BALLOT.finditer(src.code):
        at = m.start()
        if src.guarded(at):
            continue
        kind = src.kind(at)
        stmt = max(src.code.rfind(c, 0, at) for c in (";", "{", "}")) + 1
        decl = _TYPE.search(src.code, stmt, at)
        if decl is None:
            continue  # not stored in a 32-bit declaration here (a direct __popc(...) is handled below)
        name = decl.group(2)
        lo, hi = src.scope(at)
        if kind != "hardware":
            what = "a 32-lane logical warp" if kind == "logical32" else "not clearly per hardware warp"
            notes.append(src.note(at, RULE, f"{m.group(1)} stored in 32-bit {name} in a function that is {what}"
                                  ": at 64 lanes the ballot spans two logical warps; not repaired mechanically"))
            continue
        # the declaration itself blanked: it is no second assignment
        body = src.code[lo:decl.start()] + " " * (decl.end() - decl.start()) + src.code[decl.end():hi]
        blocker = _width_bound_use(body, name)
        if blocker:
            notes.append(src.note(at, RULE, f"{name} holds a ballot but {blocker}: widening it changes the "
                                  "32-lane result; not repaired"))
            continue
        repairs.append(src.repair(decl.start(1), decl.end(1), "unsigned long long", RULE, "ballot",
                                  f"{m.group(1)} kept in 64 bits ({name}): lanes 32-63 of a wavefront survive"))
        held.setdefault((lo, hi), set()).add(name)
    repairs += _counts(src, held)
    return repairs, notes


def _width_bound_use(body: str, name: str) -> str:
    for pattern, what in zip(_WIDTH_BOUND, ("it is complemented (~)", "__clz/__brev read its width",
                                            "it is printed", "it is copied into a 32-bit variable")):
        if re.search(pattern.format(n=re.escape(name)), body):
            return what
    if re.search(r"(?<![\w.])" + re.escape(name) + r"\s*=(?!=)", body):
        return "it is assigned again"
    return ""


def _counts(src: Source, held: dict[tuple[int, int], set[str]]) -> list[Repair]:
    out = []
    for m in _COUNT.finditer(src.code):
        at = m.start()
        if src.guarded(at) or src.kind(at) != "hardware":
            continue
        args = call_args(src.code, m.end() - 1)
        if not args or len(args) != 1:
            continue
        arg = src.code[args[0][0]:args[0][1]]
        names = held.get(src.scope(at), set())
        if _BALLOT.search(arg) or set(re.findall(r"[A-Za-z_]\w*", arg)) & names:
            func = m.group(1)
            out.append(src.repair(m.start(1), m.end(1), func + "ll", RULE, "ballot",
                                  f"{func} of a 64-bit ballot mask: {func}ll counts lanes 32-63 too"))
    return out
