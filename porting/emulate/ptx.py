"""Inline PTX for `port emulate`: a documented subset translated to C++, the rest refused by name.

A GCC extended ``asm`` statement in CUDA code is parsed (the template's string literals joined,
then the output, input and clobber lists); the template is split into PTX instructions and each
recognised one becomes a C++ statement on the operands, calling the helpers of
runtime/emu_ptx.h (which route warp instructions to the emulator's own collectives). The
statement is replaced by a ``do { ... } while (0)`` block with the same line count. An
instruction outside the subset raises Unsupported naming it; refuse.py turns that into a
refusal before compiling. The subset and its deliberate choices are in docs/emulate.md.
"""

from __future__ import annotations

import platform
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..audit.mask import mask


class Unsupported(Exception):
    """An asm statement or PTX instruction this module does not translate (the text names it)."""


_ASM = re.compile(r"\b(?:asm|__asm__|__asm)\s*(?:(?:volatile|__volatile__)\s*)?\(")
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
CTYPE = {"u8": "uint8_t", "s8": "int8_t", "b8": "uint8_t", "u16": "uint16_t", "s16": "int16_t",
         "b16": "uint16_t", "u32": "uint32_t", "s32": "int32_t", "b32": "uint32_t", "u64": "uint64_t",
         "s64": "int64_t", "b64": "uint64_t", "f32": "float", "f64": "double", "pred": "bool"}
SPECIAL = {"%laneid": "::emu::ptx::laneid()", "%warpid": "::emu::ptx::warpid()",
           "%nwarpid": "::emu::ptx::nwarpid()", "%lanemask_eq": "::emu::ptx::lanemask(0)",
           "%lanemask_lt": "::emu::ptx::lanemask(1)", "%lanemask_le": "::emu::ptx::lanemask(2)",
           "%lanemask_gt": "::emu::ptx::lanemask(3)", "%lanemask_ge": "::emu::ptx::lanemask(4)",
           "%clock": "(uint32_t)clock64()", "%clock64": "(uint64_t)clock64()",
           "%globaltimer": "__globaltimer()", "%globaltimer_lo": "(uint32_t)__globaltimer()",
           "%globaltimer_hi": "(uint32_t)(__globaltimer() >> 32)", "%smid": "0u", "%nsmid": "1u",
           "WARP_SZ": "(uint32_t)warpSize"}
for _axis in "xyz":
    SPECIAL.update({f"%tid.{_axis}": f"threadIdx.{_axis}", f"%ntid.{_axis}": f"blockDim.{_axis}",
                    f"%ctaid.{_axis}": f"blockIdx.{_axis}", f"%nctaid.{_axis}": f"gridDim.{_axis}"})


@dataclass(frozen=True)
class AsmStatement:
    start: int          # offset of `asm` in the source
    end: int            # offset just past the closing ')'
    template: str
    outputs: list[tuple[str, str]]   # (constraint, C++ lvalue)
    inputs: list[tuple[str, str]]
    # a template with #if/#else lines among its literals: (directive, template) per branch, the
    # last directive #endif with no template; the compiler's preprocessor picks the branch
    branches: list[tuple[str, str]] | None = None


def find(text: str) -> Iterator[AsmStatement]:
    """Every asm statement in ``text`` (found on the masked copy, so not in comments or strings)."""
    code = mask(text).code
    for m in _ASM.finditer(code):
        close = _matching_paren(code, m.end() - 1)
        if close < 0:
            raise Unsupported("an asm statement whose parentheses are not closed")
        yield _parse(text, m.start(), m.end(), close)


