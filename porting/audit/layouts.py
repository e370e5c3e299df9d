"""Warps counted by ``warpSize`` against per-warp layouts of 32 set elsewhere (issue 26, round 11).

A kernel may count its warps and lanes by the hardware width (``w = threadIdx.x / warpSize``,
``l = threadIdx.x % warpSize``) while the memory each warp owns was laid out for 32 lanes by
something the kernel does not see change: a per-warp row count equal to 32 (``WU_PER_WARP``), or
a table of per-warp regions that the host fills. At 64 lanes the two disagree:

- ``w * K`` with K equal to 32 gives each 64-lane warp 32 rows: half the rows are never reached
  and lanes 32-63 work on the next warp's;
- ``X[w][l]`` with X's row extent equal to 32: lanes 32-63 index past the warp's rows;
- ``T[i / warpSize]`` into a ``__constant__`` / ``__device__`` table that the host of this unit
  fills (``cudaMemcpyToSymbol(T, ...)``) without ever asking the device's warp size: the host
  counts warps of 32 (it cannot know 64), so half the entries go unused and each region gets
  twice the lanes it was sized for.

Values are the unit's (the file and the quoted headers it includes): a file's findings depend
only on what its own unit holds.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from . import warp
from .model import Hit, WarpModel, launch_sites, unit_value

_BY_WARPSIZE_DEF = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*=\s*\(?\s*threadIdx\.x\s*\)?\s*([/%])\s*warpSize\b"
                              r"(?!\s*\*)")
# `(*X)[A][B]`: a pointer to rows (its first subscript picks a row block, the next ones the extents)
_ROW_POINTER = re.compile(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*((?:\[[^\]\[]*\]\s*)+)")
_SHARED_ARRAY = re.compile(r"__shared__[^;=]*?\b([A-Za-z_]\w*)\s*((?:\[[^\]\[]*\]\s*)+)[;=]")
_SUBSCRIPTS = re.compile(r"\[([^\]\[]*)\]")
_TABLE_INDEX = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*\[\s*([^\[\];]*?)\s*/\s*warpSize\s*\]")
# the host asks the device's width: `prop.warpSize`, `p->warpSize`, cudaDevAttrWarpSize (HIP spellings too)
_HOST_WIDTH = re.compile(r"(?:\.|->)\s*warpSize\b|DevAttrWarpSize|DeviceAttributeWarpSize")
_DEFINE_EXPR = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([-+*/() \t\w]+?)[ \t]*(?://[^\n]*)?$", re.M)
_TOKENS = re.compile(r"\s*(?:(\d+)[uUlL]*|([A-Za-z_]\w*)|([-+*/()]))")

FIX_ROWS = ("count the warps and lanes by the width the rows were laid out for (threadIdx.x / 32, % 32), or "
            "size the rows by warpSize; " + warp.EMULATE)


def unit_int(model: WarpModel, expr: str, depth: int = 0) -> int | None:
    """The integer an expression of literals and the unit's constants evaluates to
    (``(32 / THREADS_PER_WU)`` with ``THREADS_PER_WU 1``: 32), or None when any part is unknown."""
    known = unit_value(model, expr.strip())
    if known is not None or depth > 4:
        return known
    out, pos, text = [], 0, expr.strip()
    while pos < len(text):
        m = _TOKENS.match(text, pos)
        if m is None or m.end() == pos:
            return None
        pos = m.end()
        if m.group(2):
            value = unit_value(model, m.group(2))
            raw = _unit_defines(model).get(m.group(2)) if value is None else None
            if raw is not None:
                value = unit_int(model, raw, depth + 1)
            if value is None:
                return None
            out.append(str(value))
        else:
            out.append(m.group(1) or m.group(3))
    return _arith(" ".join(out).replace("/", "//"))


def _unit_defines(model: WarpModel) -> dict[str, str]:
    """``#define NAME expression`` of the unit (the file first, then its quoted headers)."""
    out: dict[str, str] = {}
    for text in (model.code, *model.header_texts()):
        for name, value in _text_defines(text):
            out.setdefault(name, value)
    return out


@lru_cache(maxsize=256)
def _text_defines(text: str) -> tuple[tuple[str, str], ...]:
    return tuple(_DEFINE_EXPR.findall(text)) if "define" in text else ()


