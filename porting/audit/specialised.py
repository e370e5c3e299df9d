"""A template's specialisation for 32 that forwards to the hardware helpers (issue 26, round 13).

Projects write a sub-warp type for any width and specialise it for a whole warp
(``template<> struct subwarp<32> { static int sublane_id() { return utils::lane_id(); } ...}``):
the specialisation hands on the project's hardware-lane helper (PTX ``%laneid``) or its 32-bit
ballot wrapper, while the generic body computes ``threadIdx.x % N`` for the smaller widths. A
kernel calling ``subwarp<W>::sublane_id()`` with W = 32 then gets the hardware lane (0-63 once
ported) beside warps of 32 (``threadIdx.x >> 5``), and ``subwarp<W>::masked_ballot()`` a ballot
cut to 32 bits, exactly as a direct call of the helper would (round 12's rules), but under a name
those rules do not know.

A call is named where W is 32, or a template parameter of the calling kernel that a launch in the
same unit sets to 32 or to a value the unit does not spell as a literal (``kernel<CTA, WARP_SIZE>
<<<...>>>`` with ``WARP_SIZE = NNZ``, a macro's ``__WSIZE``); a kernel launched only with other
literals (``kernel<.., 1>``), or never launched here, stays quiet.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from . import warp
from .model import Hit, WarpModel, launch_sites
from .tokenize import brace_end

# opens with its literal word (the engine then jumps to each "template"; a leading \b would be tried
# at every offset of every text); the word's left edge is checked by hand
_SPEC32 = re.compile(r"template\s*<\s*>\s*struct\s+([A-Za-z_]\w*)\s*<\s*32[uU]?\s*>\s*\{")
_FORWARD = re.compile(r"\b([A-Za-z_]\w*)\s*\([^()]*\)\s*(?:const\s*)?\{\s*return\s+((?:[A-Za-z_]\w*\s*::\s*)*)"
                      r"([A-Za-z_]\w*)\s*\([^;{}]*\)\s*;\s*\}")
_TEMPLATE_HEAD = re.compile(r"template\s*<([^<>]*(?:<[^<>]*>[^<>]*)*)>\s*(?:__\w+__\s*)*[^;{}()]*?\Z")


@lru_cache(maxsize=4096)
def _forwarders_in(text: str) -> tuple[tuple[str, str, str], ...]:
    """(struct, member, callee) of each member of a ``template<> struct S<32>`` whose body is
    ``return callee(...);`` (cached per text: a header is read by each file including it)."""
    if "32" not in text or "template" not in text:
        return ()
    out: list[tuple[str, str, str]] = []
    for spec in _SPEC32.finditer(text):
        if spec.start() and (text[spec.start() - 1].isalnum() or text[spec.start() - 1] == "_"):
            continue  # inside a longer word (`my_template<>`)
        body = text[spec.end() - 1:brace_end(text, spec.end() - 1, len(text)) + 1]
        out += [(spec.group(1), m.group(1), m.group(3)) for m in _FORWARD.finditer(body)]
    return tuple(out)


def forwarded_calls(model: WarpModel, texts: Sequence[str], lanes: frozenset[str], warps: frozenset[str],
                    ballots: frozenset[str]) -> Iterator[Hit]:
    """warp-width-mixed at ``S<W>::member()`` calls whose 32-specialisation returns the hardware-lane
    helper (only where the unit's warp helper counts warps of 32: ``warps``), ballot-32bit where it
    returns the 32-bit ballot wrapper; W as the module says."""
    kinds: dict[tuple[str, str], tuple[str, str]] = {}
    for text in texts:
        for struct, member, callee in _forwarders_in(text):
            if callee in lanes and warps:
                kinds[(struct, member)] = ("lane", callee)
            elif callee in ballots:
                kinds[(struct, member)] = ("ballot", callee)
    if not kinds:
        return
    code = model.code
    structs = sorted({s for s, _ in kinds}, key=len, reverse=True)
    call = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, structs)) + r")\s*<\s*([A-Za-z_]\w*|\d+)[uU]?\s*>"
                      r"\s*::\s*(?:template\s+)?([A-Za-z_]\w*)\s*\(")
    for m in call.finditer(code):
        kind = kinds.get((m.group(1), m.group(3)))
        s = model.at(m.start())
        if kind is None or not s.name or s.src or s.body > m.start() or not _width_32(model, s.lo, s.name, m.group(2)):
            continue
        yield _hit(m, *kind)


def _width_32(model: WarpModel, lo: int, kernel: str, arg: str) -> bool:
    """Can the template argument ``arg`` of a call in ``kernel`` (its head near ``lo``) be 32?"""
    if arg.isdigit():
        return int(arg) == 32
    params = _template_params(model.code, lo)
    if arg not in params:
        return False  # not the kernel's own parameter: not followed
    index = params.index(arg)
    for start, name, _args in launch_sites(model):
        if name != kernel:
            continue
        given = _launch_template_args(model.code, start + len(name))
        if len(given) > index and (not given[index].isdigit() or int(given[index]) == 32):
            return True
    return False


def _template_params(code: str, lo: int) -> list[str]:
    """The names of the template parameters declared just before the function starting near ``lo``."""
    head = _TEMPLATE_HEAD.search(code, max(0, lo - 400), code.find("(", lo) if code.find("(", lo) >= 0 else lo)
    if head is None:
        return []
    return [(p.split("=")[0].split() or [""])[-1] for p in warp.split_args(head.group(1))]


def _launch_template_args(code: str, at: int) -> list[str]:
    """The template arguments written between a launched kernel's name (ending at ``at``) and ``<<<``."""
    end = code.find("<<<", at)
    text = code[at:end].replace("\\", " ").strip()
    if not text.startswith("<") or not text.endswith(">"):
        return []
    return [a.strip().rstrip("uU") for a in warp.split_args(text[1:-1])]


def _hit(m: re.Match[str], kind: str, callee: str) -> Hit:
    call = f"{m.group(1)}<{m.group(2)}>::{m.group(3)}()"
    if kind == "lane":
        return (m.start(), "warp-width-mixed", f"{call} is, for a width of 32, {callee}() (the hardware lane, "
                "0-63 on a 64-lane gfx942/gfx950 wavefront once ported) beside this unit's warps of 32 "
                "(threadIdx.x >> 5): lanes 32-63 index past their warp's 32 slots and lane 0 answers for two "
                "warps", f"return threadIdx.x % 32 from {m.group(1)}<32>::{m.group(3)}; {warp.EMULATE}",
                m.group(3))
    return (m.start(), "ballot-32bit", f"{call} is, for a width of 32, {callee}(), the project's ballot cut to 32 "
            "bits: on a 64-lane gfx942/gfx950 wavefront lanes 32-63's votes are lost",
            f"return the ballot in 64 bits from {m.group(1)}<32>::{m.group(3)}; {warp.EMULATE}", m.group(3))