def _matching_paren(code: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(code)):
        if code[i] == "(":
            depth += 1
        elif code[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _split_top(s: str, sep: str) -> list[str]:
    """Split on ``sep`` outside parentheses, brackets, braces and string literals."""
    parts, depth, cur, quoted, i = [], 0, [], False, 0
    while i < len(s):
        c = s[i]
        if quoted:
            cur.append(c)
            if c == "\\":
                cur.append(s[i + 1])
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
            cur.append(c)
        elif c in "([{":
            depth += 1
            cur.append(c)
        elif c in ")]}":
            depth -= 1
            cur.append(c)
        elif c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return parts


def _parse(text: str, start: int, body: int, close: int) -> AsmStatement:
    sections = _split_top(text[body:close], ":")
    template_src = sections[0]
    branches = _branches(template_src) if re.search(r"^\s*#", template_src, re.M) else None
    template = branches[0][1] if branches else _literals(template_src)
    outputs = _operands(sections[1]) if len(sections) > 1 else []
    inputs = _operands(sections[2]) if len(sections) > 2 else []
    if len(sections) > 4:
        raise Unsupported("asm goto")
    return AsmStatement(start, close + 1, template, outputs, inputs, branches)


def _literals(src: str) -> str:
    if re.sub(_STRING, "", src).strip():
        raise Unsupported("an asm template that is not a string literal")
    return "".join(bytes(s, "utf-8").decode("unicode_escape") for s in _STRING.findall(src))


_DIRECTIVE = re.compile(r"#\s*(if|ifdef|ifndef|elif|else|endif)\b")


def _branches(src: str) -> list[tuple[str, str]]:
    """A template whose literals are chosen by one #if/#elif/#else/#endif group (cuda-samples
    style: an instruction for newer toolkits, another for older ones): each branch's full
    template (the literals before the group, the branch's, the ones after) with its directive.
    Nested or repeated groups are refused."""
    lines = re.sub(r"\\\n", " ", src).split("\n")
    before: list[str] = []
    after: list[str] = []
    arms: list[tuple[str, list[str]]] = []
    state = "before"
    for line in lines:
        m = _DIRECTIVE.match(line.strip())
        if line.strip().startswith("#") and not m:
            raise Unsupported(f"a preprocessor line '{line.strip()}' inside an asm template")
        if m:
            kind = m.group(1)
            if (kind.startswith("if") and state != "before") or (not kind.startswith("if") and state != "in"):
                raise Unsupported("nested or repeated #if groups inside an asm template")
            if kind == "endif":
                state = "after"
            else:
                state = "in"
                arms.append((line.strip(), []))
        elif state == "in":
            arms[-1][1].append(line)
        else:
            (before if state == "before" else after).append(line)
    if state != "after":
        raise Unsupported("an #if group inside an asm template that is not closed")
    if not arms[-1][0].startswith("#else") and not re.match(r"#\s*else", arms[-1][0]):
        arms.append(("#else", []))     # no #else: the group adds nothing there
    head, tail = "\n".join(before), "\n".join(after)
    return [(d, _literals("\n".join([head, *body, tail]))) for d, body in arms] + [("#endif", "")]


_OPERAND = re.compile(r'^\s*(?:\[\w+\]\s*)?"([^"]*)"\s*\((.*)\)\s*$', re.S)


def _operands(section: str) -> list[tuple[str, str]]:
    out = []
    for part in (p for piece in _split_top(section, ",") for p in _adjacent(piece)):
        if not part.strip():
            continue
        m = _OPERAND.match(part)
        if not m:
            raise Unsupported(f"an asm operand '{part.strip()}'")
        out.append((m.group(1), m.group(2).strip()))
    return out


def _adjacent(piece: str) -> list[str]:
    """Operands written one after another without a comma (`"r"(a) "l"(p)`, as in cuda-samples'
    conjugateGradientMultiDeviceCG: nvcc accepts it): split where a top-level ')' is followed by
    the next constraint string or [name]."""
    parts, depth, start, quoted = [], 0, 0, False
    for i, c in enumerate(piece):
        if quoted:
            quoted = c != '"' or piece[i - 1] == "\\"
        elif c == '"':
            quoted = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            rest = piece[i + 1:].lstrip()
            if depth == 0 and rest[:1] in ('"', "["):
                parts.append(piece[start:i + 1])
                start = i + 1
    parts.append(piece[start:])
    return parts


# ---- instructions -------------------------------------------------------------------------------

@dataclass
class Ins:
    opcode: str
    parts: list[str]          # opcode split on '.'
    args: list[str]           # operand texts
    env: dict[str, str]       # PTX register name -> C++ name

    @property
    def base(self) -> str:
        return self.parts[0]

    def types(self) -> list[str]:
        return [p for p in self.parts[1:] if p in CTYPE]

    def type(self, i: int = -1) -> str:
        ts = self.types()
        if not ts:
            raise Unsupported(f"PTX instruction '{self.opcode}' (no operand type)")
        return CTYPE[ts[i]]

    def val(self, i: int, ctype: str) -> str:
        return value(self.args[i], self.env, ctype, self.opcode)

    def dst(self, i: int) -> str:
        return dest(self.args[i], self.env, self.opcode)


def value(arg: str, env: dict[str, str], ctype: str, opcode: str) -> str:
    arg = arg.strip()
    if arg.startswith("!"):
        return f"(!{value(arg[1:], env, 'bool', opcode)})"
    if arg in SPECIAL:
        return f"::emu::ptx::rd<{ctype}>({SPECIAL[arg]})"
    if arg in env:
        return f"::emu::ptx::rd<{ctype}>({env[arg]})"
    if re.fullmatch(r"-?(?:0[xX][0-9a-fA-F]+|\d+)[Uu]?", arg):
        return f"(({ctype})({arg.rstrip('Uu')}ULL))" if not arg.startswith("-") else f"(({ctype})({arg}LL))"
    if re.fullmatch(r"0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}", arg):
        bits = "uint32_t" if arg[1] in "fF" else "uint64_t"
        return f"::emu::ptx::rd<{ctype}>(({bits})0x{arg[2:]}ULL)"
    if re.fullmatch(r"-?\d+\.\d*(?:[eE][-+]?\d+)?", arg):
        return f"(({ctype}){arg})"
    raise Unsupported(f"PTX operand '{arg}' in '{opcode}'")


def dest(arg: str, env: dict[str, str], opcode: str) -> str:
    arg = arg.strip()
    if arg in env:
        return env[arg]
    raise Unsupported(f"PTX destination '{arg}' in '{opcode}'")


def _wr(ins: Ins, i: int, expr: str) -> str:
    return f"::emu::ptx::wr({ins.dst(i)}, {expr});"


def _binary(op: str) -> Callable[[Ins], str]:
    def go(ins: Ins) -> str:
        t = ins.type()
        return _wr(ins, 0, f"({t})({ins.val(1, t)} {op} {ins.val(2, t)})")
    return go


def _call(fn: str, n: int, typed: bool = True) -> Callable[[Ins], str]:
    def go(ins: Ins) -> str:
        t = ins.type()
        args = ", ".join(ins.val(i, t) for i in range(1, n + 1))
        return _wr(ins, 0, f"::emu::ptx::{fn}{'<' + t + '>' if typed else ''}({args})")
    return go


def _bits_args(ins: Ins, n: int) -> str:
    t = ins.type()
    return ", ".join([ins.val(1, t)] + [ins.val(i, "uint32_t") for i in range(2, n + 1)])


def _mov(ins: Ins) -> str:
    t = ins.type()
    dst, src = ins.args[0].strip(), ins.args[1].strip()
    if dst.startswith("{") or src.startswith("{"):
        return _pack(ins, t, dst, src)
    return _wr(ins, 0, ins.val(1, t))


def _braced(s: str) -> list[str]:
    return [x.strip() for x in s.strip()[1:-1].split(",")]


def _pack(ins: Ins, t: str, dst: str, src: str) -> str:
    """``mov.b64 %0, {%1, %2}`` packs two halves (low first); ``mov.b64 {%0, %1}, %2`` unpacks."""
    half = {"uint64_t": "uint32_t", "uint32_t": "uint16_t"}.get(t)
    if half is None:
        raise Unsupported(f"PTX instruction '{ins.opcode}' with a vector operand")
    bits = 32 if t == "uint64_t" else 16
    if src.startswith("{"):
        lo, hi = (value(x, ins.env, half, ins.opcode) for x in _braced(src))
        return f"::emu::ptx::wr({dest(dst, ins.env, ins.opcode)}, ({t})(({t}){lo} | (({t}){hi} << {bits})));"
    lo, hi = (dest(x, ins.env, ins.opcode) for x in _braced(dst))
    v = value(src, ins.env, t, ins.opcode)
    return f"::emu::ptx::wr({lo}, ({half})({v})); ::emu::ptx::wr({hi}, ({half})({v} >> {bits}));"


def _mul(ins: Ins) -> str:
    t = ins.type()
    mode = next((p for p in ins.parts[1:] if p in ("lo", "hi", "wide")), "lo")
    if mode == "wide":
        wide = {"uint32_t": "uint64_t", "int32_t": "int64_t", "uint16_t": "uint32_t", "int16_t": "int32_t"}[t]
        return _wr(ins, 0, f"({wide})(({wide}){ins.val(1, t)} * ({wide}){ins.val(2, t)})")
    if t in ("float", "double"):
        return _wr(ins, 0, f"({t})({ins.val(1, t)} * {ins.val(2, t)})")
    return _wr(ins, 0, f"::emu::ptx::mul_{mode}<{t}>({ins.val(1, t)}, {ins.val(2, t)})")


def _mad(ins: Ins) -> str:
    t = ins.type()
    if "cc" in ins.parts or ins.base == "madc":
        raise Unsupported(f"PTX instruction '{ins.opcode}' (carry)")
    mode = next((p for p in ins.parts[1:] if p in ("lo", "hi", "wide")), "lo")
    if t in ("float", "double"):
        return _wr(ins, 0, f"std::fma({ins.val(1, t)}, {ins.val(2, t)}, {ins.val(3, t)})")
    if mode == "wide":
        wide = {"uint32_t": "uint64_t", "int32_t": "int64_t"}[t]
        return _wr(ins, 0, f"({wide})(({wide}){ins.val(1, t)} * ({wide}){ins.val(2, t)} + {ins.val(3, wide)})")
    return _wr(ins, 0, f"({t})(::emu::ptx::mul_{mode}<{t}>({ins.val(1, t)}, {ins.val(2, t)}) + {ins.val(3, t)})")


def _carry(ins: Ins) -> str:
    """add.cc/addc/sub.cc/subc: the carry (borrow for sub) flag is the block's ``emu_cc``."""
    t = ins.type()
    if "sat" in ins.parts or t in ("float", "double"):
        raise Unsupported(f"PTX instruction '{ins.opcode}'")
    if t not in ("uint32_t", "int32_t", "uint64_t", "int64_t"):
        raise Unsupported(f"PTX instruction '{ins.opcode}'")
    u = "uint64_t" if "64" in t else "uint32_t"
    cin = "emu_cc" if ins.base in ("addc", "subc") else "0u"
    sets = "true" if "cc" in ins.parts else "false"
    fn = "add_cc" if ins.base.startswith("add") else "sub_cc"
    return _wr(ins, 0, f"({t})::emu::ptx::{fn}<{u}>({ins.val(1, u)}, {ins.val(2, u)}, {cin}, emu_cc, {sets})")


def _add_sub(ins: Ins) -> str:
    if "cc" in ins.parts or ins.base in ("addc", "subc"):
        return _carry(ins)
    if "sat" in ins.parts:
        raise Unsupported(f"PTX instruction '{ins.opcode}' (saturation)")
    return _binary("+" if ins.base == "add" else "-")(ins)


def _shift(ins: Ins) -> str:
    t = ins.type()
    return _wr(ins, 0, f"::emu::ptx::{ins.base}<{t}>({ins.val(1, t)}, {ins.val(2, 'uint32_t')})")


def _shf(ins: Ins) -> str:
    left = "l" in ins.parts
    clamp = "clamp" in ins.parts
    a, b, c = ins.val(1, "uint32_t"), ins.val(2, "uint32_t"), ins.val(3, "uint32_t")
    return _wr(ins, 0, f"::emu::ptx::shf({a}, {b}, {c}, {str(left).lower()}, {str(clamp).lower()})")


def _bfe(ins: Ins) -> str:
    return _wr(ins, 0, f"::emu::ptx::bfe<{ins.type()}>({_bits_args(ins, 3)})")


def _bfi(ins: Ins) -> str:
    t = ins.type()
    return _wr(ins, 0, f"::emu::ptx::bfi<{t}>({ins.val(1, t)}, {ins.val(2, t)}, "
                       f"{ins.val(3, 'uint32_t')}, {ins.val(4, 'uint32_t')})")


def _prmt(ins: Ins) -> str:
    if len(ins.parts) > 2:
        raise Unsupported(f"PTX instruction '{ins.opcode}' (only prmt's default mode is emulated)")
    args = ", ".join(ins.val(i, "uint32_t") for i in (1, 2, 3))
    return _wr(ins, 0, f"::emu::ptx::prmt({args})")


def _unary_bits(ins: Ins) -> str:
    t = ins.type()
    return _wr(ins, 0, f"::emu::ptx::{ins.base}<{t}>({ins.val(1, t)})")


def _bfind(ins: Ins) -> str:
    t = ins.type()
    shiftamt = "true" if "shiftamt" in ins.parts else "false"
    return _wr(ins, 0, f"::emu::ptx::bfind<{t}>({ins.val(1, t)}, {shiftamt})")


def _lop3(ins: Ins) -> str:
    t = ins.type()
    args = ", ".join(ins.val(i, t) for i in range(1, 4))
    return _wr(ins, 0, f"::emu::ptx::lop3<{t}>({args}, {ins.val(4, 'uint32_t')})")


_FLOAT_ROUND = {"rni": "std::nearbyint", "rzi": "std::trunc", "rmi": "std::floor", "rpi": "std::ceil"}


def _cvt(ins: Ins) -> str:
    ts = ins.types()
    if len(ts) != 2:
        raise Unsupported(f"PTX instruction '{ins.opcode}'")
    d, a = CTYPE[ts[0]], CTYPE[ts[1]]
    mods = [p for p in ins.parts[1:] if p not in ts and p != "ftz"]
    sat = "sat" in mods
    rnd = [p for p in mods if p != "sat"]
    if len(rnd) > 1 or (rnd and rnd[0] not in ("rn", "rz", "rm", "rp", *_FLOAT_ROUND)):
        raise Unsupported(f"PTX instruction '{ins.opcode}'")
    mode = rnd[0] if rnd else ""
    src = ins.val(1, a)
    d_float, a_float = d in ("float", "double"), a in ("float", "double")
    if a_float and not d_float:       # float to integer: round as asked, then saturate (PTX does)
        fn = _FLOAT_ROUND.get(mode, "std::trunc" if not mode else None)
        if fn is None:
            raise Unsupported(f"PTX instruction '{ins.opcode}'")
        return _wr(ins, 0, f"::emu::ptx::f2i<{d}>({fn}({src}))")
    if d_float and a_float and mode in _FLOAT_ROUND:    # round to an integral value
        return _wr(ins, 0, f"({d}){_FLOAT_ROUND[mode]}({src})")
    if mode not in ("", "rn") or (sat and not (d_float and a_float)):
        # directed rounding of a narrowing conversion and integer saturation are not modelled
        raise Unsupported(f"PTX instruction '{ins.opcode}'")
    expr = f"({d})({src})"
    if sat:
        expr = f"::emu::ptx::sat01({expr})"
    return _wr(ins, 0, expr)


_SPACES = {"global", "shared", "local", "const", "generic", "param"}
_HINTS = {"nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "volatile", "relaxed", "weak", "cta", "gpu", "sys",
          "v2", "v4", "acquire", "release"}


def _address(arg: str, env: dict[str, str], opcode: str, shared: bool = False) -> str:
    """The generic address of ``[reg]``/``[reg+imm]``; in the .shared space ``reg`` may hold a
    shared-window address (runtime/emu_ptx.h, saddr)."""
    arg = arg.strip()
    if not (arg.startswith("[") and arg.endswith("]")):
        raise Unsupported(f"PTX address '{arg}' in '{opcode}'")
    inner = arg[1:-1].strip()
    m = re.fullmatch(r"(.+?)\s*([-+])\s*(\d+|0x[0-9a-fA-F]+)", inner)
    base, off = (m.group(1), f"{m.group(2)}{m.group(3)}") if m else (inner, "0")
    if base in env:
        fn = "saddr" if shared else "addr"
        return f"((char*)::emu::ptx::{fn}({env[base]}) + ({off}))"
    raise Unsupported(f"PTX address '{arg}' in '{opcode}'")


def _memory_mods(ins: Ins) -> None:
    for p in ins.parts[1:]:
        if p in CTYPE or p in _SPACES or p in _HINTS or p.startswith(("L1::", "L2::")):
            continue
        raise Unsupported(f"PTX instruction '{ins.opcode}'")


def _ld(ins: Ins) -> str:
    """Loads with any space or cache hint are plain loads: the emulator has one memory and no
    caches. ``.volatile``/``.relaxed``/``.acquire`` read through a volatile pointer."""
    _memory_mods(ins)
    t = ins.type()
    vol = "volatile " if {"volatile", "relaxed", "acquire"} & set(ins.parts) else ""
    addr = _address(ins.args[1], ins.env, ins.opcode, "shared" in ins.parts)
    dsts = _braced(ins.args[0]) if ins.args[0].strip().startswith("{") else [ins.args[0]]
    out = [f"::emu::ptx::wr({dest(d, ins.env, ins.opcode)}, *({vol}{t}*)({addr} + {i} * sizeof({t})));"
           for i, d in enumerate(dsts) if d != "_"]
    return " ".join(out)


def _st(ins: Ins) -> str:
    _memory_mods(ins)
    t = ins.type()
    vol = "volatile " if {"volatile", "relaxed", "release"} & set(ins.parts) else ""
    addr = _address(ins.args[0], ins.env, ins.opcode, "shared" in ins.parts)
    srcs = _braced(ins.args[1]) if ins.args[1].strip().startswith("{") else [ins.args[1]]
    return " ".join(f"*({vol}{t}*)({addr} + {i} * sizeof({t})) = {value(s, ins.env, t, ins.opcode)};"
                    for i, s in enumerate(srcs))


def _shfl(ins: Ins) -> str:
    """shfl[.sync].mode.b32 d, a, b, c[, membermask]: c packs the segment mask (bits 8-12) and
    the clamp; a segment of 32 lanes (the PTX full warp) is the emulated hardware's full warp,
    as the port of a full-warp shuffle would be."""
    if "|" in ins.args[0]:
        raise Unsupported(f"PTX instruction '{ins.opcode}' with a predicate output")
    mode = next((p for p in ins.parts if p in ("idx", "up", "down", "bfly")), None)
    if mode is None:
        raise Unsupported(f"PTX instruction '{ins.opcode}'")
    synced = "sync" in ins.parts
    mask = ins.val(4, "uint64_t") if synced else "0ull"
    return _wr(ins, 0, f"::emu::ptx::shfl({int(synced)}, ::emu::SHFL_{mode.upper().replace('BFLY', 'XOR')}, "
                       f"{mask}, {ins.val(1, 'uint32_t')}, {ins.val(2, 'uint32_t')}, {ins.val(3, 'uint32_t')})")


def _vote(ins: Ins) -> str:
    mode = next((p for p in ins.parts if p in ("any", "all", "uni", "ballot")), None)
    if mode is None:
        raise Unsupported(f"PTX instruction '{ins.opcode}'")
    synced = "sync" in ins.parts
    mask = ins.val(2, "uint64_t") if synced else "0ull"
    fn = {"any": "vote_any", "all": "vote_all", "uni": "vote_uni", "ballot": "ballot"}[mode]
    # ballot.b32 writes 32 bits: at 64 lanes the upper half is lost, as a 32-lane assumption would
    t = "uint32_t" if mode == "ballot" else "bool"
    return _wr(ins, 0, f"({t})::emu::ptx::{fn}({int(synced)}, {mask}, {ins.val(1, 'bool')})")


def _activemask(ins: Ins) -> str:
    return _wr(ins, 0, "(uint32_t)__activemask()")


def _bar(ins: Ins) -> str:
    """``bar.sync``/``barrier.sync`` 0 (the block's barrier: __syncthreads); with a barrier id
    other than a literal 0, or a thread count, a named barrier among that many threads
    (``bar.arrive``: arrive without waiting); ``bar.red.{popc,and,or}``: one that also reduces a
    predicate over the arrivals (runtime: emu::named_barrier, emu_scheduler.cpp)."""
    if ins.base == "bar" and "warp" in ins.parts:
        return f"__syncwarp({ins.val(0, 'uint64_t')});"
    mode = next((p for p in ins.parts[1:] if p in ("sync", "arrive", "red")), None)
    if mode is None or not set(ins.parts[1:]) <= {"cta", "sync", "arrive", "red", "aligned", "popc", "and", "or",
                                                 "u32", "pred"}:
        raise Unsupported(f"PTX instruction '{ins.opcode}'")
    if mode == "red":
        return _bar_red(ins)
    if len(ins.args) not in (1, 2):
        raise Unsupported(f"PTX instruction '{ins.opcode}' (operands)")
    if mode == "sync" and len(ins.args) == 1 and re.fullmatch(r"0|0x0", ins.args[0].strip()):
        return "__syncthreads();"
    count = ins.val(1, "uint32_t") if len(ins.args) == 2 else "0u"
    return f"::emu::named_barrier({ins.val(0, 'uint32_t')}, {count}, {int(mode == 'sync')}, 0, 0);"


def _bar_red(ins: Ins) -> str:
    op = next((p for p in ("popc", "and", "or") if p in ins.parts), None)
    if op is None or len(ins.args) not in (3, 4):
        raise Unsupported(f"PTX instruction '{ins.opcode}' (operands)")
    count = ins.val(2, "uint32_t") if len(ins.args) == 4 else "0u"
    kind = {"popc": 0, "and": 1, "or": 2}[op]
    pred = f"(int){ins.val(len(ins.args) - 1, 'bool')}"
    result = f"({ins.type()})::emu::named_barrier({ins.val(1, 'uint32_t')}, {count}, 1, {pred}, {kind})"
    return _wr(ins, 0, result)


def _setp(ins: Ins) -> str:
    cmp_ = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
            "lo": "<", "ls": "<=", "hi": ">", "hs": ">="}
    op = next((p for p in ins.parts if p in cmp_), None)
    if op is None or "|" in ins.args[0] or len(ins.args) != 3:
        raise Unsupported(f"PTX instruction '{ins.opcode}'")
    t = ins.type()
    return _wr(ins, 0, f"(bool)({ins.val(1, t)} {cmp_[op]} {ins.val(2, t)})")