def _arith(text: str) -> int | None:
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return None
    allowed = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Add, ast.Sub, ast.Mult,
               ast.FloorDiv, ast.USub, ast.UAdd)
    if not all(isinstance(n, allowed) for n in ast.walk(tree)):
        return None
    try:
        value = eval(compile(tree, "<const>", "eval"), {"__builtins__": {}})  # noqa: S307 - integer arithmetic only (checked above)
    except ZeroDivisionError:
        return None
    return value if isinstance(value, int) else None


def per_warp_rows(model: WarpModel) -> Iterator[Hit]:
    """warp-width-mixed at ``w = threadIdx.x / warpSize`` scaled by a per-warp count equal to 32,
    and at ``l = threadIdx.x % warpSize`` indexing rows whose extent is 32."""
    code = model.code
    if "warpSize" not in code:
        return
    # only the `;`-stretches holding warpSize are searched (the pattern opens with a lookbehind,
    # tried at every offset of a whole function otherwise)
    for lo, hi in warp.statements_with(code, "warpSize"):
        m = _BY_WARPSIZE_DEF.search(code, lo, hi)
        s = model.at(m.start()) if m is not None else None
        if m is None or s is None or not s.name or s.src or s.body < 0 or m.start() < s.body:
            continue
        name, op = m.group(1), m.group(2)
        why = _warp_scaled(model, code[s.body:s.hi], name) if op == "/" else _lane_rows(model, code, s.lo, s.hi, name)
        if not why:
            continue
        kind, harm = ("warps", "two 64-lane warps' rows overlap and half the rows are never computed") \
            if op == "/" else ("lanes", "lanes 32-63 index past the warp's rows, into the next warp's")
        yield (m.start(1), "warp-width-mixed", f"'{name} = threadIdx.x {op} warpSize' counts {kind} of warpSize "
               f"(64 on gfx942/gfx950), but {why}: {harm}", FIX_ROWS, "warpSize")


def _warp_scaled(model: WarpModel, body: str, name: str) -> str:
    word = re.escape(name)
    for m in re.finditer(rf"(?<![\w.]){word}\s*\*\s*(\(?[A-Za-z_0-9]\w*)|(\w+)\s*\*\s*{word}\b", body):
        k = (m.group(1) or m.group(2)).lstrip("(")
        if k != "warpSize" and unit_int(model, k) == 32:
            return f"each warp is given {k} = 32 rows ('{name} * {k}')"
    return ""


def _lane_rows(model: WarpModel, code: str, lo: int, hi: int, name: str) -> str:
    arrays = [(m.group(1), m.group(2), 1) for m in _ROW_POINTER.finditer(code, lo, hi)]
    arrays += [(m.group(1), m.group(2), 0) for m in _SHARED_ARRAY.finditer(code, lo, hi)]
    for array, dims, shift in arrays:
        extents = _SUBSCRIPTS.findall(dims)
        # a literal 32 of a __shared__ array is shared-warp32's (model.shared_arrays): named once
        rows = [i + shift for i, e in enumerate(extents)
                if not (shift == 0 and e.strip().isdigit()) and unit_int(model, e) == 32]
        if not rows:
            continue
        for use in re.finditer(warp.word(array) + r"\s*((?:\[[^\]\[]*\]\s*)+)", code[lo:hi]):
            subs = [x.strip() for x in _SUBSCRIPTS.findall(use.group(1))]
            if any(i < len(subs) and subs[i] == name for i in rows):
                return f"it indexes {array}'s rows of {extents[rows[0] - shift].strip()} = 32 ({use.group(0).strip()})"
    return ""


def host_tables(model: WarpModel) -> Iterator[Hit]:
    """warp-width-mixed at ``T[i / warpSize]`` in a kernel, T a per-warp table the host of this
    unit fills with cudaMemcpyToSymbol / hipMemcpyToSymbol and the unit never reads the device's
    warp size on the host (``prop.warpSize``, cudaDevAttrWarpSize)."""
    code = model.code
    if "warpSize" not in code or "MemcpyToSymbol" not in code:
        return
    filled = set(re.findall(r"MemcpyToSymbol(?:Async)?\s*\(\s*(?:HIP_SYMBOL\s*\(\s*)?([A-Za-z_]\w*)", code))
    if not filled or _HOST_WIDTH.search(code) or any(_HOST_WIDTH.search(t) for t in model.header_texts()):
        return
    tables = {t for t in filled
              if re.search(rf"__(?:constant|device)__[^;{{}}()]*?\b{re.escape(t)}\s*\[", code)}
    for m in _TABLE_INDEX.finditer(code) if tables else ():
        s = model.at(m.start())
        if m.group(1) in tables and s.name and not s.src:
            yield (m.start(), "warp-width-mixed", f"{m.group(1)} holds one entry per warp, filled by this unit's host "
                   f"code (MemcpyToSymbol), which never asks the device's warp size, so its warps are 32 lanes; "
                   f"'{m.group(0).strip()}' counts warps of warpSize (64 on gfx942/gfx950): half the entries go "
                   "unused and each region gets twice the lanes it was sized for",
                   "size the table from hipDeviceProp_t::warpSize on the host, or index it by "
                   f"{m.group(2).strip()} / 32; {warp.EMULATE}", m.group(1))


