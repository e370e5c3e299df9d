"""A project's own warp wrappers, named at their calls (issue 26, round 12, class 2).

Projects wrap the warp intrinsics in a helper header (``utils::ballot``, ``utils::lane_mask_lt``,
``utils::shfl``) and call the wrappers everywhere; the intrinsic rules see only the wrapper's
body, once, in a header that is often not audited itself. Three wrappers lose lanes 32-63 at
every call once ported to 64-lane wavefronts:

- a ballot wrapper returning 32 bits (``unsigned int ballot(int p) { return __ballot_sync(...); }``):
  every call keeps lanes 0-31's votes only;
- a lanemask wrapper reading PTX ``%lanemask_lt`` (``_le``, ``_gt``, ``_ge``) into 32 bits: lanes
  32-63 get a mask that misses their own position;
- a shuffle wrapper whose width defaults to ``warpSize`` (``shfl(x, src, width = warpSize)``),
  called with a source lane that does not follow the caller's lane (``shfl(x, 0)``,
  ``shfl(x, k)``) in a unit whose warps are 32 lanes: at 64 every lane reads lane 0 of the
  wavefront, so the second 32-lane warp takes the first one's value.

Definitions come from the file and the project headers its unit reaches, angle-bracket ones too
(``includes.closure(..., angled=True)``), so a
file's findings stay a function of its unit.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from . import warp
from .layouts import definition, near
from .model import Hit, WarpModel, one_warp_file

_RET32 = r"(?:unsigned\s+int|unsigned|int|uint32_t)"  # the 32-bit return types
_BALLOT_WRAPPER = re.compile(r"\b" + _RET32 + r"\s+([A-Za-z_]\w*)\s*\(([^()]*)\)\s*\{"
                             r"(?:[^{}]|\{[^{}]*\})*?\breturn\s+__ballot(?:_sync)?\s*\(")
# the same wrapper keeping the ballot in a 32-bit local first: `uint32_t ballot(int p) { uint32_t b =
# __ballot_sync(m, p); return b >> offset(); }` (cuda-fixnum's slot_layout::ballot, a static member)
_BALLOT_VAR_WRAPPER = re.compile(r"\b" + _RET32 + r"\s+([A-Za-z_]\w*)\s*\(([^()]*)\)\s*\{\s*" + _RET32
                                 + r"\s+(\w+)\s*=\s*__ballot(?:_sync)?\s*\([^;]*;\s*return\s+\(?\s*\3\b")
_LANEMASK_WRAPPER = re.compile(r"\b" + _RET32 + r"\s+([A-Za-z_]\w*)\s*\(\s*(?:void)?\s*\)"
                               r"\s*\{[^{}]*%%?lanemask_(?:lt|le|gt|ge)\b")
# `T shfl(T r, int lane, int bound = warpSize, ...) { ... __shfl_sync(mask, r, lane, bound) ... }`
_SHFL_WRAPPER = re.compile(r"\b([A-Za-z_]\w*)\s*\(\s*[^()]*?,\s*int\s+(\w+)\s*,\s*int\s+(\w+)\s*=\s*warpSize\b[^()]*\)"
                           r"\s*\{[^{}]*?__shfl(?:_sync)?\s*\(")
_LANE_WORD = re.compile(r"\b(?:threadIdx|lane\w*|\w*[lL]ane(?:_?[iI]d\w*)?)\b")


def wrapper_names(texts: Sequence[str]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(ballot wrappers returning 32 bits, 32-bit lanemask wrappers, shuffle wrappers defaulting
    their width to warpSize) defined in ``texts``."""
    ballots: set[str] = set()
    masks: set[str] = set()
    shuffles: set[str] = set()
    for text in texts:
        found = _wrappers_in(text)
        ballots |= found[0]
        masks |= found[1]
        shuffles |= found[2]
    return frozenset(ballots), frozenset(masks), frozenset(shuffles - {"__shfl", "__shfl_sync"})