def _selp(ins: Ins) -> str:
    t = ins.type()
    return _wr(ins, 0, f"({t})({ins.val(3, 'bool')} ? {ins.val(1, t)} : {ins.val(2, t)})")


def _math(fn: str) -> Callable[[Ins], str]:
    def go(ins: Ins) -> str:
        half = next((p for p in ins.parts if p in ("f16", "f16x2")), None)
        if half is not None:     # half bits in a .b16 / .b32 register, computed in float
            reg = "uint16_t" if half == "f16" else "uint32_t"
            return _wr(ins, 0, f"::emu::ptx::{half}({ins.val(1, reg)}, [](float x) {{ return {fn}(x); }})")
        t = ins.type()
        if t not in ("float", "double"):
            raise Unsupported(f"PTX instruction '{ins.opcode}'")
        return _wr(ins, 0, f"({t}){fn}({ins.val(1, t)})")
    return go


def _fma(ins: Ins) -> str:
    t = ins.type()
    if t not in ("float", "double"):
        raise Unsupported(f"PTX instruction '{ins.opcode}'")
    return _wr(ins, 0, f"std::fma({ins.val(1, t)}, {ins.val(2, t)}, {ins.val(3, t)})")


def _minmax(ins: Ins) -> str:
    t = ins.type()
    fn = f"std::f{ins.base}" if t in ("float", "double") else f"std::{ins.base}<{t}>"
    return _wr(ins, 0, f"{fn}({ins.val(1, t)}, {ins.val(2, t)})")