# a function whose body (no nested braces) reads PTX's %laneid: `int getLaneId() { asm("mov.u32 %0, %%laneid;" ...) }`
_LANEID_FN = re.compile(r"\b([A-Za-z_]\w*)\s*\([^()]*\)\s*\{[^{}]*%%?laneid\b")
_HW_LANE_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\s*\(\s*\)")


def hardware_lane_names(model: WarpModel, raw: str) -> frozenset[str]:
    """The unit's functions that return the hardware lane: the file's (``raw``, its unmasked text)
    and its quoted headers' whose body reads PTX %laneid."""
    names: set[str] = set()
    for text in (raw, *model.header_texts()):
        if "laneid" in text:
            names.update(_LANEID_FN.findall(text))
    return frozenset(names)


def hardware_lanes(model: WarpModel, raw: str) -> Iterator[Hit]:
    """warp-width-mixed at ``lane = getLaneId()`` (a function reading PTX %laneid) in a function
    that counts its lanes and warps in 32 (``tid / kWarpSize``, ``% 32``): once ported the hardware
    lane runs 0-63, so lane 32 is no leader of warp tid / 32, and an index by it runs past the
    32-lane warp's data. Named on its own line, where the lane is taken."""
    from .model import _counts_in_32  # the per-function test the other wave64 rules use

    code = model.code
    if "(" not in code or "laneid" not in raw and not any("laneid" in t for t in model.header_texts()):
        return
    names = hardware_lane_names(model, raw)
    for m in _HW_LANE_CALL.finditer(code) if names else ():
        if m.group(2) not in names:
            continue
        s = model.at(m.start())
        if s.name and not s.src and s.body <= m.start() and _counts_in_32(model, s):
            yield (m.start(), "warp-width-mixed", f"{m.group(1)} = {m.group(2)}() is the hardware lane (PTX %laneid, "
                   "0-63 on a 64-lane gfx942/gfx950 wavefront once ported), but this function counts its warps and "
                   "lanes in 32: lanes 32-63 index past a 32-lane warp's data and lane 32 is no leader of its warp",
                   f"take the lane as threadIdx.x % 32 (the function's own warps), or count warps by warpSize; "
                   f"{warp.EMULATE}", m.group(2))




def definition(code: str, at: int) -> bool:
    """Is the call whose ``(`` ends just before ``at`` a definition's head (its ``)`` followed by
    ``{``, a qualifier or ``->``)? The scope finder gives a function's own head to the scope
    before it."""
    depth = 1
    for i in range(at, min(len(code), at + 600)):
        depth += (code[i] == "(") - (code[i] == ")")
        if depth == 0:
            rest = code[i + 1:i + 80].lstrip()
            return rest.startswith(("{", "->", "const", "noexcept", "override"))
    return False


def near(pattern: re.Pattern[str], text: str, key: str, before: int = 300, after: int = 120) -> set[str]:
    """group(1) of ``pattern``'s matches in windows around each ``key`` in ``text``: the helper
    patterns open with a name (no literal prefix), so over a whole file they are tried at every
    identifier; a definition is short and holds its key, so the windows find the same ones."""
    out: set[str] = set()
    at = text.find(key)
    while at >= 0:
        start = max(0, at - before)
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1  # not from inside a word: a cut name would match as another
        window = text[start:at + after]
        out.update(m.group(1) for m in pattern.finditer(window) if m.group(1))
        at = text.find(key, at + after)
    return out


