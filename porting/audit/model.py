"""A per-function model of how a CUDA file uses the warp, read by the wave64 rules (issue 26).

warp.py finds the sites that look like 32-lane assumptions (``% 32`` on a thread index, shuffle
loops from 16, a width constant equal to 32); this module decides, per function, what they mean
on a 64-lane wavefront:

- a function with no warp operation (no shuffle, ballot, vote or ``__syncwarp``, and no call to a
  function of the file that has one) uses ``% 32`` / ``>> 5`` for data layout: not a hazard;
- a function whose warp operations all stay within 32 lanes (xor/down offsets 16..1, leaders at
  ``lane % 32 == 0``, ``/ 32`` warp slots) and that never measures the warp by ``warpSize`` is
  *self-consistent 32-lane code*: each half of a wavefront acts as its own warp and the result is
  the same at 64 (``warp32-logical``, a note: only the mask needs fixing);
- one that also measures the warp by ``warpSize`` (itself or in a function it calls) mixes the
  two widths: the 32-lane sites stay ``warp-size-literal`` warnings;
- inside 32-lane logical warps, a shuffle from a fixed source lane without a width
  (``__shfl_sync(m, v, 0)``, ``__shfl(v, 0)``) makes lanes 32-63 read the lower half
  (``shfl-fixed-lane``); ``cg::tiled_partition<32>`` tiles are explicit 32-lane groups.

Scopes are top-level functions as warp.Derivation cuts them (from a top-level ``}`` to the next).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from . import warp
from .tokenize import brace_end

Hit = warp.Hit

# a warp operation: intrinsic shuffles, votes, ballots, warp syncs, warp reductions/matches
_WARP_OP = re.compile(r"__shfl(?:_up|_down|_xor)?(?:_sync)?\s*\(|__ballot(?:_sync)?\s*\("
                      r"|__(?:any|all|uni)(?:_sync)?\s*\(|__syncwarp\s*\(|__reduce_\w+_sync\s*\(|__match_\w+_sync\s*\(|\.shfl(?:_up|_down|_xor)?\s*\(")
# a call `name(` or `name<T>(` (the name is then looked up among the known functions). Possessive,
# and never started after a letter: a word that is not followed by `(` fails at once instead of
# backtracking through each of its suffixes (the same matches, 4x faster on warp-heavy code)
_IDENT_CALL = re.compile(r"(?<![A-Za-z_])([A-Za-z_]\w*+)\s*+(?:<[^<>;{}()]*>\s*)?\(")
_WARP_OP_WORDS = ("__shfl", "__ballot", "__any", "__all", "__uni", "__syncwarp", "__reduce_", "__match_", ".shfl")


def _sites(code: str, words: tuple[str, ...], pattern: re.Pattern[str], back: int = 0,
           found: Iterable[tuple[int, str]] | None = None) -> Iterator[int]:
    """Offsets where ``pattern`` matches around an occurrence of one of ``words`` (found with
    str.find, much faster than running the pattern over every offset of the file; or given as
    ``found``, (offset, word) pairs): the pattern is tried from ``back`` characters before the word
    up to the word."""
    for at, word in _occurrences(code, words) if found is None else found:
        m = pattern.search(code, max(0, at - back), at + len(word) + 40)
        if m is not None and m.start() <= at + len(word):
            yield m.start()


def _occurrences(code: str, words: tuple[str, ...]) -> Iterator[tuple[int, str]]:
    for word in words:
        at = code.find(word)
        while at >= 0:
            yield at, word
            at = code.find(word, at + len(word))


# the "__" words of _WARP_OP_WORDS, all found in one pass: the engine jumps from one "__" to the
# next (a str.find per word read the whole file nine times). Consuming only the "__" misses none:
# no word has "_" as its third character, so no occurrence starts inside another's "__".
_WARP_OP_UNDERSCORED = re.compile(r"__(?=(shfl|ballot|any|all|uni|syncwarp|reduce_|match_))")


def _warp_op_words(code: str) -> list[tuple[int, str]]:
    """(offset, word) of every occurrence of a word of _WARP_OP_WORDS, in file order per kind."""
    out = [(m.start(), "__" + m.group(1)) for m in _WARP_OP_UNDERSCORED.finditer(code)]
    out += _occurrences(code, (".shfl",))
    return out


_WARP_NAMED = re.compile(r"(?i)warp|shfl|shuffle|ballot")


@lru_cache(maxsize=65536)
def _warp_named(name: str) -> bool:
    """Is a called name named for the warp (asked of every call of every warp function: cached)?"""
    return _WARP_NAMED.search(name) is not None
# the warp measured at run time: lane / warp index or a shuffle loop by warpSize
_BY_WARPSIZE = re.compile(r"(?:%|/|&)\s*\(?\s*(?:warpSize|WARP_SIZE_RT)\b|\bwarpSize\s*(?:/\s*2|>>\s*1)\b"
                          r"|\bwarpSize\s*-\s*1\b|__lane_id\s*\(")
# a block-wide collective of cub/hipcub (BlockScan, BlockReduce...): built on hardware warps, so it
# measures the warp by the hardware width (64 lanes on CDNA), like warpSize
# CUB's warp-level names (collectives, LaneId / WarpId, Shuffle*, WARP_THREADS) measure the hardware
# warp; its per-thread utilities (cub::UpperBound, ThreadLoad, Sum) do not: GpuMultisplit's histogram
# kernels, 32-lane logical code calling cub::UpperBound, were said to measure the warp by warpSize.
# Nor do its device-wide algorithms (cub::DeviceRadixSort): the host calls them, and a host function
# that launches 32-thread blocks and then sorts was said to mix the two widths (GenomeWorks' myers)
_HW_COLLECTIVE = re.compile(r"\b(?:Block|Warp)(?:Scan|Reduce|ReverseScan)\w*\b"
                            r"|\b(?:hip)?cub::(?:Block|Warp|Lane|Shuffle|WARP|PTX_WARP)\w*")
# a tile whose width is a name: the hardware width (hw_warp_size) unless the file defines it as 32
_TILE_NAMED = re.compile(r"(?:tiled_partition|thread_block_tile)\s*<\s*([A-Za-z_]\w*)\s*>")
# a tile width named for the hardware (DeepSpeed's hw_warp_size): 64 on CDNA. Other names not
# defined as 32 in the translation unit are not judged either way.
_HW_NAME = re.compile(r"(?i)hw_|hardware|physical|wavefront")
_SHADOW = re.compile(r"\b(?:const(?:expr)?\s+)?(?:unsigned\s+)?(?:int|short|long|unsigned|size_t|uint32_t|int32_t)\s+"
                     r"warpSize\s*=\s*(\d+)[uU]?\s*;")  # a local that shadows the builtin
_TILE32 = re.compile(r"(?:tiled_partition|thread_block_tile)\s*<\s*32\s*>")
# matched at a `__shfl` found by str.find; ATen's WARP_SHFL(value, srcLane, width = warpSize, mask)
# (c10/ATen DeviceUtils.cuh) is the same shuffle with its width defaulting to the hardware's
_SHFL_FIXED = re.compile(r"(?<![\w.])(__shfl_sync|__shfl|WARP_SHFL)\s*\(")
_LANE32_VAR = re.compile(r"([A-Za-z_]\w*)\s*=\s*[^;]*?(?:%\s*32|&\s*(?:31|0[xX]1[fF]))\b")
_WARP_COUNT_SHIFT = re.compile(r"1[uU]?\s*<<\s*\(\s*[^()]*/\s*warpSize\s*\)")
# wmma / mma: fragments are spread over a hardware warp (64 lanes on CDNA, rocWMMA), not over
# 32-lane halves, so neither "consistent at 64" nor the lane-math warnings describe this code; the
# width is not what fails (nvcuda::wmma has no ROCm build; that is a library port)
_MMA = re.compile(r"wmma::|\bmma_sync\s*\(")
# the same warp matrix operations written as PTX (`asm("mma.sync.aligned...")`, ldmatrix, wgmma),
# often inside a `#define HMMA16816(...)` macro body that the kernels use rather than in the kernel
_PTX_MATRIX = ("mma.sync", "ldmatrix.sync", "wgmma.")
# Hopper+ warpgroup programming through CUTLASS/CuTe (elected-lane TMA issue, warpgroup fences,
# register reallocation): the function belongs to a GMMA/TMA pipeline that has no ROCm build at
# all (a library port, named by cuda-only-library), so its fixed-lane broadcasts of the warp index
# (`__shfl_sync(m, (tid / 32) % 4, 0)`) are mma code, not a wave64 hazard of their own
_WARPGROUP = re.compile(r"elect_one_sync\s*\(|warpgroup_(?:arrive|wait|commit_batch|fence_operand|reg_alloc"
                        r"|reg_dealloc)\b|\bSM90_TMA_\w+")
_MACRO_HEAD = re.compile(r"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)")
_VOTE = re.compile(r"__(?:all|any)(?:_sync)?\s*\(")
# a raw ballot spans the wavefront too: lanes picked or counted from it mix the two 32-lane halves
# (a cooperative group's tile.ballot is the tile's own and is not matched)
_RAW_BALLOT = re.compile(r"(?<![\w.])__ballot(?:_sync)?\s*\(")
# a match mask spans the wavefront like a ballot (64 bits on HIP): lanes picked from it reach 63
_MATCH = re.compile(r"(?<![\w.])__match_(?:any|all)_sync\s*\(")
LANE_BIT = "'1 <<"  # how warp.lane_math's lane-bit hits begin
_LOOP16 = re.compile(r"=\s*16\s*;|<=?\s*32\s*;|<\s*32\b")


@dataclass
class Scope:
    lo: int
    hi: int
    name: str = ""
    warp_op: bool = False  # a warp operation here
    by_warpsize: bool = False  # the warp measured by warpSize here
    logical32: bool = False  # a 32-lane assumption here (filled from warp.py's hits)
    tile32: bool = False
    mma: bool = False  # warp matrix operations here (wmma fragments belong to hardware warps)
    vote: bool = False  # __all / __any / __ballot here: a vote spans the whole wavefront, not a 32-lane half
    fixed: bool = False  # a fixed-lane shuffle hazard here (shfl-fixed-lane)
    hw_lane: bool = False  # reads PTX %laneid: the hardware lane (0-63 once ported as __lane_id())
    src: str = ""  # the header text a scope of an included header was cut from ("": the file's own)
    body: int = -1  # where the function's body opens (its `{`), -1 when not a function
    calls: set[str] | None = None  # computed when first asked (WarpModel.calls_of)
    # (the shuffle it wraps, or (); does it hold __shfl_xor): computed when first asked (shuffle_wrappers)
    wrapper: tuple[tuple[int, int, int] | tuple[()], bool] | None = None


class WarpModel:
    """The functions of one file and what each does with the warp (callees folded in: the file's
    own functions, and ``external`` ones defined in the headers it includes)."""

    def __init__(self, code: str, derived: warp.Derivation, hits: list[Hit],
                 external: dict[str, Scope] | None = None, external_32: frozenset[str] = frozenset(),
                 own_32: set[str] | None = None, widths: set[str] | None = None,
                 cuda_only: Callable[[int], bool] | None = None, ptx_matrix: tuple[int, ...] = (),
                 ptx_laneid: tuple[int, ...] = (), headers: tuple[str, ...] = ()) -> None:
        self.code = code
        self.derived = derived
        self.scopes: list[Scope] = []
        self.by_name: dict[str, Scope] = dict(external or {})
        own: set[str] = set()
        const32 = (warp.constant_names(code) if own_32 is None else own_32) | external_32
        self.const32 = frozenset(const32)
        # per-function answers asked once per shuffle or launch site, kept for the file
        self.lane_memo: dict[int, set[str]] = {}
        self.scales_memo: dict[tuple[int, str, int], bool] = {}
        self.closure_memo: dict[int, list[Scope]] = {}  # _closure, by id of the scope (kept alive by the model)
        self.launch_list: list[tuple[int, str, str]] | None = None  # _launch_sites of the code, when first asked
        self.small_memo: dict[int, bool] = {}  # _small_block, by the launch's offset
        self.one_warp_memo: dict[int, bool] = {}  # _one_warp_blocks, by id of the scope
        self.headers = headers  # the quoted headers the file includes (their constants: unit_value)
        self.unit_values: dict[str, str] | None = None  # the unit's constants, read when first asked
        self.wrappers: dict[str, Wrapper] | None = None  # shuffle_wrappers, found when first asked
        self.xor_wrappers: frozenset[str] = frozenset()  # functions / macros around __shfl_xor (with them)
        self.scopes = [Scope(lo, hi) for lo, hi in _cut(code)]
        # each fact found by one pass over the file, then given to the scope around it
        op_words = _warp_op_words(code)  # where a warp operation can be; the votes and ballots among them
        for at in _sites(code, _WARP_OP_WORDS, _WARP_OP, found=op_words):
            self.at(at).warp_op = True
        # a function that declares its own `warpSize` (`int warpSize = 32;`, HeCBench's bsw) measures
        # its warp by that local, not by the builtin: judged by the local's value (32: a 32-lane warp)
        shadow = {self.at(m.start()).lo: int(m.group(1)) for m in _SHADOW.finditer(code)} if (
            "warpSize =" in code or "warpSize=" in code) else {}
        for at in _sites(code, ("warpSize", "__lane_id"), _BY_WARPSIZE, back=8):
            s = self.at(at)
            if shadow.get(s.lo) == 32 and "warpSize" in code[at:at + 40]:
                s.logical32 = True
            else:
                s.by_warpsize = True
        for at in _sites(code, ("Scan", "Reduce", "cub::"), _HW_COLLECTIVE, back=12):
            self.at(at).warp_op = self.at(at).by_warpsize = True
        for m in _TILE_NAMED.finditer(code) if "_tile" in code or "_partition" in code else ():
            s = self.at(m.start())
            s.warp_op = True
            if m.group(1) in const32:
                s.tile32 = True
            elif _HW_NAME.search(m.group(1)):
                s.by_warpsize = True
        for at in _sites(code, ("wmma::", "mma_sync"), _MMA) if "mma" in code else ():  # one pass when neither
            self.at(at).mma = True
        for at in _ptx_matrix_sites(code, ptx_matrix):
            self.at(at).mma = True
        for at in _sites(code, ("elect_one_sync", "warpgroup_", "SM90_TMA_"), _WARPGROUP):
            self.at(at).mma = True
        for at in ptx_laneid:
            self.at(at).hw_lane = True
        self.votes: list[int] = []  # the __all / __any votes ROCm compiles (wide_in_logical)
        for at in _sites(code, ("__all", "__any"), _VOTE, found=[o for o in op_words if o[1] in ("__all", "__any")]):
            if cuda_only is None or not cuda_only(at):  # a CUDA-only branch's vote is not ROCm's
                self.at(at).vote = True
                self.votes.append(at)
        self.ballots: list[int] = []  # the raw ballots ROCm compiles (wide_in_logical)
        for at in _sites(code, ("__ballot",), _RAW_BALLOT, back=1, found=[o for o in op_words if o[1] == "__ballot"]):
            if cuda_only is None or not cuda_only(at):
                self.at(at).vote = True
                self.ballots.append(at)
        self.matches: list[int] = []  # the __match_*_sync calls ROCm compiles (leaders_by_32)
        for at in _sites(code, ("__match_",), _MATCH, back=1, found=[o for o in op_words if o[1] == "__match_"]):
            if cuda_only is None or not cuda_only(at):
                self.at(at).vote = True
                self.matches.append(at)
        for m in _TILE32.finditer(code) if "_tile" in code or "_partition" in code else ():
            self.at(m.start()).tile32 = True
        for s in self.scopes:
            s.name, s.body = _function_name(code, s.lo, s.hi)
            if s.name and s.name not in own:  # the file's own definition wins over a header's
                own.add(s.name)
                self.by_name[s.name] = s
        for at, _rule, msg, _fix, _sym in hits:
            if not msg.startswith(LANE_BIT):  # a lane bit is about the mask's width, not the warp's
                self.at(at).logical32 = True
        # the 16..1 loops of a warp function count even when warp.py saw no hit (cooperative tiles)
        for at, head in warp._shuffle_loops(code, warp._ANY_SHFL).items() if "shfl" in code else ():
            if _LOOP16.search(head):
                self.at(at).logical32 = True
        # a constant equal to 32 that the file uses as the warp width (WARP_SIZE / 2 loops, shuffle
        # width WARP_SIZE, % WARP_SIZE): a warp function of the file mentioning it works on 32 lanes
        if widths is None:
            widths = warp.width_names(code, derived, frozenset(const32)) if const32 else set()
        widths32 = widths & const32
        # a width constant only a header defines: its definition is judged in the header's own unit,
        # so this file's uses of it (`lane = tid % WARP_SIZE`) are where its findings go
        outside = widths32 - (warp.constant_names(code) if own_32 is None else own_32)
        self.header_width_sites: list[tuple[int, str]] = []
        for name in widths32:
            at = code.find(name)
            while at >= 0:
                end = at + len(name)
                if not (at and (code[at - 1].isalnum() or code[at - 1] in "_.")) and not (
                        end < len(code) and (code[end].isalnum() or code[end] == "_")):
                    s = self.at(at)
                    s.logical32 = s.logical32 or s.warp_op
                    if name in outside and s.warp_op:
                        self.header_width_sites.append((at, name))
                at = code.find(name, end)

    def header_texts(self) -> Iterator[str]:
        from .includes import read

        return (read(h) for h in self.headers)

    def calls_of(self, s: Scope) -> set[str]:
        """The functions ``s`` calls among those known (the file's and its headers'), and calls
        to functions named for the warp that are defined nowhere we read (computed when first
        asked, from the text the scope was cut from: a header's scope reads the header)."""
        if s.calls is None:
            s.calls = set()
            code = s.src or self.code
            known = self.by_name
            for name in _IDENT_CALL.findall(code, s.lo, s.hi) if s.name else ():
                if name != s.name and (name in known or _warp_named(name)):
                    s.calls.add(name)
        return s.calls

    def at(self, offset: int) -> Scope:
        lo, hi = 0, len(self.scopes) - 1
        while lo < hi:  # the last scope starting at or before offset
            mid = (lo + hi + 1) // 2
            if self.scopes[mid].lo <= offset:
                lo = mid
            else:
                hi = mid - 1
        return self.scopes[lo]

    def _closure(self, s: Scope) -> list[Scope]:
        """``s`` and the functions of this file it calls, two levels deep (found once per scope:
        the rules ask it of the same function at every site, and which scopes it holds depends only
        on the calls, fixed once the model is built, not on the flags the rules set)."""
        known = self.closure_memo.get(id(s))
        if known is None:
            known = self.closure_memo[id(s)] = self._find_closure(s)
        return known

    def _find_closure(self, s: Scope) -> list[Scope]:
        out, todo = [s], [(s, 0)]
        while todo:
            cur, depth = todo.pop()
            for name in self.calls_of(cur) if depth < 2 else ():
                callee = self.by_name.get(name)
                if callee is not None and callee not in out:
                    out.append(callee)
                    todo.append((callee, depth + 1))
        return out

    def uses_warp(self, s: Scope) -> bool:
        return any(c.warp_op for c in self._closure(s)) or any(
            _WARP_NAMED.search(n) and n not in self.by_name for n in self.calls_of(s))

    def mixed_calls(self, s: Scope) -> Iterator[tuple[int, str]]:
        """(offset, name) of the calls in ``s``, a function measuring the warp by warpSize, to
        functions that reduce over 32-lane logical warps (and never use warpSize)."""
        if not s.by_warpsize or s.logical32:
            return
        for name in sorted(self.calls_of(s)):
            callee = self.by_name.get(name)
            if callee is None or callee is s or callee.by_warpsize or not callee.warp_op:
                continue
            param, default = ("", "") if callee.logical32 else _width_param(callee.src or self.code, callee)
            if not callee.logical32 and not param:
                continue
            for c in re.finditer(warp.word(name) + r"\s*(<[^<>;{}()]*>)?\s*\(",
                                 self.code[s.lo:s.hi]):
                # a width template (`template <int LANES = 32>`: loops from LANES / 2) is 32-lane work
                # only where this call gives it 32 (`wsum<32>(v)`, `wsum<WARP_SZ>(v)`, or the default)
                width = c.group(1)[1:-1].strip() if c.group(1) else default
                if not param or width and unit_value(self, width) == 32:
                    yield s.lo + c.start(), name

    def mixed(self, s: Scope) -> bool:
        scopes = self._closure(s)
        return any(c.by_warpsize for c in scopes) and any(c.logical32 for c in scopes)

    def matrix(self, s: Scope) -> bool:
        return any(c.mma for c in self._closure(s))

    def consistent(self, s: Scope) -> bool:
        """May the note "32-lane logical warps, consistent at 64" be said of ``s``? Not where a
        vote spans the wavefront (two logical warps vote together), a fixed-lane shuffle reads the
        other half, or the function takes its lane from PTX %laneid (the hardware lane: 0-63 once
        ported, so lane 32 is no leader of warp tid / 32)."""
        return not any(c.vote or c.fixed or c.hw_lane for c in self._closure(s))

    def logical(self, s: Scope) -> bool:
        return any(c.logical32 for c in self._closure(s)) or s.tile32

    def called_from_logical(self, s: Scope) -> bool:
        """Is ``s`` called by a function of this file that works on 32-lane logical warps (a lock
        helper shuffling from lane 1 for callers that index lanes by % 32): it runs on their warps."""
        return bool(s.name) and any(c is not s and c.name and s.name in self.calls_of(c) and self.logical(c)
                                    for c in self.scopes)


_TEMPLATE_INT = re.compile(r"template\s*<\s*(?:int|unsigned|unsigned\s+int|size_t|uint32_t)\s+([A-Za-z_]\w*)\s*"
                           r"(?:=\s*([A-Za-z_]\w*|\d+)[uU]?\s*)?>")


def _width_param(code: str, s: Scope) -> tuple[str, str]:
    """The template parameter of a one-parameter integer template function (``code`` is the text
    it was cut from) that is its shuffle loop's width (``template <int LANES>`` ... ``for (o = LANES
    / 2; ...)``) and its default ("" for none), or ("", "")."""
    m = _TEMPLATE_INT.search(code, s.lo, s.body) if s.body > s.lo else None
    if m is None:
        return "", ""
    body = code[s.body:s.hi]
    name = re.escape(m.group(1))
    loop = re.search(r"=\s*\(?\s*" + name + r"\s*(?:/\s*2|>>\s*1)\b|<=?\s*" + name + r"\s*;", body)
    return (m.group(1), m.group(2) or "") if loop and "shfl" in body else ("", "")


NOTE = ("32-lane logical warps, consistent at 64: each 32-lane half of a 64-lane wavefront acts as its own "
         "warp here (offsets within 32, leaders at lane % 32, / 32 slots), so the result is the same")
NOTE_FIX = "nothing to change in the lane math; the *_sync masks still need 64 bits (warp-mask-32bit)"


def classify(model: WarpModel, hits: list[Hit]) -> Iterator[Hit]:
    """warp.py's 32-lane hits, judged per function (see the module docstring), and the shuffles
    from a fixed source lane inside 32-lane logical warps."""
    code = model.code
    fixed = list(_fixed_lanes(code, model))
    for hit in fixed:
        model.at(hit[0]).fixed = True
    for at, rule, message, fix, symbol in hits:
        s = model.at(at)
        if message.startswith(LANE_BIT) and s.name:
            if _WARP_COUNT_SHIFT.match(code, at):
                continue  # 1 << (blockDim.x / warpSize): a bit per warp of the block, not a lane bit
            if any(c.by_warpsize for c in model._closure(s)):
                yield (at, rule, message, fix, symbol)  # lanes counted by warpSize reach 63: a 32-bit shift fails
                continue
        if not s.name:  # `constexpr int warps = threads / 32;` outside a function: judged by its users
            kind = constant_rule(code, model, warp._assigned_name(code, at), none="")
            if kind == "warp-size-literal":
                yield (at, rule, message, fix, symbol)
            elif kind and kind != MATRIX and kind != BROKEN:
                yield (at, "warp32-logical", NOTE + f" ({code[at:code.find(chr(10), at)].strip()[:40]})",
                       NOTE_FIX, symbol)
            continue
        fed = _fed_to_warpsize(model, s, at) if s.name and not model.matrix(s) else ""
        if fed:
            yield (at, rule, message + f"; it is passed to {fed}, which measures the warp by warpSize, so the "
                   "two widths disagree at 64", fix, symbol)
            continue
        if not model.uses_warp(s) and not s.tile32 or model.matrix(s):
            continue  # `% 32` / `>> 5` in a function with no warp operation: data layout; or wmma
        if s.tile32 and "thread_rank" in code[code.rfind("\n", 0, at):at] or _tile_loop(code, at, s):
            continue  # an explicit 32-lane tile (cg::tiled_partition<32>): right at 64 too
        if model.mixed(s):
            yield (at, rule, message.removeprefix(warp.UNROLLED) + "; this function also measures the warp by "
                   "warpSize, so the two widths disagree at 64", fix, symbol)
        elif message.startswith(warp.UNROLLED):
            continue  # a hand-unrolled 32-lane reduction is said only where it meets warpSize
        elif model.consistent(s):
            yield (at, "warp32-logical", NOTE + f" ({code[at:code.find(chr(10), at)].strip()[:40]})",
                   NOTE_FIX, symbol)
    yield from fixed
    yield from wide_in_logical(model)
    yield from leaders_by_32(model)
    yield from tiles_by_warpsize(model)
    yield from launches(model)
    yield from work_counts(model)
    yield from shared_arrays(model)
    yield from header_widths(model)
    for s in model.scopes:
        for at, name in model.mixed_calls(s):
            yield (at, "warp-width-mixed", f"this function measures the warp by warpSize (64 on gfx942/gfx950) "
                   f"but {name} works on 32-lane warps (shuffle offsets from 16): each call covers half a "
                   "wavefront, so per-warp results are partial", f"make {name} loop from warpSize / 2 (or "
                   f"index this function's warps by 32); {warp.EMULATE}", name)


_WIDTH_BEFORE = re.compile(r"(?:%|/|>>|&\s*\()\s*\(?\s*\Z")
_HALF_AFTER = re.compile(r"\s*(?:/\s*2|>>\s*1)\b")


def header_widths(model: WarpModel) -> Iterator[Hit]:
    """warp-size-literal at this file's lane math by a header's constant equal to 32 (``tid %
    WARP_SIZE``, ``tid & (WARP_SIZE - 1)``, a loop from ``WARP_SIZE / 2``) in a function that also
    measures the warp by warpSize: the two widths disagree at 64, and the header's own unit does
    not see this use."""
    code = model.code
    for at, name in sorted(model.header_width_sites):
        s = model.at(at)
        if not s.name or model.matrix(s) or not model.mixed(s) or unit_value(model, name) != 32:
            continue
        if _WIDTH_BEFORE.search(code, max(0, at - 6), at) or _HALF_AFTER.match(code, at + len(name)):
            yield (at, "warp-size-literal", f"{name} (32, from an included header) is a 32-lane width here, "
                   "and this function also measures the warp by warpSize, so the two widths disagree at 64 "
                   "(gfx942/gfx950 wavefronts have 64 lanes)", f"use warpSize (or a per-architecture "
                   f"constant) for {name}; {warp.EMULATE}", name)


def _fed_to_warpsize(model: WarpModel, s: Scope, at: int) -> str:
    """The function (of this file or a quoted header) that the variable assigned at ``at`` (``lane =
    tid % 32``, ``warp = tid / 32``) is passed to, when that function measures the warp by warpSize
    (``out[warp * warpSize + lane]``, ``lane % warpSize``): a 32-lane index handed to 64-lane
    arithmetic. "" when there is none."""
    name = warp._assigned_name(model.code, at)
    end = model.code.find(";", at)
    if not name or any(c in model.code[at:end] for c in ("?", "[")):
        return ""  # not an index: a value chosen or read with the lane math (`v = tid < n / 32 ? a[l] : 0`)
    for callee in sorted(model.calls_of(s)):
        c = model.by_name.get(callee)
        # by warpSize: its lane math, or any use of the builtin (`warp * warpSize + lane`) unless a
        # local `int warpSize = 32` shadows it (the callee then works in 32-lane warps too)
        if c is None or c is s:
            continue
        if not (c.by_warpsize or not c.logical32 and "warpSize" in (c.src or model.code)[c.lo:c.hi]):
            continue
        for m in re.finditer(warp.word(callee) + r"\s*(?:<[^;{}()]*>)?\s*\(", model.code[s.lo:s.hi]):
            args = warp.split_args(warp._call_args(model.code, s.lo + m.end() - 1))
            if any(name in warp._WORDS.findall(a) for a in args):
                return callee
    return ""


# a shuffle loop whose offsets start at half the hardware warp (`offset = warpSize / 2`)
_WIDE_LOOP = re.compile(r"\bwarpSize\s*(?:/\s*2|>>\s*1)\b")
# a cub / hipcub warp collective built with no logical width (one template argument): hipCUB's
# default LOGICAL_WARP_THREADS is the hardware warp, 64 lanes on CDNA
_CUB_WARP = re.compile(r"\b(?:hip)?cub::Warp(?:Reduce|Scan)\s*<\s*[\w:]+(?:\s*<[^<>;]*>)?\s*>\s*\(")


def _cub_start(code: str, at: int) -> tuple[int, ...]:
    """Where a _CUB_WARP match holding the "cub::Warp" at ``at`` starts: at a "hip" just before it
    (after a `hip`, `\\b` fails at the `c`), else at the `c`."""
    return (at - 3,) if at >= 3 and code.startswith("hip", at - 3) else (at,)


def wide_in_logical(model: WarpModel) -> Iterator[Hit]:
    """warp-width-mixed in a function that counts its lanes and warps in 32 (``lane = tid % 32``
    leaders, ``tid / 32`` slots) but reduces over the hardware warp: a shuffle loop from
    ``warpSize / 2``, or a ``cub::WarpReduce<T>`` / ``WarpScan<T>`` with no logical width (64 lanes
    under hipCUB). At 64 the reduction spans both 32-lane halves, so each half's leader stores the
    whole wavefront's result in its own slot: the block's total counts every value twice. The
    loop or the collective is the line to change (or the 32s around it)."""
    code = model.code
    if "warpSize" in code and "shfl" in code:
        for at, head in warp._shuffle_loops(code, warp._ANY_SHFL).items():
            s = model.at(at)
            if _WIDE_LOOP.search(head) and _counts_in_32(model, s):
                yield (at, "warp-width-mixed", "this shuffle reduction spans warpSize lanes (offsets from "
                       "warpSize / 2: 64 lanes on gfx942/gfx950) but this function counts lanes and warps "
                       "in 32 (lane % 32 leaders, / 32 slots): at 64 both 32-lane leaders store the whole "
                       "wavefront's result", "start the offsets at 16 (32-lane warps), or count lanes and warps "
                       f"by warpSize; {warp.EMULATE}", "warpSize")
    # a vote over the wavefront in a function whose warps are 32-lane halves: at 64 each logical
    # warp's answer takes in the other half's lanes (the code reads it as its own warp's vote)
    for at in model.votes:
        s = model.at(at)
        if _counts_in_32(model, s) and not s.tile32 and not _one_warp_blocks(model, s) and not _voted_again(
                code, s, at):
            name = code[at:code.find("(", at)].strip()
            yield (at, "warp-width-mixed", f"{name} votes over the whole 64-lane wavefront on gfx942/gfx950, "
                   "but this function gives each 32 lanes their own warp (lane % 32, / 32 slots): each "
                   "logical warp's answer takes in the other half's lanes", "vote per 32-lane half (a "
                   "tiled_partition<32> tile's any / all, or mask the ballot to the half), or count warps by "
                   f"warpSize; {warp.EMULATE}", name)
    # a ballot kept whole (64 bits) in a function that is one 32-lane coder of a pair: the bits of
    # the other half's coder are in it, and the prefix / count taken from it mixes the two
    for at in model.ballots:
        s = model.at(at)
        if s.name and not s.tile32 and not s.src and _prefix_of_whole_ballot(code, s, at) \
                and _in_32_lane_warps(model, s, 0) and not _one_warp_blocks(model, s) \
                and not warp.halves_alike_at(code, at):
            name = code[at:code.find("(", at)].strip()
            yield (at, "warp-width-mixed", f"{name} collects the whole 64-lane wavefront on gfx942/gfx950, but "
                   "this function works on 32-lane warps (it or its caller counts lanes and warps in 32): the "
                   "ballot holds two logical warps' bits, so a prefix or count taken from it mixes them",
                   "mask the ballot to this lane's 32-lane half (>> (lane & 32)), or count warps by warpSize; "
                   f"{warp.EMULATE}", name)
    for m in warp.anchored_matches(_CUB_WARP, code, "cub::Warp", _cub_start):
        s = model.at(m.start())
        if _counts_in_32(model, s):
            yield (m.start(), "warp-width-mixed", "cub::WarpReduce / WarpScan without a logical width spans the "
                   "hardware warp under hipCUB (64 lanes on gfx942/gfx950), but this function gives each 32 lanes "
                   "their own warp (/ 32 slots, lane % 32 leaders): at 64 two logical warps reduce together",
                   "pass the logical width as the second template argument (cub::WarpReduce<T, 32>), or count "
                   f"warps by warpSize; {warp.EMULATE}", "cub::WarpReduce")


_FFS_OF = r"([A-Za-z_]\w*)\s*=\s*(?:\(\s*)?__ffs(?:ll)?\s*\(\s*%s\s*\)"  # with re.escape(mask)
_FOLDED_LANE = r"(?:\(\s*)?(?:threadIdx\.x|[A-Za-z_]\w*)\s*(?:%\s*32|&\s*(?:31|0[xX]1[fF]))[uU]?\b\s*\)?"


def leaders_by_32(model: WarpModel) -> Iterator[Hit]:
    """warp-width-mixed at ``lane % 32 == leader`` where ``leader`` is ``__ffs(mask) - 1`` of a
    mask over the whole wavefront (``__match_any_sync`` / a ballot: 64 bits on HIP). At 64 the
    leader is a wavefront lane (0-63) while ``% 32`` folds lanes 32-63 onto 0-31: lanes l and
    l + 32 both match leader l (two leaders) and a leader above 31 matches none (ngAP's de-
    duplication adds a state twice or never). Not in one-warp blocks (no lane 32-63)."""
    code = model.code
    if "__ffs" not in code:
        return  # no leader is taken from any mask
    for at in sorted(model.matches + model.ballots):
        s = model.at(at)
        if not s.name or s.src or s.tile32 or "__ffs" not in code[at:s.hi] or (
                at in model.ballots and warp.halves_alike_at(code, at)):
            continue
        leader = _leader_of(code, s, at)
        if not leader:
            continue
        lanes = {m.group(1) for m in _LANE32_VAR.finditer(code, max(s.body, s.lo), s.hi)}
        lane = _FOLDED_LANE + ("|" + "|".join(map(re.escape, sorted(lanes))) if lanes else "")
        name = re.escape(leader)
        cmp = re.compile(rf"(?<![\w.])(?:(?:{lane})\s*[!=]=\s*{name}\b|{name}\s*[!=]=\s*(?:{lane}))")
        hit = cmp.search(code, at, s.hi)
        if hit is not None and not _one_warp_blocks(model, s):
            call = code[at:code.find("(", at)].strip()
            text = hit.group(0).strip().lstrip("( ")[:40]
            yield (hit.start(), "warp-width-mixed", f"'{text}' compares a lane folded to 0-31 with a leader "
                   f"taken from {call}'s mask, which spans the 64-lane wavefront on "
                   "gfx942/gfx950: the leader reaches 63, so lanes l and l + 32 both lead (or none does)",
                   "keep the mask in 64 bits and compare with the hardware lane (__lane_id(), or "
                   f"threadIdx.x % warpSize); {warp.EMULATE}", call)


def _leader_of(code: str, s: Scope, at: int) -> str:
    """The variable holding ``__ffs(mask) - 1`` for the mask call at ``at``: the call itself inside
    the ``__ffs`` (``leader = __ffs(__ballot_sync(..)) - 1``), or the variable it is stored in."""
    stmt = max(code.rfind(c, s.lo, at) for c in ";{}") + 1  # the statement may wrap (`int m =\n  __match_..`)
    target = warp._TARGET.search(code, stmt, at)
    if re.search(r"__ffs(?:ll)?\s*\(\s*\Z", code[max(s.lo, at - 12):at]):
        return target.group(1) if target else ""
    mask = target.group(1) if target else ""
    found = re.compile(_FFS_OF % re.escape(mask)).search(code, at, s.hi) if mask else None
    return found.group(1) if found else ""


_VOTE_INTO = re.compile(r"([A-Za-z_]\w*)\s*=\s*__(any|all)(?:_sync)?\s*\(")


def _voted_again(code: str, s: Scope, at: int) -> bool:
    """Is the vote at ``at`` (``x = __any(...)``) one stage of a block-wide vote: its answer stored
    per warp (``shared[warp] = x``) and voted again by the same kind (``x = __any(x)`` over the
    stored answers)? An OR of ORs (an AND of ANDs) over the block is the block's OR whatever
    lanes each stage took in, so a wavefront-wide first stage gives the same answer at 64."""
    head = code.rfind("\n", s.lo, at) + 1
    m = _VOTE_INTO.match(code, head + len(code[head:at]) - len(code[head:at].lstrip()))
    if m is None:
        return False
    var, kind = m.group(1), m.group(2)
    body = code[max(s.body, s.lo):s.hi]
    again = [v for v in _VOTE_INTO.finditer(body) if v.group(1) == var and v.group(2) == kind]
    return len(again) >= 2 and re.search(rf"\w\s*\[[^\]]*\]\s*=\s*{re.escape(var)}\s*;", body) is not None


def _prefix_of_whole_ballot(code: str, s: Scope, at: int) -> bool:
    """Is the ballot at ``at`` kept whole (``auto`` / 64-bit: no 32-bit copy, which ballot-32bit
    names) in a variable whose bits below this lane are counted (``__popc(vote & lanemask)``: a
    rank within the warp)? That rank is where a ballot over two 32-lane logical warps goes wrong."""
    target = warp._assigned_name(code, at)
    head = code[code.rfind("\n", s.lo, at) + 1:at]
    wide = r"\b(?:auto|uint64_t|unsigned\s+long\s+long|u?int64|lane_mask)\s+"
    if not target or not re.search(wide + re.escape(target) + r"\s*=", head):
        return False
    return re.search(rf"__popc(?:ll)?\s*\(\s*\(?\s*{re.escape(target)}\s*&", code[at:s.hi]) is not None


def _in_32_lane_warps(model: WarpModel, s: Scope, depth: int) -> bool:
    """Does ``s``, or a function of this file that calls it (up to three callers up: a kernel ->
    its per-block helper -> one block's loop -> one warp's step), count its lanes and warps in 32?"""
    if _counts_in_32(model, s):
        return True
    return depth < 3 and any(c is not s and c.name and not c.src and s.name in model.calls_of(c)
                             and _in_32_lane_warps(model, c, depth + 1) for c in model.scopes)


def _counts_in_32(model: WarpModel, s: Scope) -> bool:
    """Does ``s`` (its own body, not its callees) index lanes or warps in 32 (``% 32``, ``/ 32``,
    ``& 31``, ``>> 5``, or ``%`` / ``/`` by a constant equal to 32) and never by ``warpSize``,
    outside matrix code? The
    body is read, not only the scope's flag: a ``#define WARP 32`` just above a function falls in
    its scope without the function counting anything in 32."""
    if not (s.name and s.logical32) or s.hw_lane or model.matrix(s) or s.src:
        return False
    names = "|".join(re.escape(n) for n in sorted(model.const32) if _only_32(model.code, n))
    by32 = r"(?:%|/)\s*\(?\s*(?:32\b" + (f"|(?:{names})\\b" if names else "") + r")|&\s*(?:31|0[xX]1[fF])\b|>>\s*5\b"
    body = model.code[max(s.body, s.lo):s.hi]
    # lanes or warps also counted by warpSize (`tid % warpSize`): the 32s are something else
    # (bit-packing, tile columns), and the warpSize reduction agrees with the function's leaders
    return re.search(by32, body) is not None and _BY_WARPSIZE_OP.search(body) is None


def _only_32(code: str, name: str) -> bool:
    """Is every ``#define`` of ``name`` in the file 32? A name defined as 32 in one branch and as
    ``warpSize`` in a ROCm branch (``#if defined(USE_ROCM)``: exllamav2's norms) is ported."""
    return all(re.fullmatch(r"\(?\s*32[uU]?\s*\)?", v.strip()) for v in re.findall(
        r"#[ \t]*define[ \t]+" + re.escape(name) + r"[ \t]+([^\n]*)", code))


_BY_WARPSIZE_OP = re.compile(r"(?:/|%|\+=)\s*\(?\s*warpSize\b")


def tiles_by_warpsize(model: WarpModel) -> Iterator[Hit]:
    """warp-width-mixed in a function working on explicit 32-lane tiles (``tiled_partition<32>``)
    that counts its per-warp slots or lanes by ``warpSize``: at 64, two tiles share the slot
    ``threadIdx.x / warpSize`` (one result lost) and ``blockDim.x / warpSize`` counts half the
    tiles. Tiles of a width named for the hardware, or tiles counted by 32 or by
    ``meta_group_rank()``, are consistent and not reported."""
    code = model.code
    if "warpSize" not in code or "_tile" not in code and "_partition" not in code:
        return
    for s in model.scopes:
        if not s.tile32 or not s.name or code.find("warpSize", s.lo, s.hi) < 0:
            continue
        for m in _BY_WARPSIZE_OP.finditer(code, s.lo, s.hi):
            operand = warp._left_operand(code, m.start()).rsplit("[", 1)[-1]
            if code[m.start()] == "+":  # `i += warpSize` from a tile's thread_rank(): every other 32 skipped
                head = code[code.rfind("for", s.lo, m.start()):m.start()]
                if "thread_rank" not in head and not model.derived.at(operand, m.start()):
                    continue
            elif not model.derived.at(operand, m.start()):
                continue  # `n / warpSize`: a size, not a thread's tile
            yield (m.start(), "warp-width-mixed", f"this function works on 32-lane tiles (tiled_partition<32>) but "
                   f"counts them with '{operand.strip()} {code[m.start()]} warpSize' (64 on gfx942/gfx950): two tiles "
                   "share one slot and half the slots stay unused, so per-tile results are lost",
                   f"index by the tile (tile.meta_group_rank(), meta_group_size()) or by 32; {warp.EMULATE}",
                   "warpSize")


_MUL32 = re.compile(r"(?<![\w.])32\s*[*/]|[*/]\s*\(?\s*32(?![\w.])")
_SHARED32 = re.compile(r"__shared__[^;=]*?\b([A-Za-z_]\w*)\s*((?:\[[^\]]*\])+)\s*;")
_LANE_BY_WARPSIZE = re.compile(r"([A-Za-z_]\w*)\s*=\s*[^;]*?(?:%\s*warpSize\b|&\s*\(\s*warpSize\s*-\s*1\s*\)"
                               r"|__lane_id\s*\(\s*\))")


def launches(model: WarpModel) -> Iterator[Hit]:
    """launch-warp32: a host launch whose grid or block counts 32 lanes per warp, of a kernel of
    this file that measures its warps by warpSize (rows per warp, warps per block): at 64 lanes
    half the rows are never computed, or indices run past the end."""
    code = model.code
    if "<<<" not in code:
        return
    for start, name, args in launch_sites(model):
        kernel = model.by_name.get(name)
        if kernel is None or not kernel.by_warpsize or kernel.logical32 or kernel.tile32:
            continue
        host = model.at(start)
        for arg in warp.split_args(args)[:2]:
            at = _count32(code, arg, host.lo, start)
            if at is not None:
                yield (at, "launch-warp32", f"the launch of {name} counts 32 threads per warp ({arg.strip()}), "
                       f"but {name} measures its warps by warpSize (64 on gfx942/gfx950): half the rows are "
                       "never computed, or indices run past the end", "size the launch with the device's warp size "
                       f"(hipDeviceProp_t::warpSize) instead of 32; {warp.EMULATE}", name)
                break


_WARP_INDEX = re.compile(r"([A-Za-z_]\w*)\s*=\s*\(?\s*threadIdx\.x\s*\)?\s*/\s*warpSize\b")
_KERNEL_ALIAS = re.compile(r"\bauto\s+([A-Za-z_]\w*)\s*=\s*&?\s*([A-Za-z_]\w*)\s*(?:<[^;<>]*>)?\s*;")


def work_counts(model: WarpModel) -> Iterator[Hit]:
    """launch-warp32 for a kernel argument: a host count set to 32 (``experts_per_warp = 32``)
    passed to a kernel of this file that multiplies it by a warp index counted with warpSize
    (``warp_id * experts_per_warp``, ``warp_id = threadIdx.x / warpSize``): at 64 lanes half the
    warps exist, so half the items are never reached."""
    code = model.code
    if "<<<" not in code or "warpSize" not in code:
        return
    const32 = warp.constant_names(code)
    for start, name, _config in launch_sites(model):
        host = model.at(start)
        alias = {m.group(1): m.group(2) for m in _KERNEL_ALIAS.finditer(code, host.lo, start)}
        kernel = model.by_name.get(alias.get(name, name))
        if kernel is None or kernel.src or kernel.body < 0:
            continue
        open_at = code.find("(", code.find(">>>", start))
        if open_at < 0 or code[code.find(">>>", start) + 3:open_at].strip():
            continue
        args = warp.split_args(warp._call_args(code, open_at))
        for param, arg in zip(_param_names(code, kernel), args):
            if not re.fullmatch(r"[A-Za-z_]\w*", arg) or not _scales_warp_index(model, kernel, param):
                continue
            last = None
            for a in re.finditer(warp.word(arg) + r"\s*=(?!=)\s*([^;]*);", code[host.lo:start]):
                last = a
            value = last.group(1).strip() if last is not None else ""
            if last is not None and (value == "32" or value in const32):
                yield (host.lo + last.start(), "launch-warp32", f"{arg} = {value} (32) is passed to {name} as "
                       f"{param}, which it multiplies by a warp index counted with warpSize (64 on gfx942/gfx950): "
                       "half the warps exist at 64 lanes, so half the items are never reached",
                       f"pass the device's warp size (hipDeviceProp_t::warpSize) or index warps by 32; {warp.EMULATE}",
                       name)


def _scales_warp_index(model: WarpModel, fn: Scope, param: str, depth: int = 0) -> bool:
    """Does ``fn`` (or a function of the file it passes ``param`` to, one call deep) multiply
    ``param`` by a warp index counted with warpSize? (Asked per launch site: answered once.)"""
    key = (id(fn), param, depth)
    known = model.scales_memo.get(key)
    if known is None:
        known = model.scales_memo[key] = _scales(model, fn, param, depth)
    return known


def _scales(model: WarpModel, fn: Scope, param: str, depth: int) -> bool:
    code = model.code
    if fn.src or fn.body < 0 or not param:
        return False
    body = code[fn.body:fn.hi]
    for w in set(_WARP_INDEX.findall(body)) if "warpSize" in body else ():
        if re.search(rf"(?<![\w.]){w}\s*\*\s*{param}\b|(?<![\w.]){param}\s*\*\s*{w}\b", body):
            return True
    for name in model.calls_of(fn) if depth < 1 else ():
        callee = model.by_name.get(name)
        if callee is None or callee is fn:
            continue
        for call in re.finditer(warp.word(name) + r"\s*(?:<[^<>;{}()]*>)?\s*\(", body):
            args = warp.split_args(warp._call_args(body, call.end() - 1))
            names = _param_names(code, callee)
            if any(a == param and _scales_warp_index(model, callee, p, depth + 1) for a, p in zip(args, names)):
                return True
    return False


def _param_names(code: str, s: Scope) -> list[str]:
    """The parameter names of the function ``s`` (the last word of each parameter)."""
    close = code.rfind(")", s.lo, s.body)
    depth, i = 0, close
    while i >= s.lo:
        depth += (code[i] == ")") - (code[i] == "(")
        if depth == 0:
            break
        i -= 1
    out = []
    for p in warp.split_args(code[i + 1:close]):
        words = warp._WORDS.findall(p.split("=")[0])
        out.append(words[-1] if words else "")
    return out


def launch_sites(model: WarpModel) -> list[tuple[int, str, str]]:
    """_launch_sites of the model's code, found once per file (asked at every fixed-lane shuffle)."""
    if model.launch_list is None:
        model.launch_list = list(_launch_sites(model.code))
    return model.launch_list


def _launch_sites(code: str) -> Iterator[tuple[int, str, str]]:
    """(offset, kernel name, launch arguments) of each ``kernel<T><<<args>>>``, found from the
    ``<<<`` (str.find) and read backwards over template arguments to the name."""
    at = code.find("<<<")
    while at >= 0:
        close = code.find(">>>", at + 3)
        if close < 0:
            return
        j = at - 1
        while j >= 0 and code[j] in " \t\r\n\\":  # a backslash: the launch continues a #define's line
            j -= 1
        if j >= 0 and code[j] == ">":
            depth = 0
            while j >= 0 and j > at - 400:
                depth += (code[j] == ">") - (code[j] == "<")
                if depth == 0:
                    break
                j -= 1
            j -= 1
            while j >= 0 and code[j] in " \t\r\n\\":
                j -= 1
        end = j + 1
        while j >= 0 and (code[j].isalnum() or code[j] == "_"):
            j -= 1
        if end > j + 1:
            yield j + 1, code[j + 1:end], code[at + 3:close]
        at = code.find("<<<", close + 3)


_SMALL_BLOCK = re.compile(r"\(?\s*(?:dim3\s*[({]\s*)?(\d+)[uU]?\s*(?:,\s*1\s*){0,2}[)}]?\s*\)?")


def _one_warp_blocks(model: WarpModel, s: Scope) -> bool:
    """Does ``s`` run only in blocks of at most 32 threads, as far as its translation unit shows?
    A kernel does when it asserts so itself (``assert(threadIdx.x < warp_size)``, ``assert(blockDim.x
    == 32)``) or is launched in this file, every launch with a small block; a device function does
    when the kernels of the file that reach it (two calls deep) all do, and there is at least one.
    Where no launch is visible the answer is no: the judgment then rests on the code itself."""
    if not s.name:
        return False
    known = model.one_warp_memo.get(id(s))
    if known is None:
        known = model.one_warp_memo[id(s)] = _find_one_warp(model, s, 0)
    return known


def _find_one_warp(model: WarpModel, s: Scope, depth: int) -> bool:
    if _asserts_one_warp(model, s) or _barrier_under_warp_test(model, s):
        return True
    code = model.code
    blocks = [(start, args) for start, name, args in launch_sites(model) if name == s.name] if "<<<" in code else []
    if blocks:
        return all(_small_block(model, start, args) for start, args in blocks)
    if depth >= 2 or "__global__" in (s.src or code)[s.lo:max(s.lo, s.body)]:
        return False  # a kernel launched nowhere in its unit (or too deep to follow)
    callers = [c for c in model.scopes if c is not s and c.name and s.name in model.calls_of(c)]
    return bool(callers) and all(_find_one_warp(model, c, depth + 1) for c in callers)


# a kernel's own statement that its block is one warp of at most 32 threads (with no second
# dimension used: a (32, 4) block asserts threadIdx.x < 32 too, and its rows share wavefronts)
_ASSERT_SMALL = re.compile(r"\bassert\s*\(\s*(?:threadIdx\.x\s*<\s*([A-Za-z_]\w*|\d+)"
                           r"|blockDim\.x\s*(?:==|<=)\s*([A-Za-z_]\w*|\d+))\s*\)")


def _asserts_one_warp(model: WarpModel, s: Scope) -> bool:
    code = s.src or model.code
    body = code[s.lo:s.hi]
    if "assert" not in body or ".y" in body and re.search(r"\b(?:threadIdx|blockDim)\.[yz]\b", body):
        return False
    for m in _ASSERT_SMALL.finditer(code, s.lo, s.hi):
        value = unit_value(model, m.group(1) or m.group(2))
        if value is not None and 0 < value <= 32:
            return True
    return False


def _barrier_under_warp_test(model: WarpModel, s: Scope) -> bool:
    """Does ``s`` call ``__syncthreads()`` inside ``if (warp > 0) { ... }``, ``warp`` being the thread
    index divided by 32 (``idx >> 5``, ``threadIdx.x / 32``)? CUDA requires a barrier's condition to
    be the same for the whole block, so the code is right on CUDA only where the warp index is
    uniform over the block: one warp of at most 32 threads per block (cuSZp's kernels, whose
    ``tblock_size = 32`` sits in a header the unit does not include). A second block dimension
    (``threadIdx.y``) leaves it unjudged, as for an assert."""
    code = s.src or model.code
    if s.body < 0 or "__syncthreads" not in code[s.body:s.hi] or re.search(
            r"\b(?:threadIdx|blockDim)\.[yz]\b", code[s.lo:s.hi]):
        return False
    for w in _WARP_OF_THREAD.finditer(code, s.body, s.hi):
        if not _thread_rooted(code, s, w.group(2)):
            continue
        test = re.compile(r"\bif\s*\(\s*" + re.escape(w.group(1)) + r"\s*(?:[<>]=?|[!=]=)\s*[\w.]+\s*\)\s*\{")
        for m in test.finditer(code, w.end(), s.hi):
            end = brace_end(code, m.end() - 1, s.hi)
            if "__syncthreads" in code[m.end():end]:
                return True
    return False


# `warp = idx >> 5;`, `const int warp_id = threadIdx.x / 32;`: a warp index of 32 lanes
_WARP_OF_THREAD = re.compile(r"\b([A-Za-z_]\w*)\s*=\s*\(?\s*([A-Za-z_][\w.]*)\s*\)?\s*(?:>>\s*5|/\s*32)\s*;")


def _thread_rooted(code: str, s: Scope, name: str, depth: int = 0) -> bool:
    """Is ``name`` the thread index, or assigned from an expression holding ``threadIdx.x`` or such a
    name (``idx = bid * blockDim.x + tid``, ``tid = threadIdx.x``), followed three steps?"""
    if name == "threadIdx.x":
        return True
    m = re.search(warp.word(name) + r"\s*=(?!=)\s*([^;]*);", code[s.lo:s.hi])
    if m is None or depth >= 3:
        return False
    value = m.group(1)
    return "threadIdx.x" in value or any(
        _thread_rooted(code, s, w, depth + 1) for w in dict.fromkeys(warp._WORDS.findall(value))
        if w != name and w not in warp._KEYWORDS and w not in ("blockIdx", "blockDim", "x"))


# `#define NAME value`, `[static] const[expr] T NAME = value;` / `{value}`, `enum { NAME = value }`:
# a name's value in the unit, a literal or another name (followed a few steps)
# (no leading anchor or \b: each pattern then starts with a literal the engine jumps to)
_DEFINE_VALUE = re.compile(r"#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+"
                           r"\(?\s*([A-Za-z_]\w*|\d+)[uU]?\s*\)?[ \t]*(?://[^\n]*)?$", re.M)
_CONST_VALUE = re.compile(r"(?:const(?:expr)?|GW_CONSTEXPR)\s+(?:static\s+)?(?:unsigned\s+)?[A-Za-z_][\w:]*\s+"
                          r"([A-Za-z_]\w*)\s*(?:=\s*|\{\s*)\(?([A-Za-z_]\w*|\d+)[uU]?\)?\s*[;}]")
_ENUM_BODY = re.compile(r"enum(?:\s+(?:class|struct))?(?:\s+[A-Za-z_]\w*)?(?:\s*:\s*[\w:]+)?\s*\{([^{}]*)\}")
_ENUM_VALUE = re.compile(r"([A-Za-z_]\w*)\s*=\s*(\d+)[uU]?\s*(?:,|\Z)")


def unit_value(model: WarpModel, name: str) -> int | None:
    """The integer value of a literal or a constant of the translation unit (the file, then the
    quoted headers it includes), or None when unknown."""
    if name.isdigit():
        return int(name)
    if model.unit_values is None:
        model.unit_values = _unit_values((model.code, *model.header_texts()))
    for _ in range(4):
        got = model.unit_values.get(name)
        if got is None or got.isdigit():
            return int(got) if got is not None else None
        name = got
    return None


_DEFINE_EXPR = re.compile(r"#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n\\]*[^\s\\])[ \t]*$", re.MULTILINE)


def unit_is_32(model: WarpModel, name: str) -> bool:
    """Does the unit's ``#define`` of ``name`` (the file's, then its quoted headers') come to 32 by
    integer arithmetic on numbers and other such macros: ``#define MAXWARPS (MAXTHREADS / 32)`` with
    ``MAXTHREADS 1024``? A name any step leaves undecided is not 32."""
    from .branches import rocm_value

    texts = (model.code, *model.header_texts())
    defs: dict[str, str] = {}
    for text in texts:
        for n, v in _DEFINE_EXPR.findall(text) if "define" in text else ():
            defs.setdefault(n, v)
    expr = defs.get(name, "")
    for _ in range(4):
        if not re.search(r"[A-Za-z_]", expr):
            break
        expr = re.sub(r"[A-Za-z_]\w*", lambda w: "(" + defs.get(w.group(0), w.group(0)) + ")", expr)
    expr = re.sub(r"(?<=\d)[uUlL]+\b", "", expr)
    return bool(expr) and not re.search(r"[A-Za-z_]", expr) and rocm_value(f"({expr}) == 32") == 1


def _unit_values(texts: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for text in texts:
        for name, value in _text_values(text):
            out.setdefault(name, value)
    return out


@lru_cache(maxsize=256)
def _text_values(text: str) -> tuple[tuple[str, str], ...]:
    """The constants one text defines (a header's are read once, whichever file includes it)."""
    out: list[tuple[str, str]] = []
    if "define" in text:
        out += _DEFINE_VALUE.findall(text)
    if "const" in text:
        out += _CONST_VALUE.findall(text)
    for m in _ENUM_BODY.finditer(text) if "enum" in text else ():
        out += _ENUM_VALUE.findall(m.group(1).strip())
    return tuple(out)


def one_warp_file(model: WarpModel) -> bool:
    """Does this file launch kernels, every launch with a block of at most 32 threads? Its warps
    then never have lanes 32-63, whichever function a ballot sits in."""
    if "<<<" not in model.code:
        return False
    blocks = [(start, args) for start, _name, args in launch_sites(model)]
    return bool(blocks) and all(_small_block(model, start, args) for start, args in blocks)


def _small_block(model: WarpModel, start: int, args: str) -> bool:
    """Is the block of the launch at ``start`` (its ``<<<...>>>`` arguments ``args``) at most 32
    threads? (Once per launch: the answer depends on the code before it.)"""
    known = model.small_memo.get(start)
    if known is None:
        known = model.small_memo[start] = _find_small_block(model, start, args)
    return known


def _find_small_block(model: WarpModel, start: int, args: str) -> bool:
    code = model.code
    block = warp.split_args(args)[1:2]
    value = block[0] if block else ""
    if _SMALL_BLOCK.fullmatch(value) is None and re.fullmatch(r"[A-Za-z_]\w*", value) is None:
        return False
    if _SMALL_BLOCK.fullmatch(value) is None:
        host = model.at(start)
        last = None
        before = code[host.lo:start]
        # `threads = 32;`, `dim3 threads(warp_size, 1, 1)`, `const dim3 threads{32}`: the last
        # assignment before the launch (a pattern compiled per name: asked only when it occurs)
        for a in re.finditer(warp.word(value) + r"\s*(?:=(?!=)\s*([^;]*)|([({][^;]*[)}]))\s*;",
                             before) if value in before else ():
            last = a
        if last is None:
            return (unit_value(model, value) or 99) <= 32  # a constant of the unit (`<<<n, WARP_SIZE>>>`)
        value = (last.group(1) or last.group(2)).strip()
        if _SMALL_BLOCK.fullmatch(value) is None:
            return _small_dims(model, value)
    small = _SMALL_BLOCK.fullmatch(value)
    return small is not None and int(small.group(1)) <= 32


def _small_dims(model: WarpModel, value: str) -> bool:
    """Is a block written ``(W, 1, 1)``, ``{W}``, ``dim3(W, 1)`` with W a constant of the unit of at
    most 32 (the rows of a larger y or z would share a wavefront)?"""
    value = value.removeprefix("dim3").strip()
    if re.fullmatch(r"[A-Za-z_]\w*", value):
        return (unit_value(model, value) or 99) <= 32
    if len(value) < 2 or value[0] + value[-1] not in ("()", "{}"):
        return False
    dims = warp.split_args(value[1:-1])
    return bool(dims) and all(d in ("1", "1u", "1U") for d in dims[1:]) and (unit_value(model, dims[0]) or 99) <= 32


def _count32(code: str, arg: str, lo: int, hi: int) -> int | None:
    """Where a launch argument, or the last assignment of a name in it before ``hi`` (within the
    host function from ``lo``), multiplies or divides by 32."""
    if _MUL32.search(arg):
        return hi
    host = code[lo:hi]
    for name in dict.fromkeys(warp._WORDS.findall(arg)):
        last = _last_assignment(host, name)
        if last is not None and _MUL32.search(last.group(1)):
            return lo + last.start()
    return None


def _last_assignment(text: str, name: str) -> re.Match[str] | None:
    """The last of the non-overlapping matches of `name = ...` / `name{...` / `name(...` up to a `;`
    (lookbehind: not after a word character or `.`), as a finditer over ``text`` would give: tried
    only where the name occurs (the pattern's lookbehind made finditer try every offset), skipping
    occurrences inside the previous match, as finditer does."""
    pattern = re.compile(warp.word(name) + r"\s*(?:=(?!=)|\{|\()([^;]*)")
    last, pos, at = None, 0, text.find(name)
    while at >= 0:
        m = pattern.match(text, at) if at >= pos else None
        if m is not None:
            last, pos = m, max(m.end(), at + 1)
        at = text.find(name, at + 1)
    return last


def shared_arrays(model: WarpModel) -> Iterator[Hit]:
    """shared-warp32: a __shared__ array with an extent of 32 (or 32 * F) indexed through a lane
    counted by warpSize: at 64 lanes the upper half writes past the end."""
    code = model.code
    if "__shared__" not in code or "warpSize" not in code and "__lane_id" not in code:
        return
    for m in _SHARED32.finditer(code):
        dims = m.group(2)
        extents = _SUBSCRIPTS.findall(dims)
        at32 = [i for i, e in enumerate(extents) if _EXTENT32.fullmatch(e.strip())]
        if not at32:
            continue
        s = model.at(m.start())
        lo, hi = (s.lo, s.hi) if s.name else (m.end(), len(code))
        lanes = {v.group(1) for v in _LANE_BY_WARPSIZE.finditer(code, lo, hi)}
        lanes |= {v.group(1) for v in _COPY.finditer(code, lo, hi) if v.group(2) in lanes}  # `k = lane;`
        name = m.group(1)
        for use in re.finditer(warp.word(name) + r"\s*((?:\[[^\]]*\]\s*)+)", code[m.end():hi]):
            subs = _SUBSCRIPTS.findall(use.group(1))
            index = next((subs[i] for i in at32 if i < len(subs) and _lane_index(subs[i], lanes)), None)
            if index is not None:
                yield (m.start(1), "shared-warp32", f"__shared__ {name}{dims} has room for 32 lanes but is indexed "
                       f"by a lane counted with warpSize ({name}[{index.strip()}]): lanes 32-63 of a 64-lane "
                       "wavefront write past the end", f"size it by the warp size (64 on CDNA) or by warps per "
                       f"block, not 32; {warp.EMULATE}", name)
                break


def cuda_only(code: str, side: bytearray | None = None) -> Callable[[int], bool]:
    """Is the offset in a branch only CUDA compiles (branches.regions; ``side`` when known)?"""
    from .branches import CUDA, regions

    side = side if side else regions(code)[0]
    if CUDA not in side:
        return lambda at: False
    return lambda at: side[code.count("\n", 0, at) + 1] == CUDA


_COPY = re.compile(r"([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\s*;")
_SUBSCRIPTS = re.compile(r"\[([^\]]*)\]")
_EXTENT32 = re.compile(r"32\s*(?:\*.*)?|.*\*\s*32")


def _lane_index(index: str, lanes: set[str]) -> bool:
    """Does a subscript reach a lane counted by warpSize (a lane variable, ``% warpSize``, a
    multiple of warpSize)?"""
    return bool(set(warp._WORDS.findall(index)) & lanes) or bool(
        re.search(r"%\s*warpSize|warpSize\s*\*|\*\s*warpSize", index))


@lru_cache(maxsize=1024)
def header_functions(path: str) -> dict[str, Scope]:
    """The functions a header defines and what each does with the warp (cached per process)."""
    from .includes import read
    from .mask import mask

    text = read(path)
    if not text or not any(word in text for word in (*_WARP_OP_WORDS, "warpSize", "_tile", "_partition", "cub::")):
        return {}  # no function here works on the warp (its callers' own warp use is still judged)
    known = _FILE_WORK.get(text)
    if known is not None:  # the header is a file of the run, already audited: its masked code and hits
        code, hits = known
        derived = warp.Derivation(code)
    else:
        code = mask(text, "c").code
        derived = warp.Derivation(code)
        hits = [*warp.lane_math(code, derived), *warp.shuffle_widths(code)]
        _FILE_WORK[text] = (code, hits)
    model = WarpModel(code, derived, hits, cuda_only=cuda_only(code))
    for s in model.by_name.values():
        s.src = code  # an including file's model reads these scopes' calls from the header's text
    return dict(model.by_name)


# text -> (masked code, warp.py's hits on it) of the headers modelled and of the run's header files
# audited (checks._warp): a header that is also a file of the run is masked and read once. Both
# compute the hits the same way, with a fresh Derivation, so either may fill it. Cleared per run.
_FILE_WORK: dict[str, tuple[str, list[Hit]]] = {}


def file_hits(text: str) -> list[Hit] | None:
    """The hits already found on the masked ``text`` in this run, or None."""
    known = _FILE_WORK.get(text)
    return None if known is None else known[1]


def remember_hits(text: str, code: str, hits: list[Hit]) -> None:
    _FILE_WORK[text] = (code, hits)


def external_functions(headers: tuple[str, ...]) -> dict[str, Scope]:
    """The functions of the included headers, the first definition of a name winning."""
    out: dict[str, Scope] = {}
    for h in headers:
        for name, s in header_functions(h).items():
            out.setdefault(name, s)
    return out


def constant_rule(code: str, model: WarpModel, name: str, none: str = "warp-size-literal") -> str:
    """The rule for a width constant NAME = 32 defined in this file: ``warp32-logical`` when every
    function here that uses it works on the warp in consistent 32-lane halves, ``warp-size-literal``
    when one of them mixes it with the hardware width, ``none`` when no function here uses it on
    the warp (the default keeps a header's constant that only its includers use)."""
    users: dict[int, Scope] = {}
    matrix = False
    for at in _word_sites(code, name) if name else ():
        s = model.at(at)
        if s.name and model.matrix(s):
            matrix = True
        elif s.name and model.uses_warp(s):
            users[id(s)] = s
    if any(model.mixed(s) for s in users.values()):
        return "warp-size-literal"
    if not all(model.consistent(s) for s in users.values()):
        return BROKEN
    return "warp32-logical" if users else MATRIX if matrix else none


def _word_sites(code: str, name: str) -> Iterator[int]:
    """Offsets of ``name`` as a whole word, not a member (``.name``): found with str.find (a regex
    that begins with a lookbehind tries every offset of the file)."""
    at = code.find(name)
    while at >= 0:
        end = at + len(name)
        before = code[at - 1] if at else ""
        after = code[end] if end < len(code) else ""
        if not (before and (before.isalnum() or before in "_.")) and not (after and (after.isalnum() or after == "_")):
            yield at
        at = code.find(name, end)


MATRIX = "wmma"  # constant_rule: a width constant used only by wmma functions (not judged)
BROKEN = "not-consistent"  # constant_rule: a user votes or shuffles from a fixed lane (no note)


def _tile_loop(code: str, at: int, s: Scope) -> bool:
    """A shuffle loop at ``at`` whose shuffles are a 32-lane tile's methods (tile32.shfl_down)."""
    if not s.tile32 or not code.startswith("for", at):
        return False
    body = code[at:at + 300]
    return ".shfl" in body and "__shfl" not in body


def _fixed_lanes(code: str, model: WarpModel) -> Iterator[Hit]:
    words = tuple(w for w in ("__shfl", "WARP_SHFL") if w in code)
    sites: list[tuple[int, int, str, str, str]] = []  # (at, open paren, name, value, source lane)
    for at in _sites(code, words, _SHFL_FIXED, back=1):
        m = _SHFL_FIXED.match(code, at)
        if m is None:
            continue
        args = warp.split_args(warp._call_args(code, m.end() - 1))
        if len(args) == (3 if m.group(1) == "__shfl_sync" else 2) and not (
                "define" in code and _macro_around(code, m.start()) in shuffle_wrappers(model)):
            # (mask,) value, source lane: no width; a wrapper macro's own shuffle is judged at its calls
            sites.append((m.start(), m.end() - 1, m.group(1), args[-2], args[-1]))
    sites.extend(_wrapper_sites(code, model))
    for at, _open, name, value, src in sorted(sites):
        s = model.at(at)
        if s.tile32 or model.matrix(s):
            continue  # a tile's own lanes; or mma fragment exchanges (a library port, not lane math)
        bounded: bool | None = None  # is the source lane computed below 32 (asked only when it decides)
        if not (model.logical(s) or model.called_from_logical(s) or _callers_pass_lane32(model, s, src)):
            bounded = _lane_below_32(model, s, src, at)
            if not bounded:
                continue
        if re.fullmatch(r"[-+]?[\d.]+[fFuUlL]*", value):
            continue  # a literal broadcast: the same value in both halves
        if _one_warp_blocks(model, s):
            continue  # every launch found runs one 32-thread warp per block: lanes 32-63 do not exist
        if _forwarded_to_calls(model, s, src):
            continue  # a forwarding wrapper's lane parameter: named at the calls that pass the lane
        lane32 = model.lane_memo.get(id(s))
        if lane32 is None:  # the function's logical-lane variables, found once per function
            lane32 = _lane32_vars(code, s.lo, s.hi) | _lane_vars(model, s)
            model.lane_memo[id(s)] = lane32
        if _same_in_both_halves(code, s, value.strip(), at, lane32, model.xor_wrappers):
            continue  # read at the logical lane from data every warp shares: both halves hold it
        if model.derived.at(src, at) and not lane32.intersection(warp._WORDS.findall(src)) and not (
                bounded if bounded is not None else _lane_below_32(model, s, src, at)) and \
                _thread_valued(model.code, s, src, at):
            continue  # an absolute lane (threadIdx.x ^ 1): the same lane at 64
        what = name if name in ("__shfl_sync", "__shfl", "WARP_SHFL") else f"{name} (a shuffle with no width)"
        yield (at, "shfl-fixed-lane", f"{what} from source lane {src} with no width inside 32-lane "
               "logical warps: on a 64-lane wavefront lanes 32-63 read the lower half's lane, not their own "
               "half's", f"pass the logical width ({name}(..., {src}, 32)) or compute the source lane "
               f"from warpSize; {warp.EMULATE}", name)


def _forwarded_to_calls(model: WarpModel, s: Scope, src: str) -> bool:
    """Is ``src`` a parameter of ``s``, a forwarding wrapper (its body one ``return`` of the
    shuffle, ``shfl4(bx, lane)``) that this file calls? The hazard is the lane a caller passes,
    and each call is judged as a shuffle of its own (shuffle_wrappers): the wrapper's body is not
    itself wrong (a caller passing its own half's lane is right at 64)."""
    code = model.code
    if not s.name or s.src or s.body < 0 or src.strip() not in _param_names(code, s):
        return False
    body = code[s.body + 1:brace_end(code, s.body, s.hi)].strip()
    if not body.startswith("return") or body.count(";") != 1 or s.name not in shuffle_wrappers(model):
        return False
    return any(c is not s and c.name and s.name in model.calls_of(c) for c in model.scopes)


def _thread_valued(code: str, s: Scope, src: str, at: int, depth: int = 0) -> bool:
    """Does the source lane ``src`` take its value from a thread index (``threadIdx.x ^ 1``), followed
    through the function's assignments of the names in it? Stricter than the Derivation, which also
    follows a ternary's condition: ``bucket = (tid < n) ? f(key) : LAST`` holds a bucket id, data
    chosen by a test on the thread (GpuMultisplit's ``myBucket_list & 0xFF``: a bucket packed one per
    byte), so a width-less shuffle from it reads another lane's bucket, which wraps at 64, not 32."""
    if depth > 3:
        return False
    expr = warp._unindexed(_ternary_values(src))
    if warp._ROOTS.search(expr):
        return True
    for name in dict.fromkeys(warp._WORDS.findall(expr)):
        if name in warp._KEYWORDS:
            continue
        for a in re.finditer(warp.word(name) + r"\s*[-+*/%&|^]?=(?!=)\s*([^;{}]*)",
                             code[s.lo:s.hi]):
            if s.lo + a.start() != at and not warp._SCALED.search(a.group(1)) and \
                    _thread_valued(code, s, a.group(1), at, depth + 1):
                return True
    return False


def _ternary_values(expr: str) -> str:
    """``c ? a : b`` -> ``a : b`` (the condition chooses, it is not the value); other text as is."""
    q = expr.find("?")
    return expr[q + 1:] if q >= 0 else expr


# a shuffle wrapper: (number of parameters, index of the value parameter or -1, index of the source lane)
Wrapper = tuple[int, int, int]
_MACRO_FN = re.compile(r"#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^()\n]*)\)((?:[^\n]*\\\n)*[^\n]*)")


def _widthless(args: list[str], name: str) -> bool:
    return len(args) == (3 if name == "__shfl_sync" else 2)


def _bare(arg: str) -> str:
    """``(x)`` -> ``x``: a macro body's parenthesised parameter."""
    arg = arg.strip()
    while arg.startswith("(") and arg.endswith(")") and warp._IDENT.fullmatch(arg[1:-1].strip() or "-"):
        arg = arg[1:-1].strip()
    return arg


def _wrapper_of(body: str, params: list[str]) -> Wrapper | None:
    """How ``body`` (a function's or a macro's) forwards its ``params`` to a shuffle with no width
    whose source lane is one of them (``return __shfl_sync(mask, v, lane);``), else None."""
    for m in _SHFL_FIXED.finditer(body) if "__shfl" in body or "WARP_SHFL" in body else ():
        args = warp.split_args(warp._call_args(body, m.end() - 1))
        if not _widthless(args, m.group(1)):
            continue
        src, value = _bare(args[-1]), _bare(args[-2])
        if src in params:
            return len(params), params.index(value) if value in params else -1, params.index(src)
    return None


def shuffle_wrappers(model: WarpModel) -> dict[str, Wrapper]:
    """The unit's functions and function-like macros that forward to a shuffle with no width, its
    source lane one of their parameters (``xlib::shfl(mask, v, lane)``, ``#define SHFL(x, l)
    __shfl(x, l)``): calls to them are judged like the intrinsic. The file's own and its quoted
    headers' (the scopes' texts); the intrinsics' own names are not wrappers."""
    if model.wrappers is not None:
        return model.wrappers
    out: dict[str, Wrapper] = {}
    xors: set[str] = set()
    texts = {id(model.code): model.code}
    aliased: dict[int, bool] = {}  # per text: has it macro wrappers or aliases (asked once, not per scope)
    for s in model.by_name.values():
        code = s.src or model.code
        texts.setdefault(id(code), code)
        if id(code) not in aliased:
            aliased[id(code)] = "define" in code and "shfl" in code and bool(_macro_wrappers(code)[0])
        if s.name and s.body >= 0 and s.name not in _SHUFFLE_NAMES and (s.warp_op or s.wrapper is not None or (
                aliased[id(code)] and "shfl" in code[s.body:s.hi])):
            # (a function calling only an alias or a macro wrapper, ``__shfl2``, has no warp_op of its own)
            if s.wrapper is None:  # a header's scope keeps its answer for every file including it
                body = code[s.body:s.hi]
                params = _param_names(code, s)
                s.wrapper = (_wrapper_of(body, params) or aliased[id(code)] and _wrapper_via(body, params, code)
                             if "shfl" in body else None) or (), "__shfl_xor" in body
            if s.wrapper[0]:
                out.setdefault(s.name, s.wrapper[0])
            if s.wrapper[1]:
                xors.add(s.name)
    for code in texts.values():
        macros, macro_xors = _macro_wrappers(code) if "define" in code and "shfl" in code else ((), ())
        for name, found in macros:
            out.setdefault(name, found)
        xors.update(macro_xors)
    model.wrappers = out
    model.xor_wrappers = frozenset(xors)
    return out


def _wrapper_via(body: str, params: list[str], code: str) -> Wrapper | None:
    """How ``body`` forwards its ``params`` to a macro wrapper or an alias of ``code``
    (ccminer's ``shfl4(bx, lane)`` calling ``__shfl2(bx.x, lane)``, ``#define __shfl2 __shfl``)."""
    for name, (count, _value_at, src_at) in _macro_wrappers(code)[0]:
        for at in _word_sites(body, name):
            m = _CALL_AFTER.match(body, at + len(name))
            if m is None:
                continue
            args = warp.split_args(warp._call_args(body, m.end() - 1))
            src = _bare(args[src_at]) if src_at < len(args) == count else ""
            if src in params:
                return len(params), -1, params.index(src)
    return None


@lru_cache(maxsize=1024)
def _macro_wrappers(code: str) -> tuple[tuple[tuple[str, Wrapper], ...], tuple[str, ...]]:
    """The function-like macros of ``code`` that wrap a width-less shuffle, and those around
    ``__shfl_xor`` (cached: a header's text is asked once per including file)."""
    out: list[tuple[str, Wrapper]] = []
    xors: list[str] = []
    for m in _SHFL_ALIAS.finditer(code):
        # ``#define __shfl2 __shfl``: an object-like alias is the intrinsic under another name
        out.append((m.group(1), (3, 1, 2) if m.group(2) == "__shfl_sync" else (2, 0, 1)))
    for m in _MACRO_FN.finditer(code):
        params = [p.strip() for p in m.group(2).split(",")]
        found = _wrapper_of(m.group(3), params) if m.group(1) not in _SHUFFLE_NAMES else None
        if found is not None:
            out.append((m.group(1), found))
        if "__shfl_xor" in m.group(3):
            xors.append(m.group(1))
    return tuple(out), tuple(xors)


_SHFL_ALIAS = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+(__shfl_sync|__shfl)[ \t]*$", re.M)
_SHUFFLE_NAMES = frozenset({"__shfl", "__shfl_sync", "__shfl_up", "__shfl_down", "__shfl_xor", "__shfl_up_sync",
                            "__shfl_down_sync", "__shfl_xor_sync", "WARP_SHFL"})


def _wrapper_sites(code: str, model: WarpModel) -> Iterator[tuple[int, int, str, str, str]]:
    """(at, open paren, name, value, source lane) of the calls to the unit's shuffle wrappers."""
    wrappers = shuffle_wrappers(model) if "shfl" in code or model.by_name else {}
    for name, (count, value_at, src_at) in wrappers.items():
        for at in _word_sites(code, name):
            m = _CALL_AFTER.match(code, at + len(name))
            if m is None:
                continue
            s = model.at(at)
            if s.name == name and at < s.body or code[max(0, at - 20):at].rstrip().endswith("define"):
                continue  # the wrapper's own definition (a function's or a macro's)
            args = warp.split_args(warp._call_args(code, m.end() - 1))
            if src_at < len(args) <= count:
                yield at, m.end() - 1, name, args[value_at] if 0 <= value_at < len(args) else "", args[src_at]


_CALL_AFTER = re.compile(r"\s*(?:<[^;{}()]*>)?\s*\(")


def _lane_below_32(model: WarpModel, s: Scope, src: str, at: int, depth: int = 0) -> bool:
    """Is the source lane ``src`` (at ``at``) confined to lanes 0-31 by the way it is computed, there
    or in the function's assignments of the names in it: ``WARP_SIZE - 1``, ``lane % 32``, ``x &
    (W - 1)``, ``low + (W >> i)`` with W a constant equal to 32? Without a width such a shuffle makes
    lanes 32-63 read the lower half. A warp base (``tid / 32 * 32 + k``, ``lane & ~31``) is not."""
    if depth > 3 or not src.strip():
        return False
    if _BELOW_32.search(src) or model.const32 and _below_named(model.const32).search(src):
        return not _WARP_BASE.search(src) and not (model.const32 and _base_named(model.const32).search(src))
    if _folded_below_32(src):
        return True
    code = model.code
    for name in dict.fromkeys(warp._WORDS.findall(src)):
        if name in warp._KEYWORDS or name in model.const32:
            continue
        for a in re.finditer(warp.word(name) + r"\s*(?:=(?!=)|\{)\s*([^;{}]*)", code[s.lo:s.hi]):
            if s.lo + a.start() != at and _lane_below_32(model, s, a.group(1), at, depth + 1):
                return True
    return False


def _folded_below_32(expr: str, depth: int = 0) -> bool:
    """Is ``expr`` a lane that a mask below 32 folds into 0-31, each of its terms either such a mask
    or a small literal: ``(threadIdx.x & 0x1c) + (((threadIdx.x & 3) + 1) & 3)``, ``tid & 7``,
    ``(t + 1) % 16``? Lanes 32-63 then compute the same source lanes as lanes 0-31 (the thread
    index's bit 5 is dropped), so a shuffle with no width makes them read the lower half: the value is
    a 32-lane logical lane, not the hardware lane. ``threadIdx.x & 0xfc`` keeps bit 5 (the same
    lane at 64); names are followed by the caller (``_lane_below_32``)."""
    expr = _strip_parens(expr)
    if depth > 6 or not expr:
        return False
    terms = _top_split(expr, "+-|^")
    if len(terms) > 1:
        folded = [_folded_below_32(x, depth + 1) for x in terms]
        return any(folded) and all(f or _small_literal(x, 32) for f, x in zip(folded, terms))
    parts = _top_split(expr, "&")
    if len(parts) > 1:
        return any(_small_literal(x, 32) or _folded_below_32(x, depth + 1) for x in parts)
    parts = _top_split(expr, "%")
    return len(parts) == 2 and _small_literal(parts[1], 33)


def _strip_parens(expr: str) -> str:
    expr = re.sub(r"^\s*\((?:unsigned\s+)?(?:int|uint32_t|unsigned|int32_t)\)\s*", "", expr.strip()).strip()
    while expr.startswith("(") and expr.endswith(")") and _closing(expr) == len(expr) - 1:
        expr = expr[1:-1].strip()
    return expr


def _closing(expr: str) -> int:
    depth = 0
    for i, c in enumerate(expr):
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return i
    return -1


def _top_split(expr: str, ops: str) -> list[str]:
    """``expr`` split at the binary operators ``ops`` outside parentheses (``&&``, ``||``, ``->``
    and a leading sign are not split)."""
    out, depth, last = [], 0, 0
    for i, c in enumerate(expr):
        depth += (c == "(") - (c == ")")
        if depth or c not in ops or i == 0:
            continue
        if expr[i - 1] == c or (i + 1 < len(expr) and expr[i + 1] in c + ">="):
            continue
        if expr[i - 1] in "+-*/%&|^<>=!(" and c in "+-":
            continue  # a sign, not a binary operator
        out.append(expr[last:i])
        last = i + 1
    out.append(expr[last:])
    return [x.strip() for x in out]


def _small_literal(expr: str, limit: int) -> bool:
    m = re.fullmatch(r"\(?\s*(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\)?", expr.strip())
    return m is not None and int(m.group(1), 0) < limit


_BELOW_32 = re.compile(r"%\s*\(?\s*32\b|&\s*\(?\s*(?:31|0[xX]1[fF])\b|^\s*31[uU]?\s*$")
_WARP_BASE = re.compile(r"[/*]\s*\(?\s*32\b|\b32\s*\*|~")


@lru_cache(maxsize=256)
def _below_named(names: frozenset[str]) -> re.Pattern[str]:
    """``% W``, ``& (W - 1)``, ``W - 1``, ``W >> i`` for the constants W equal to 32."""
    w = "(?:" + "|".join(sorted(re.escape(n) for n in names)) + ")"
    return re.compile(r"%\s*\(?\s*(?:\w+::)?" + w + r"\b|(?<![\w.])" + w + r"\s*\)?\s*(?:-\s*\d|>>)")


@lru_cache(maxsize=256)
def _base_named(names: frozenset[str]) -> re.Pattern[str]:
    """``/ W``, ``* W``, ``W *``: a warp's base lane or index, not a lane within it."""
    w = "(?:" + "|".join(sorted(re.escape(n) for n in names)) + ")"
    return re.compile(r"[/*]\s*\(?\s*(?:\w+::)?" + w + r"\b|(?<![\w.])" + w + r"\s*\*")


def _callers_pass_lane32(model: WarpModel, s: Scope, src: str, depth: int = 0) -> bool:
    """Is the source lane ``src`` a parameter of ``s`` that a call in this file passes as a lane
    modulo 32 (``(my_id + i) % THREADS_PER_WARP``, ``(lane + 1) & 31``)? The helper then reads a
    logical lane of a 32-lane warp with a shuffle that has no width: on a 64-lane wavefront lanes
    32-63 read the lower half. A source lane taken modulo ``warpSize`` or another name is not judged."""
    src = src.strip()
    if not s.name or s.src or not warp._IDENT.fullmatch(src):
        return False
    params = _param_names(model.code, s)
    if src not in params:
        return False
    k = params.index(src)
    names = "|".join([re.escape(n) for n in sorted(model.const32)] + ["32"])
    mod32 = re.compile(r"%\s*\(?\s*(?:" + names + r")(?![\w.])|&\s*(?:31|0[xX]1[fF])(?![\w.])")
    for m in re.finditer(warp.word(s.name) + r"\s*(?:<[^;{}()]*>)?\s*\(", model.code):
        if s.lo <= m.start() < s.body:
            continue  # the definition itself
        args = warp.split_args(warp._call_args(model.code, m.end() - 1))
        if k >= len(args):
            continue
        if mod32.search(args[k]):
            return True
        # ``salsa_xor_core(b, bx, x1, x2, x3)`` in a helper whose x1 its kernels compute as
        # ``(threadIdx.x & 0x1c) + ...``: the lane below 32 is followed through the callers' names
        caller = model.at(m.start())
        arg = args[k].strip()
        if depth < 3 and caller.name and warp._IDENT.fullmatch(arg) and arg in _param_names(model.code, caller):
            if _callers_pass_lane32(model, caller, arg, depth + 1):
                return True
        elif caller.name and _lane_below_32(model, caller, arg, m.start()):
            return True
    return False


def _ptx_matrix_sites(code: str, seeds: tuple[int, ...]) -> Iterator[int]:
    """``seeds`` (where string literals holding a PTX warp matrix instruction sit: the caller has the
    strings, ``code`` has them blanked) and every use of a macro whose body holds one (transitively:
    a macro built from such a macro), so the functions using them count as mma code."""
    names: set[str] = set()
    todo = list(seeds)
    while todo:
        at = todo.pop()
        yield at
        name = _macro_around(code, at)
        if name and name not in names:
            names.add(name)
            todo.extend(_word_sites(code, name))


def ptx_matrix_literals(strings: Iterable[tuple[int, str]]) -> tuple[int, ...]:
    """Offsets of the (start, text) string literals that hold a PTX warp matrix instruction."""
    return tuple(start for start, text in strings if any(w in text for w in _PTX_MATRIX))


def ptx_laneid_literals(strings: Iterable[tuple[int, str]]) -> tuple[int, ...]:
    """Offsets of the (start, text) string literals that read PTX's %laneid register."""
    return tuple(start for start, text in strings if "%laneid" in text)


def _macro_around(code: str, at: int) -> str:
    """The name of the `#define` whose (backslash-continued) body holds offset ``at``, or ""."""
    start = code.rfind("\n", 0, at) + 1
    while True:
        m = _MACRO_HEAD.match(code, start)
        if m is not None:
            return m.group(1) if m.end() <= at else ""
        if start < 2 or code[start - 2] != "\\":  # the line above does not continue into this one
            return ""
        start = code.rfind("\n", 0, start - 1) + 1


_LANE32_OP = re.compile(r"%\s*32|&\s*(?:31|0[xX]1[fF])")


def _lane32_vars(code: str, lo: int, hi: int, op_re: re.Pattern[str] = _LANE32_OP,
                 var_re: re.Pattern[str] = _LANE32_VAR) -> set[str]:
    """The names ``var_re`` finds in code[lo:hi], searched only in the `;`-separated statements
    that hold an ``op_re`` (`% 32` / `& 31`; ``var_re`` cannot cross a `;`): the same names,
    without trying its lazy scan at every identifier of a long function."""
    out: set[str] = set()
    done = -1
    for op in op_re.finditer(code, lo, hi):
        if op.start() < done:
            continue
        start = max(lo, code.rfind(";", lo, op.start()) + 1)
        end = code.find(";", op.end(), hi)
        done = hi if end < 0 else end
        out.update(v.group(1) for v in var_re.finditer(code, start, done))
    return out


def _lane_vars(model: WarpModel, s: Scope) -> set[str]:
    """Variables of ``s`` set to a thread index modulo a constant equal to 32 (``tid % WARP_SIZE``)."""
    if not model.const32 or "%" not in model.code[s.lo:s.hi]:
        return set()
    op_re, var_re = _mod_names(model.const32)
    return _lane32_vars(model.code, s.lo, s.hi, op_re, var_re)


@lru_cache(maxsize=256)
def _mod_names(names: frozenset[str]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(`% NAME`, `var = ... % NAME`) for the constants equal to 32."""
    alternatives = "|".join(sorted(re.escape(n) for n in names))
    return (re.compile(r"%\s*(?:" + alternatives + r")\b"),
            re.compile(r"([A-Za-z_]\w*)\s*=\s*[^;=]*?%\s*(?:" + alternatives + r")\b"))


_ASSIGN = r"%s\s*(=|\+=|-=|\*=)(?!=)([^;]*);"  # with warp.word(name)
_AT_LANE = r"(?<![\w.])[A-Za-z_]\w*\s*\[\s*(?:%s)\s*\]"


def _same_in_both_halves(code: str, s: Scope, value: str, at: int, lanes: set[str],
                         xors: frozenset[str] = frozenset()) -> bool:
    """Does ``value`` hold, where it is shuffled at ``at``, what it was last set to from an array
    read at a logical lane (``v = red_smem[lane]`` or ``lane < N ? a[lane] : c``, lane = tid % 32),
    changed since only by xor shuffles of itself (a reduction)? Every 32-lane half reads the same
    entries, so lane 0 and lane 32 hold the same value (FasterTransformer's block_sum)."""
    if not lanes or not re.fullmatch(r"[A-Za-z_]\w*", value):
        return False
    at_lane = re.compile(_AT_LANE % "|".join(sorted(re.escape(n) for n in lanes)))
    for m in reversed(list(re.finditer(_ASSIGN % warp.word(value), code[s.lo:at]))):
        op, rhs = m.group(1), m.group(2)
        if op == "=" and at_lane.search(rhs) and "__shfl" not in rhs:
            rest = at_lane.sub("", rhs)
            return not re.search(r"threadIdx|\bwarp|\bwid\b", rest)
        if op == "=" and _LITERAL.fullmatch(rhs.strip()):
            continue  # `else v = -1e30f;` beside `if (lane < N) v = smem[lane];`: a constant is alike in both halves
        if op == "=" and re.fullmatch(r"\s*[A-Za-z_]\w*\s*", rhs) and re.search(
                warp.word(rhs.strip()) + r"\s*=\s*__shfl_xor\w*\s*\([^;]*\b" + re.escape(value) + r"\b",
                code[s.lo:at]):
            continue  # `v = other` where other = __shfl_xor_sync(m, v, k): a step of the same xor reduction
        if "__shfl_xor" not in rhs and not (xors and xors.intersection(warp._WORDS.findall(rhs))):
            return False  # (a macro or function around __shfl_xor reduces the same way)
    return False


# a constant: a number, an upper-case macro (-FLT_MAX, INFINITY) or numeric_limits<T>::max() and kin
_LITERAL = re.compile(r"\(?\s*[-+]?(?:\d[\d.]*(?:[eE][-+]?\d+)?[fFuUlL]*|[A-Z][A-Z0-9_]*|[\w:<>]+::(?:max|min|lowest|"
                      r"infinity)\(\))\s*\)?")




def _function_name(code: str, lo: int, hi: int) -> tuple[str, int]:
    """The name of the function a scope defines: at the first ``{`` that follows a parameter list
    with a name before it (``name(...) {``, ``name<T>(...) const {``; a one-line ``struct {...};``,
    a macro's ``switch (x) {`` are skipped), or ""."""
    brace = code.find("{", lo, hi)
    for _ in range(16):
        if brace < 0:
            return "", -1
        name = _name_before_params(code, lo, brace)
        if name and not _in_directive(code, brace):
            return name, brace
        brace = code.find("{", brace + 1, hi)
    return "", -1


def _in_directive(code: str, at: int) -> bool:
    """Is ``at`` on a preprocessor line (or its continuation)? ``#define XOR_ROTATE_ADD(d, a, b, n)
    { ... }`` before a function in the same top-level scope is a macro, not the function (ccminer's
    salsa_xor_core was taken for XOR_ROTATE_ADD)."""
    start = code.rfind("\n", 0, at) + 1
    for _ in range(64):
        if code[start:at].lstrip().startswith("#"):
            return True
        if start < 2 or code[start - 2] != "\\":
            return False
        at = start - 1
        start = code.rfind("\n", 0, at) + 1
    return False


_ASCII_WORD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"


def _word_start(code: str, floor: int, end: int) -> int:
    """Where the run of word characters (isalnum or '_') ending at ``end`` starts, not before
    ``floor``: the ASCII part by one rstrip in C, then character by character only past a non-ASCII
    character (which may be alphanumeric too)."""
    j = floor + len(code[floor:end].rstrip(_ASCII_WORD))
    while j > floor and (code[j - 1].isalnum() or code[j - 1] == "_"):
        j -= 1
    return j


def _name_before_params(code: str, lo: int, brace: int) -> str:
    close = code.rfind(")", lo, brace)
    between = code[close + 1:brace].strip() if close >= 0 else "?"
    if close < 0 or not (between in ("", "const", "noexcept", "override") or between.startswith(("->", ":"))):
        return ""
    i = code.rfind("(", lo, close)
    if i < 0:
        return ""
    if code.find(")", i, close) >= 0:  # parentheses inside the parameter list: match them one by one
        depth, i = 0, close
        while i >= lo:
            depth += (code[i] == ")") - (code[i] == "(")
            if depth == 0:
                break
            i -= 1
    j = i - 1
    while j >= lo and code[j] in " \t\n":
        j -= 1
    if j >= lo and code[j] == ">":  # template arguments: name<T>(...)
        depth = 0
        while j >= lo:
            depth += (code[j] == ">") - (code[j] == "<")
            if depth == 0:
                break
            j -= 1
        j -= 1
    end = j + 1
    # the word ending at `end` (at most 200 characters back), read backwards: a `\w+\Z` search
    # tried each of the 200 offsets before it
    floor = max(lo, end - 200)
    j = _word_start(code, floor, end)
    name = code[j:end]
    return name if name and not name[0].isdigit() and name not in _NOT_FUNCTIONS else ""


_NOT_FUNCTIONS = frozenset({"if", "for", "while", "switch", "return", "sizeof", "catch", "defined"})


def _cut(code: str) -> list[tuple[int, int]]:
    """Top-level scopes, as warp.Derivation.scope cuts them."""
    out, lo = [], 0
    while True:
        hi = code.find("\n}", lo)
        if hi < 0:
            out.append((lo, len(code)))
            return out
        out.append((lo, hi))
        lo = hi + 1


def external_constants(headers: tuple[str, ...]) -> frozenset[str]:
    """Names the included headers define as 32 (or 5)."""
    return frozenset(name for h in headers for name in _header_constants(h))


@lru_cache(maxsize=1024)
def _header_constants(path: str) -> frozenset[str]:
    from .includes import read

    return frozenset(warp.constant_names(read(path)))


def clear_caches() -> None:
    """Forget the headers' functions and constants (a new run reads them as they are now)."""
    header_functions.cache_clear()
    _header_constants.cache_clear()
    _text_values.cache_clear()
    _FILE_WORK.clear()
    _macro_wrappers.cache_clear()