def _unary(op: str) -> Callable[[Ins], str]:
    def go(ins: Ins) -> str:
        t = ins.type()
        return _wr(ins, 0, f"({t})({op}{ins.val(1, t)})")
    return go


def _abs(ins: Ins) -> str:
    t = ins.type()
    fn = "std::fabs" if t in ("float", "double") else "::emu::ptx::iabs"
    return _wr(ins, 0, f"({t}){fn}({ins.val(1, t)})")


def _cvta(ins: Ins) -> str:
    """cvta.to.global is the identity (one memory); cvta.to.shared / cvta.shared convert to and
    from the shared window (runtime/emu_ptx.h); local and const windows are not modelled."""
    if "local" in ins.parts or "const" in ins.parts or "param" in ins.parts:
        raise Unsupported(f"PTX instruction '{ins.opcode}' (local/const windows are not modelled)")
    if "shared" in ins.parts and "to" in ins.parts:
        return _wr(ins, 0, f"::emu::ptx::to_shared(::emu::ptx::addr({ins.val(1, 'uint64_t')}))")
    if "shared" in ins.parts:
        return _wr(ins, 0, f"(uint64_t)(uintptr_t)::emu::ptx::saddr({ins.val(1, 'uint64_t')})")
    return _wr(ins, 0, ins.val(1, "uint64_t"))