@lru_cache(maxsize=4096)
def _helpers_in(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(hardware-lane helpers, 32-lane warp helpers) defined in one text (cached: a header is
    read by every file that includes it)."""
    lanes = near(_LANEID_FN, text, "laneid") if "laneid" in text else set()
    warps: set[str] = set()
    if "threadIdx" in text:
        for m in _THREAD_HELPER_BODY.finditer(text):  # opens with `{`: the engine skips to each brace
            head = _HELPER_HEAD.search(text, max(0, m.start() - 300), m.start())
            if head is not None:
                (lanes if m.group(1) else warps).add(head.group(1))
    return frozenset(lanes), frozenset(warps)


# the two helpers above read from their body back to their name: `{ return threadIdx.x & (warpSize - 1); }`
# (group 1: the hardware lane) or `{ return threadIdx.x >> 5; }` (a warp of 32), then `name()` before it
_THREAD_HELPER_BODY = re.compile(r"\{\s*return\s*\(?\s*threadIdx\.x\s*(?:(&\s*\(\s*warpSize\s*-\s*1\s*\)|"
                                 r"%\s*warpSize\b)|>>\s*5|/\s*32)\s*\)?\s*;\s*\}")
_HELPER_HEAD = re.compile(r"(?<![\w])([A-Za-z_]\w*)\s*\(\s*(?:void)?\s*\)\s*\Z")


def hardware_lane_helpers(texts: Sequence[str]) -> frozenset[str]:
    """The unit's helpers whose body reads PTX %laneid in an ``asm`` statement (not in a comment:
    cuda-fixnum's ``laneIdx()`` returns ``threadIdx.x & (width - 1)`` beside a note about
    %laneid), from ``texts`` (the file and every header its includes resolve to)."""
    return frozenset().union(*(_asm_lane_helpers(t) for t in texts if "laneid" in t))


@lru_cache(maxsize=4096)
def _asm_lane_helpers(text: str) -> frozenset[str]:
    code = _COMMENT.sub(" ", text)
    return frozenset(near(_ASM_LANEID_FN, code, "laneid")) if "laneid" in code else frozenset()


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_ASM_LANEID_FN = re.compile(r"\b([A-Za-z_]\w*)\s*\([^()]*\)\s*\{[^{}]*?\basm\b[^{};]*%%?laneid\b")


def lane_helper_pair(texts: Sequence[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The unit's helpers returning the hardware lane (PTX %laneid, ``threadIdx.x & (warpSize-1)``)
    and those returning a 32-lane warp index (``threadIdx.x >> 5``), from ``texts`` (the file and
    the project headers its unit reaches, angle-bracket ones too); empty when either is missing."""
    lanes: set[str] = set()
    warps: set[str] = set()
    for text in texts:
        found_lanes, found_warps = _helpers_in(text)
        lanes |= found_lanes
        warps |= found_warps
    return (frozenset(lanes), frozenset(warps)) if lanes and warps else (frozenset(), frozenset())


def helper_lanes(model: WarpModel, texts: Sequence[str]) -> Iterator[Hit]:
    """warp-width-mixed at each call of a project's hardware-lane helper (``utils::lane_id()``,
    PTX %laneid) in a unit whose warp helper counts warps of 32 (``utils::warp_id()`` is
    ``threadIdx.x >> 5``): once ported the lane runs 0-63 while the warp index still says 32
    lanes, so lanes 32-63 index past their warp's 32 slots, lane 0 leads two warps' work and
    ``lane == 0`` elects one thread where the code expects two. Named at the call: the helper
    itself is right on NVIDIA and the pairing happens where both are used."""
    lanes, warps = lane_helper_pair(texts)
    if not lanes:
        return
    code = model.code
    call = re.compile(r"(?<![\w.>])((?:[A-Za-z_]\w*\s*::\s*)*)(" + "|".join(sorted(map(re.escape, lanes)))
                      + r")\s*\(\s*\)")
    for m in call.finditer(code):
        s = model.at(m.start())
        if not s.name or s.src or s.body > m.start() or s.name in lanes or s.name in warps or \
                definition(code, m.end() - 1):
            continue  # outside a function body, or the helper's own definition
        yield (m.start(), "warp-width-mixed",
               f"{m.group(2)}() is the hardware lane (0-63 on a 64-lane gfx942/gfx950 wavefront once ported), "
               f"but this unit's warps are 32 lanes ({'/'.join(sorted(warps))}() is threadIdx.x >> 5): lanes "
               "32-63 index past their warp's 32 slots and lane 0 answers for two warps",
               "take the lane as threadIdx.x % 32 (the unit's own warps), or count warps by warpSize "
               f"(threadIdx.x / warpSize) with per-warp data sized by warpSize; {warp.EMULATE}", m.group(2))