@lru_cache(maxsize=4096)
def _wrappers_in(text: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """wrapper_names of one text, searched near each intrinsic (cached per text)."""
    ballots = near(_BALLOT_WRAPPER, text, "__ballot", 600, 40) | near(_BALLOT_VAR_WRAPPER, text, "__ballot", 300, 120) \
        if "__ballot" in text else set()
    masks = near(_LANEMASK_WRAPPER, text, "lanemask", 300, 40) if "lanemask" in text else set()
    shuffles = near(_SHFL_WRAPPER, text, "__shfl", 600, 40) if "warpSize" in text and "__shfl" in text else set()
    return frozenset(ballots), frozenset(masks), frozenset(shuffles)


@lru_cache(maxsize=4096)
def _words_in(text: str) -> tuple[bool, bool]:
    """(a ballot, any warp intrinsic a wrapper is made of) in one text: asked of the same headers
    by every file that reaches them (cached per text)."""
    ballot = "__ballot" in text
    return ballot, ballot or "lanemask" in text or "__shfl" in text


def has_ballot(texts: Sequence[str]) -> bool:
    """Does a text of the unit hold a ballot (the intrinsic every ballot wrapper wraps)?"""
    return any(_words_in(t)[0] for t in texts)


def wrapper_calls(model: WarpModel, texts: Sequence[str], warps32: bool) -> Iterator[Hit]:
    """ballot-32bit at calls of the 32-bit ballot and lanemask wrappers; shfl-fixed-lane at calls
    of a warpSize-wide shuffle wrapper with a fixed source lane, when the unit's warps are 32
    lanes (``warps32``: its warp helper is ``threadIdx.x >> 5``) or the calling function counts
    its warps in 32."""
    from .model import _counts_in_32

    if not any(_words_in(t)[1] for t in texts):
        return
    ballots, masks, shuffles = wrapper_names(texts)
    if not (ballots or masks or shuffles):
        return
    code = model.code
    # every launch of the file runs at most 32 threads: no lane 32-63 to lose (round 7's rule)
    one_warp = one_warp_file(model) if ballots or masks else False
    for names, kind in ((ballots, "ballot"), (masks, "mask"), (shuffles, "shfl")):
        if not names:
            continue
        call = re.compile(r"(?<![\w.>])(?:[A-Za-z_]\w*\s*::\s*)*(" + "|".join(sorted(map(re.escape, names)))
                          + r")\s*\(")
        for m in call.finditer(code):
            s = model.at(m.start())
            if not s.name or s.src or s.body > m.start() or s.name in names or definition(code, m.end()):
                continue  # outside a function body, or a wrapper's own definition
            if kind == "shfl":
                args = _args(code, m.end())
                if len(args) != 2 or _LANE_WORD.search(args[1]) or not (warps32 or _counts_in_32(model, s)):
                    continue
                yield _shfl_hit(m, args[1])
            elif not one_warp:
                yield _ballot_hit(m, kind)


def _args(code: str, at: int) -> list[str]:
    """The top-level arguments of the call whose '(' ends just before ``at``."""
    depth, args, start = 0, [], at
    for i in range(at, min(len(code), at + 400)):
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append(code[start:i].strip())
                return args
            depth -= 1
        elif c == "," and depth == 0:
            args.append(code[start:i].strip())
            start = i + 1
    return []


def _ballot_hit(m: re.Match[str], kind: str) -> Hit:
    name = m.group(1)
    if kind == "ballot":
        return (m.start(), "ballot-32bit", f"{name}() is this project's ballot wrapper and returns 32 bits: on a "
                "64-lane gfx942/gfx950 wavefront every call keeps lanes 0-31's votes only (a popc counts half "
                "the wavefront, lanes 32-63 find no bit of their own)",
                f"return the ballot as uint64_t (unsigned long long) from {name} and keep its callers' votes in "
                f"64 bits; {warp.EMULATE}", name)
    return (m.start(), "ballot-32bit", f"{name}() is this project's lanemask wrapper (PTX %lanemask_*) cut to 32 "
            "bits: lanes 32-63 of a 64-lane wavefront get a mask without their own position, so a popc of a "
            "ballot under it ranks them wrongly",
            f"build the mask in 64 bits (__lanemask_lt() in HIP returns uint64_t); {warp.EMULATE}", name)


def _shfl_hit(m: re.Match[str], src: str) -> Hit:
    name = m.group(1)
    return (m.start(), "shfl-fixed-lane", f"{name}(x, {src}) is this project's shuffle wrapper, whose width "
            "defaults to warpSize (64 on gfx942/gfx950), called with a fixed source lane in 32-lane warps: "
            f"lanes 32-63 read lane {src} of the wavefront, the other 32-lane warp's value",
            f"pass the width, {name}(x, {src}, 32), or shuffle from lane (threadIdx.x & ~31) + {src}; "
            f"{warp.EMULATE}", name)