def _cp(ins: Ins) -> str:
    """cp.async.{ca,cg}.shared.global [dst], [src], size[, src-size]: a synchronous copy, so
    the group instructions wait for nothing. Bulk (TMA) copies and mbarrier completion are not
    emulated."""
    if ins.parts[:2] != ["cp", "async"] or "bulk" in ins.parts:
        raise Unsupported(f"PTX instruction '{ins.opcode}'")
    if ins.parts[2] in ("commit_group", "wait_group", "wait_all"):
        return ";"
    if "mbarrier" in ins.opcode or len(ins.args) not in (3, 4) or not {"shared", "global"} <= set(ins.parts):
        raise Unsupported(f"PTX instruction '{ins.opcode}'")
    dst = _address(ins.args[0], ins.env, ins.opcode, shared=True)
    src = _address(ins.args[1], ins.env, ins.opcode)
    size = ins.val(2, "uint32_t")
    src_size = ins.val(3, "uint32_t") if len(ins.args) == 4 else size
    return f"::emu::ptx::cp_async({dst}, {src}, {size}, {src_size});"


def _video(ins: Ins) -> str:
    """The video instructions met in real programs: vabsdiff4 and vshr with .add, on u32."""
    if ins.parts[1:4] != ["u32", "u32", "u32"] or "add" not in ins.parts or len(ins.args) != 4:
        raise Unsupported(f"PTX instruction '{ins.opcode}'")
    a, b, c = (ins.val(i, "uint32_t") for i in (1, 2, 3))
    if ins.base == "vabsdiff4" and len(ins.parts) == 5:
        return _wr(ins, 0, f"::emu::ptx::vabsdiff4_add({a}, {b}, {c})")
    if ins.base == "vshr" and len(ins.parts) == 6 and ins.parts[4] in ("clamp", "wrap"):
        return _wr(ins, 0, f"::emu::ptx::vshr_add({a}, {b}, {c}, {str(ins.parts[4] == 'clamp').lower()})")
    raise Unsupported(f"PTX instruction '{ins.opcode}'")