# evidence that a unit's warps are 32 lanes: a warp / lane constant of 32, 31, 5 or the 32-bit full
# mask (`#define LANE_COUNT 32`, `LOG_WARP_SIZE = 5`, `WARP_MASK 0xffffffff`), the thread index cut
# by 32 (`threadIdx.x >> 5`, `% 32`, `& 31`), or a shuffle of width 32
_UNIT_32 = re.compile(r"#[ \t]*define[ \t]+\w*(?:WARP|LANE)\w*[ \t]+\(?\s*(?:32|31|5|0[xX][fF]{8})[uU]?\s*\)?[ \t]*(?://|\n)"
                      r"|\b\w*(?:WARP|LANE|[Ww]arp|[Ll]ane)\w*\s*=\s*(?:32|1\s*<<\s*5|5)\s*[,;}]"
                      r"|threadIdx\.x\s*\)?\s*(?:>>\s*5|/\s*32|%\s*32|&\s*(?:31|0[xX]1[fF]))\b"
                      r"|__shfl\w*\s*\([^;]*,\s*32\s*\)\s*;")
# the unit measures its warps by the hardware width (`tid / warpSize`, `& (warpSize - 1)`, a loop
# `i < warpSize`): then the hardware lane agrees with them
_UNIT_BY_WARPSIZE = re.compile(r"(?:/|%|<)\s*\(?\s*warpSize\b|&\s*\(\s*warpSize\s*-\s*1\s*\)")


def counts_warps_in_32(texts: Sequence[str]) -> bool:
    """Do the unit's texts (the file first, then its headers) lay their warps out in 32 lanes, and
    does none of them count warps by warpSize (a header's ``warp_id() { return threadIdx.x /
    warpSize; }`` makes the unit's warps the hardware's)?"""
    return bool(texts) and not any(map(_by_warpsize, texts)) and any(map(_in_32, texts))


@lru_cache(maxsize=4096)
def _by_warpsize(text: str) -> bool:
    return "warpSize" in text and _UNIT_BY_WARPSIZE.search(text) is not None


@lru_cache(maxsize=4096)
def _in_32(text: str) -> bool:
    """(cached per text: a header is asked by every file that includes it)"""
    return _UNIT_32.search(text) is not None


def hardware_lane_uses(model: WarpModel, texts: Sequence[str], lanes: frozenset[str],
                       seen: set[int]) -> Iterator[Hit]:
    """warp-width-mixed at each statement that uses the hardware lane, in a unit whose warps are 32
    lanes (``counts_warps_in_32``): a call of a helper returning PTX %laneid (``lanes``, found in
    the file and every header its includes resolve to), or a variable of the same function assigned
    from one (``lane = Warp::laneId()``). Once ported the lane runs 0-63, while the code's warps
    still hold 32 lanes: ``for (i = lane; ...; i += 32)`` has lanes 32-63 redo the next lanes'
    elements, ``&buf[tid - lane]`` gives lanes 32-63 the base of the warp before, ``lane < 16`` and
    ``lane == 0`` elect half the leaders, and a width-32 scan guarded by ``lane >= i`` adds lanes
    32..32+i-1's own value back. One finding per statement; statements in ``seen`` (offsets of the
    lines already named by another hardware-lane rule) are skipped."""
    if not lanes:
        return
    code = model.code
    if not any(name in code for name in lanes):
        return
    names = "|".join(sorted(map(re.escape, lanes)))
    # the name first: the qualifiers (`Warp::`) are read back from it
    bare = re.compile(r"(?:" + names + r")\s*\(\s*\)")
    call = re.compile(r"(?<![\w.>])(?:[A-Za-z_]\w*\s*::\s*)*(?:" + names + r")\s*\(\s*\)")
    qualified = re.compile(r"(?<![\w.>])(?:[A-Za-z_]\w*\s*::\s*)*\Z")
    calls = []
    for m in bare.finditer(code):
        head = qualified.search(code, max(0, m.start() - 60), m.start())
        full = call.match(code, head.start()) if head is not None else None
        if full is not None and full.end() == m.end():
            calls.append(full)
    lines = {code.count("\n", 0, at) for at in seen}
    if not calls or not counts_warps_in_32(texts):
        return
    bodies = warp.function_bodies(code)
    by_body: dict[tuple[int, int, str], list[re.Match[str]]] = {}
    for m in calls:
        body = warp.innermost_body(bodies, m.start())
        if body is not None and body[2] not in lanes:  # not the helper's own body, nor outside a function
            by_body.setdefault(body, []).append(m)
    for (lo, hi, _name), found in by_body.items():
        uses, spellings = _lane_uses(code, lo, hi, found)
        pinned = _pinned_spans(code, lo, hi, "(?:" + "|".join(spellings) + ")")
        for at in sorted(set(uses)):
            if any(a < at < b for a, b in pinned):
                continue  # under `if (lane == 0)` / `if (lane < 16)`: the lane is below 32 there
            line = code.count("\n", 0, _statement_start(code, at, lo))
            if line in lines:
                continue
            lines.add(line)
            yield (at, "warp-width-mixed", "the hardware lane (PTX %laneid: 0-63 on a 64-lane gfx942/gfx950 "
                   "wavefront once ported) used where this unit's warps are 32 lanes: lanes 32-63 index past their "
                   "32-lane warp's slots, a `lane == 0` / `lane < 16` test elects half the leaders it expects, and "
                   "a width-32 scan guarded by the lane adds lanes 32-63's own values back",
                   "take the lane in the code's own 32-lane warps (threadIdx.x % 32), or count warps by warpSize "
                   f"with per-warp data sized by warpSize; {warp.EMULATE}", "%laneid")


def _lane_uses(code: str, lo: int, hi: int, found: list[re.Match[str]]) -> tuple[list[int], list[str]]:
    """(offsets of the uses of the hardware lane in the function body ``code[lo:hi]``, the patterns
    that spell it there): the helper's calls (``found``) and the variables that hold one, less the
    uses that come out the same at 64 (``_consistent``) and a walk's own steps."""
    uses: list[int] = []
    spellings = [found[0].re.pattern]
    for m in found:
        v = _LANE_VAR.search(code, max(lo, m.start() - 80), m.start())
        whole = re.match(r"\s*;", code[m.end():m.end() + 8]) is not None  # the lane is the whole value
        if v is None or not whole:  # (not `key = lane < n ? ..`, `tid = lane & 3`)
            if not _consistent(code, lo, hi, m):
                uses.append(m.start())
            continue
        var = v.group(1)
        use = re.compile(rf"(?<![\w.>]){re.escape(var)}\b(?!\s*\()")
        spellings.append(use.pattern)
        stepped = re.search(rf"(?<![\w.>]){re.escape(var)}\s*\+=", code[lo:hi]) is not None or \
            code.rfind("for", max(lo, v.start() - 40), v.start()) >= 0
        if stepped:  # `lane = laneId();` only stores the lane, unless it starts a walk (`idx += 32`)
            uses.append(m.start())
        for u in use.finditer(code, lo, hi):
            # a loop index started at the lane is named where it starts (its `i += 32` walk is the
            # loop's); only `tid - lane`, the warp's slot base, stays a use of the lane
            if u.start() == v.start() or stepped and not re.search(r"-\s*\Z", code[u.start() - 8:u.start()]) \
                    or _consistent(code, lo, hi, u):
                continue
            uses.append(u.start())
    return uses, spellings


def _consistent(code: str, lo: int, hi: int, use: re.Match[str]) -> bool:
    """Does this use of the hardware lane come out the same in 32-lane warps at 64? A sub-warp
    lane (``lane & 3``); the lane as a token of identity, stored bare (``owner[w] = lane;``) or
    compared for equality with a value loaded from memory (``owner[w] == lane``: each lane's id is
    unique in its warp either way) or with a lane taken from a ballot (``__ffs(mask) - 1``)."""
    if _cut_below_32(code, use.end()):
        return True
    before = code[max(lo, use.start() - 120):use.start()]
    after = code[use.end():min(hi, use.end() + 120)]
    if re.search(r"[;{})]\s*[A-Za-z_][\w.]*\s*\[[^\];]*\]\s*=\s*\Z", before) and re.match(r"\s*;", after):
        return True
    if re.search(r"\]\s*==\s*\Z", before) or re.match(r"\s*==\s*[A-Za-z_][\w.]*\s*\[", after):
        return True
    return _ballot_leader(code, lo, hi, use)


def _cut_below_32(code: str, end: int) -> bool:
    """Is the lane ending at ``end`` cut to a sub-warp lane (``& 3``, ``& 0x10``, ``% 8``: bits
    0-4 of the hardware lane are those of the 32-lane one)?"""
    m = re.match(r"\s*(?:&\s*(0[xX][0-9a-fA-F]+|\d+)|%\s*(\d+))\b", code[end:end + 16])
    if m is None:
        return False
    k = int(m.group(1) or m.group(2), 0)
    return k < 32 if m.group(1) else 32 % k == 0