def _nothing(ins: Ins) -> str:
    return ";"


def _fence(ins: Ins) -> str:
    return "__threadfence();"


HANDLERS: dict[str, Callable[[Ins], str]] = {
    "mov": _mov, "add": _add_sub, "sub": _add_sub, "addc": _add_sub, "subc": _add_sub,
    "mul": _mul, "mad": _mad, "and": _binary("&"), "or": _binary("|"), "xor": _binary("^"),
    "not": _unary("~"), "neg": _unary("-"), "abs": _abs, "min": _minmax, "max": _minmax,
    "shl": _shift, "shr": _shift, "shf": _shf, "bfe": _bfe, "bfi": _bfi, "prmt": _prmt,
    "brev": _unary_bits, "popc": _unary_bits, "clz": _unary_bits, "bfind": _bfind, "lop3": _lop3,
    "cvt": _cvt, "ld": _ld, "st": _st, "shfl": _shfl, "vote": _vote, "activemask": _activemask,
    "bar": _bar, "barrier": _bar, "membar": _fence, "fence": _fence, "setp": _setp, "selp": _selp,
    "ex2": _math("std::exp2"), "lg2": _math("std::log2"), "rsqrt": _math("1 / std::sqrt"),
    "rcp": _math("1 / "), "sqrt": _math("std::sqrt"), "sin": _math("std::sin"), "cos": _math("std::cos"),
    "tanh": _math("std::tanh"), "fma": _fma, "cvta": _cvta, "cp": _cp,
    "vabsdiff4": _video, "vshr": _video, "nanosleep": _nothing, "prefetch": _nothing,
    "trap": lambda ins: "__trap();", "brkpt": lambda ins: "__brkpt();",
}