def _ballot_leader(code: str, lo: int, hi: int, use: re.Match[str]) -> bool:
    """Is the lane compared (``==``) with a lane the function took from a ballot (``active_lane =
    __ffs(mask) - 1``)? Hardware lane against the wavefront's own vote: right at 64 once the
    mask is kept in 64 bits (the ballot's rules name it if not)."""
    near = code[max(lo, use.start() - 40):min(hi, use.end() + 40)]
    other = re.search(r"([A-Za-z_]\w*)\s*==\s*" + re.escape(use.group(0)) + r"\b|" + re.escape(use.group(0))
                      + r"\s*==\s*([A-Za-z_]\w*)", near)
    name = (other.group(1) or other.group(2)) if other is not None else None
    return name is not None and re.search(rf"(?<![\w.]){re.escape(name)}\s*=\s*__ffs", code[lo:hi]) is not None


def _pinned_spans(code: str, lo: int, hi: int, lane: str) -> list[tuple[int, int]]:
    """The bodies of the ``if`` statements in ``code[lo:hi]`` whose condition bounds the lane
    (``lane``: a pattern of its spellings) below 32: ``lane == K``, ``!lane``, ``lane < K`` with
    K <= 32, joined by ``&&`` only. The test itself is the hazard; the statements it guards run on
    lanes 0-31 of the wavefront alone."""
    bound = re.compile(rf"(?:!\s*{lane}|{lane}\s*(?:==\s*\d+|<=?\s*(?P<k>\d+)))")
    out: list[tuple[int, int]] = []
    for m in re.finditer(r"\bif\s*\(", code[:hi]) if "if" in code[lo:hi] else ():
        if m.start() < lo:
            continue
        close = _match(code, m.end() - 1, "(", ")")
        cond = code[m.end():close]
        b = bound.search(cond)
        if close < 0 or b is None or "||" in cond or b.group("k") is not None and int(b.group("k")) > 32:
            continue
        after = close + 1
        while after < hi and code[after].isspace():
            after += 1
        end = _match(code, after, "{", "}") if code.startswith("{", after) else code.find(";", after)
        if end > after:
            out.append((close, end))
    return out


def _match(code: str, at: int, open_: str, close: str) -> int:
    """The offset of the bracket closing the one at ``at`` (-1: none)."""
    depth = 0
    for i in range(at, min(len(code), at + 20000)):
        depth += (code[i] == open_) - (code[i] == close)
        if depth == 0:
            return i
    return -1


# `lane = Warp::laneId()` / `unsigned int lane = laneId()`: the variable just before a hardware-lane call
_LANE_VAR = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)\s*=\s*(?:\(\s*\w+\s*\)\s*)?(?:[A-Za-z_]\w*\s*::\s*)*\w*\s*\Z")


def _statement_start(code: str, at: int, floor: int) -> int:
    """Where the statement holding ``at`` starts: after the last ``;``, ``{`` or ``}`` before it
    (not before ``floor``), skipping the blank space after it; a ``for (...)`` header is one
    statement with its clauses."""
    depth = 0
    i = at - 1
    while i > floor:
        c = code[i]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
        elif c in ";{}" and depth <= 0:
            break
        i -= 1
    i += 1
    while i < at and code[i].isspace():
        i += 1
    return i


# `dim3 block(32, rows)` / `dim3 block{32, rows}` / `dim3(32, rows)`: a 2-D block 32 threads wide in x;
# the name may be a later declarator of the statement (`dim3 grid(n), block(32, rows);`)
_BLOCK32_DEF = r"(?<![\w.]){name}\s*(?:[({{]|=\s*dim3\s*[({{])\s*32[uU]?\s*,"
_BLOCK32_INLINE = re.compile(r"\A\s*dim3\s*[({]\s*32[uU]?\s*,")
# a copy of the thread's x index (`int warp_tid = threadIdx.x;`): in rows of 32 threads, the lane in its row
_X_COPY = re.compile(r"(?<![\w.])(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:int|unsigned|uint32_t|size_t|auto)\s+"
                     r"([A-Za-z_]\w*)\s*=\s*\(?\s*(?:int\s*\)\s*)?threadIdx\.x\s*;")
# a thread's loop over a row by the hardware width: `for (int c = X; ...; c += warpSize)` (X: threadIdx.x
# or a copy of it), and the same walk unrolled: `int c = X + warpSize * i` / `X + i * warpSize`
_STRIDE_WS = r"\bfor\s*\(\s*(?:[\w:]+\s+)?([A-Za-z_]\w*)\s*=\s*{x}[^;]*;[^;]*;\s*\1\s*\+=\s*warpSize\b"
_UNROLLED_WS = (r"(?<![\w.])([A-Za-z_]\w*)\s*=\s*{x}\s*\+\s*(?:warpSize\s*\*\s*[A-Za-z_]\w*|"
                r"[A-Za-z_]\w*\s*\*\s*warpSize)\b\s*;")


def _row_walks(code: str, lo: int, hi: int) -> Iterator[tuple[int, str]]:
    """(offset, variable) of each walk over a row by warpSize from the thread's x index in
    code[lo:hi]: the index itself or a local copy of it."""
    xs = ["threadIdx\\.x\\b", *(re.escape(m.group(1)) + r"\b" for m in _X_COPY.finditer(code, lo, hi))]
    x = "(?:" + "|".join(xs) + ")"
    for pattern in (_STRIDE_WS, _UNROLLED_WS):
        for m in re.finditer(pattern.format(x=x), code[lo:hi]):
            yield lo + m.start(), m.group(1)


def half_wave_blocks(model: WarpModel) -> Iterator[Hit]:
    """launch-warp32 at each ``warpSize`` stride over ``threadIdx.x`` (or a local copy of it) in a
    kernel that this unit's host launches with blocks 32 threads wide in x (``dim3 block(32,
    rows)``, one row per 32 threads; the launch may sit in a macro the launching function expands):
    on a 64-lane gfx942/gfx950 wavefront warpSize is 64 while a row still has 32 threads, so each
    thread skips every other 32 columns and half of each row is never touched."""
    code = model.code
    if "<<<" not in code or "warpSize" not in code or "dim3" not in code:
        return
    done: set[str] = set()
    for start, name, args in launch_sites(model):
        kernel = model.by_name.get(name)
        parts = warp.split_args(args)
        if kernel is None or name in done or len(parts) < 2 or not _block_32_wide(model, parts[1], start):
            continue
        done.add(name)  # one launch in rows of 32 is enough: each stride is named once
        for at, var in _row_walks(code, max(kernel.body, kernel.lo), kernel.hi):
            yield (at, "launch-warp32", f"{name} strides '{var}' by warpSize over threadIdx.x, but "
                   f"this unit launches it with blocks 32 threads wide in x ({parts[1].strip()}): at 64 lanes "
                   "(gfx942/gfx950) each 32-thread row skips every other 32 columns, so half the row is never "
                   "computed", f"stride by blockDim.x (the row's threads), or launch 64-wide rows; {warp.EMULATE}",
                   name)


def _block_32_wide(model: WarpModel, arg: str, launch: int) -> bool:
    """Is the launch's block argument 32 threads wide in x: ``dim3(32, n)`` inline, or a ``dim3``
    declared so earlier in the launching function (for a launch inside a ``#define``: in a
    function that expands the macro)?"""
    if _BLOCK32_INLINE.search(arg):
        return True
    name = arg.strip()
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return False
    code = model.code
    decl = re.compile(_BLOCK32_DEF.format(name=re.escape(name)))
    macro = _macro_at(code, launch)
    spans = [(model.at(launch).lo, launch)] if macro is None else [
        (model.at(m.start()).lo, m.start()) for m in re.finditer(r"(?<![\w.])" + re.escape(macro) + r"\s*\(", code)
        if model.at(m.start()).body >= 0 and _macro_at(code, m.start()) is None]
    return any(_dim3_statement(code, d.start()) for lo, hi in spans for d in decl.finditer(code, lo, hi))


def _dim3_statement(code: str, at: int) -> bool:
    """Does the declaration statement holding ``at`` begin with ``dim3`` (``dim3 a(..), b(..)``)?"""
    begin = max(code.rfind(c, 0, at) for c in ";{}") + 1
    return code[begin:at].lstrip().startswith("dim3")


def _macro_at(code: str, at: int) -> str | None:
    """The name of the ``#define`` whose (backslash-continued) body holds ``at``, else None."""
    line = code.rfind("\n", 0, at) + 1
    while True:
        m = re.match(r"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", code[line:line + 200])
        if m:
            return m.group(1)
        end = line - 1  # the newline ending the line before; blanks before it (a CRLF file's \r, masked
        while end > 0 and code[end - 1] in " \t\r":  # to a space) still continue the line, as in GCC
            end -= 1
        if line == 0 or code[end - 1:end] != "\\":
            return None
        line = code.rfind("\n", 0, line - 1) + 1