def _instructions(template: str) -> Iterator[str]:
    """The template's instructions. A brace where an instruction would start only scopes the
    template's .reg declarations (names are unique per statement here); elsewhere it is a vector
    operand such as ``{%1, %2}``."""
    flat = re.sub(r"//[^\n]*", "", template)
    cur: list[str] = []
    for c in flat:
        if c in "{}" and not "".join(cur).strip():
            cur = []
        elif c == ";":
            yield " ".join("".join(cur).split())
            cur = []
        else:
            cur.append(c)
    rest = " ".join("".join(cur).split())
    if rest:
        yield rest


def _reg_decl(piece: str, env: dict[str, str], decls: list[str]) -> None:
    m = re.fullmatch(r"\.reg\s+\.(\w+)\s+(.+)", piece)
    if not m or m.group(1) not in CTYPE:
        raise Unsupported(f"PTX declaration '{piece}'")
    for name in (n.strip() for n in m.group(2).split(",")):
        if not re.fullmatch(r"%?[A-Za-z_$][\w$]*", name):
            raise Unsupported(f"PTX declaration '{piece}'")
        cname = "emu_r_" + name.lstrip("%").replace("$", "_")
        env[name] = cname
        decls.append(f"{CTYPE[m.group(1)]} {cname}{{}};")


def translate_instruction(piece: str, env: dict[str, str]) -> str:
    guard = ""
    m = re.match(r"@(!?)(%?\w+)\s+(.*)", piece)
    if m:
        guard, piece = f"if ({m.group(1)}{value(m.group(2), env, 'bool', piece)}) ", m.group(3)
    opcode, _, rest = piece.partition(" ")
    parts = opcode.split(".")
    handler = HANDLERS.get(parts[0])
    if handler is None:
        raise Unsupported(f"PTX instruction '{opcode}'")
    args = [a.strip() for a in _split_top(rest, ",")] if rest.strip() else []
    try:
        stmt = handler(Ins(opcode, parts, args, env))
    except (IndexError, KeyError) as e:
        raise Unsupported(f"PTX instruction '{opcode}' in the form '{piece}'") from e
    return f"{guard}{{ {stmt} }}"


def translate(stmt: AsmStatement) -> str:
    """The C++ block replacing one asm statement (one line, or one per #if branch and directive;
    the caller pads the line count)."""
    env: dict[str, str] = {}
    lines = ["do { uint32_t emu_cc = 0; (void)emu_cc;"]
    n = 0
    for constraint, expr in stmt.outputs:
        if not re.fullmatch(r"[=+&]*[rlfdhc]", constraint):
            raise Unsupported(f"asm output constraint '{constraint}'")
        lines.append(f"auto& emu_a{n} = ({expr});")
        env[f"%{n}"] = f"emu_a{n}"
        n += 1
    for constraint, expr in stmt.inputs:
        if not re.fullmatch(r"[rlfdhcn]|\d+", constraint):
            raise Unsupported(f"asm input constraint '{constraint}'")
        if constraint.isdigit():         # tied to an output: the output already holds it
            lines.append(f"emu_a{constraint} = ({expr});")
            env[f"%{n}"] = f"emu_a{constraint}"
        else:
            lines.append(f"const auto emu_a{n} = ({expr});")
            env[f"%{n}"] = f"emu_a{n}"
        n += 1
    if stmt.branches is None:
        return " ".join([*lines, _body(stmt.template, dict(env)), "} while (0)"])
    out = [" ".join(lines)]
    for directive, template in stmt.branches:
        out.append(directive)
        if directive != "#endif":
            out.append(_body(template, dict(env)))
    return "\n".join(out) + "\n} while (0)"


def _body(template: str, env: dict[str, str]) -> str:
    decls: list[str] = []
    body: list[str] = []
    for piece in _instructions(template.replace("%%", "%")):
        if not piece:
            continue
        if piece.startswith(".reg"):
            _reg_decl(piece, env, decls)
        else:
            body.append(translate_instruction(piece, env))
    return "{ " + " ".join(decls + body) + " }"


# x86 instructions host code holds in asm (cycle counters, fences, cpuid, spin hints). The
# program runs on this host, so on an x86-64 host such a statement is left to the host compiler
# as written; elsewhere it is refused, named.
X86_HOST = frozenset({"rdtsc", "rdtscp", "cpuid", "pause", "lfence", "mfence", "sfence", "xgetbv", "nop", "rep"})
HOST_IS_X86 = platform.machine().lower() in ("x86_64", "amd64")
# Other CPUs' counterparts (ARM's cycle-counter and barrier instructions, PowerPC's time base),
# none of them PTX. Portable timers hold them in `#elif defined(__arm__)`-style branches beside
# the x86 one: they are left to the host compiler too, which never sees a branch the host does
# not take, and fails to assemble one it does (a build error, not a refusal).
OTHER_CPU = frozenset({"mrc", "mrs", "msr", "isb", "dmb", "dsb", "wfe", "sev", "mftb", "mftbu", "mfspr", "sync",
                       "lwsync", "eieio"})


def native(stmt: AsmStatement) -> bool:
    """True when the host compiler keeps ``stmt`` as written: an empty template (a compiler
    barrier such as ``asm volatile("" ::: "memory")`` or a benchmark's DoNotOptimize, whatever
    its constraints), only x86 instructions (X86_HOST) on an x86-64 host, or only other CPUs'
    timer and barrier instructions (OTHER_CPU). x86 templates separate instructions by newlines
    or ';', so both split here."""
    template = re.sub(r"//[^\n]*|/\*.*?\*/", "", stmt.template, flags=re.S)
    words = [p.split()[0].lower() for p in re.split(r"[;\n]", template) if p.strip()]
    if not words:
        return True
    if all(w in X86_HOST for w in words):
        if HOST_IS_X86:
            return True
        raise Unsupported(f"x86 instruction '{words[0]}' on a {platform.machine()} host")
    return all(w in OTHER_CPU for w in words)


def rewrite_edits(text: str) -> list[tuple[int, int, str]]:
    """(start, end, replacement) for every asm statement of ``text`` the host compiler does not
    keep (native); raises Unsupported."""
    edits = []
    for stmt in find(text):
        if native(stmt):
            continue
        new = translate(stmt)
        pad = text.count("\n", stmt.start, stmt.end) - new.count("\n")
        if pad < 0:
            raise Unsupported("an asm statement with more #if branches than its lines can hold")
        edits.append((stmt.start, stmt.end, new + "\n" * pad))
    return edits


def first_unsupported(text: str) -> tuple[int, str] | None:
    """Offset and message of the first asm statement that cannot be translated, if any."""
    code = mask(text).code
    for m in _ASM.finditer(code):
        close = _matching_paren(code, m.end() - 1)
        try:
            if close < 0:
                raise Unsupported("an asm statement whose parentheses are not closed")
            stmt = _parse(text, m.start(), m.end(), close)
            if not native(stmt):
                translate(stmt)
        except Unsupported as e:
            return m.start(), str(e)
    return None
