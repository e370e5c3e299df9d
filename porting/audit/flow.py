"""The lines a finding's line flows into, for `port audit --confirm` (issue 26).

The emulator reports a *site* (file, line) where a warp collective behaved otherwise at 64 lanes
than in a 32-lane warp (porting/emulate/runtime/emu_sites.cpp). A finding is tied to a site when
the site lies on one of its *target lines*, found textually on the file with comments and
literals blanked (porting.audit.mask), without a C++ parser:

1. **statement**: every line of the statement that holds the finding's line (a call split over
   lines reports the line of its name, the audit may name the line of an argument), or of the
   preprocessor directive, continued with backslashes (a macro's collective is reported on the
   line that uses the macro, which rule 2 reaches through the macro's name);
2. **variable**: when the finding's line assigns a name (``unsigned m = 0xffffffff;``, the
   ``offset = 16`` of a ``for``, ``#define FULL 0xffffffff``), each line that uses the name:
   inside the same function for a name assigned in a function, anywhere in the file for a
   ``#define`` or a name assigned outside every function; one step only (a name assigned from
   that name is not followed);
3. **source**: each line of the same function that assigns a name the finding's line uses (a
   ballot kept in 32 bits on one line, counted on the next); one step only;
4. **helper**: when a target line calls a function defined in the same file, every line of that
   function's body, and so on through the helpers it calls (calls in other files, through
   function pointers or virtual calls are not followed).

What breaks it: a name shadowed in an inner block counts as the same name; two overloads of a
helper both count; a ``#define`` used to set a variable that reaches the site is two steps away
(not tied); a helper defined in another file (a header) is not followed from its call.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from .mask import mask

_IDENT = re.compile(r"[A-Za-z_]\w*")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_NOT_FUNCTIONS = frozenset({"if", "for", "while", "switch", "catch", "return", "sizeof", "alignof", "decltype",
                            "defined", "__launch_bounds__", "__attribute__", "alignas", "static_assert"})
_QUALIFIERS = re.compile(r"(?:\s*\b(?:const|noexcept|override|final|volatile|mutable)\b)*\s*$")
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)
# `name = ...` or `name[...] = ...` (not ==, <=, >=, !=, nor a compound assignment)
_ASSIGN = re.compile(r"\b([A-Za-z_]\w*)\s*(?:\[[^\]=]*\]\s*)?=(?!=)")
_COMPOUND = re.compile(r"[-+*/%&|^<>!]$")
COLLECTIVE = re.compile(r"\b(?:__shfl\w*|__ballot\w*|__any\w*|__all\w*|__uni_sync|__match_\w+|__reduce_\w+_sync|"
                        r"__syncwarp|__activemask)\s*\(")
MAX_HELPER_DEPTH = 16


@dataclass
class Function:
    name: str
    first: int  # the line of its opening brace
    last: int   # the line of its closing brace


@dataclass
class Flow:
    """One file's lines (comments and literals blanked) and the functions defined in it."""
    lines: list[str]
    functions: list[Function] = field(default_factory=list)
    code: str = ""
    starts: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, text: str) -> Flow:
        code = mask(text).code
        starts = [0] + [i + 1 for i, c in enumerate(code) if c == "\n"]
        flow = cls(code.split("\n"), [], code, starts)
        flow.functions = _functions(code, flow.line_of)
        return flow

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset)

    def text(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    def enclosing(self, line: int) -> Function | None:
        inside = [f for f in self.functions if f.first <= line <= f.last]
        return min(inside, key=lambda f: f.last - f.first) if inside else None

    def targets(self, line: int) -> dict[int, str]:
        """The target lines of a finding at ``line``, each with how it is tied (for the detail)."""
        found: dict[int, str] = {n: "its statement" for n in self.statement(line)}
        found[line] = "this line"
        lines = self.directive(line)
        origin = lines[0] if lines is not None else line  # a #define is set on its first line
        for name, scope in self.assigned(line):
            for n in scope:
                if n not in found and re.search(rf"\b{re.escape(name)}\b", self.text(n)):
                    found.setdefault(n, f"uses {name}, set on line {origin}")
        for n, how in self.sources(line).items():
            found.setdefault(n, how)
        for n in list(found):
            for m, how in self.helper_lines(n).items():
                found.setdefault(m, how)
        return found

    def directive(self, line: int) -> range | None:
        """The lines of the preprocessor directive that holds ``line`` (continued with ``\\``)."""
        first = line
        while first > 1 and self.text(first - 1).rstrip().endswith("\\"):
            first -= 1
        if not self.text(first).lstrip().startswith("#"):
            return None
        last = line
        while last < len(self.lines) and self.text(last).rstrip().endswith("\\"):
            last += 1
        return range(first, last + 1)

    def statement(self, line: int) -> range:
        """The lines from the statement's start (after the previous ``;``, ``{`` or ``}``) to its
        ``;``; a directive's lines for a line of a directive."""
        if not 0 < line <= len(self.lines):
            return range(line, line + 1)
        lines = self.directive(line)
        if lines is not None:
            return lines
        at = self.starts[line - 1]
        begin = max(self.code.rfind(c, 0, at) for c in ";{}") + 1
        while begin < at and self.code[begin].isspace():
            begin += 1  # the statement starts at its first character, not after the previous `;`
        ends = [i for i in (self.code.find(c, at) for c in ";{}") if i >= 0]
        end = min(ends) if ends else len(self.code)
        return range(self.line_of(begin), self.line_of(end) + 1)

    def assigned(self, line: int) -> list[tuple[str, range]]:
        """Names the line assigns, each with the lines where a use of it is looked for."""
        lines = self.directive(line)
        text = self.text(lines[0] if lines is not None else line)  # a #define continued on this line
        here = self.enclosing(line)
        whole = range(1, len(self.lines) + 1)
        names = [(m.group(1), whole) for m in _DEFINE.finditer(text)]
        if lines is not None:
            return names  # an assignment inside a directive's body is the macro's, not a variable
        if not names:
            scope = range(here.first, here.last + 1) if here else whole
            names = [(m.group(1), scope) for m in _ASSIGN.finditer(text)
                     if not _COMPOUND.search(text[:m.end() - 1].rstrip())]
        return names

    def sources(self, line: int) -> dict[int, str]:
        """The lines of the same function that assign a name this line uses (one step back)."""
        here = self.enclosing(line)
        if here is None:
            return {}
        used = set(_IDENT.findall(self.text(line)))
        found: dict[int, str] = {}
        for n in range(here.first, here.last + 1):
            if n == line:
                continue
            for name, _ in self.assigned(n):
                if name in used:
                    found.setdefault(n, f"sets {name}, used on line {line}")
        return found

    def helper_lines(self, line: int) -> dict[int, str]:
        """The body lines of the functions of this file that ``line`` calls, transitively."""
        own = self.enclosing(line)
        by_name: dict[str, list[Function]] = {}
        for f in self.functions:
            by_name.setdefault(f.name, []).append(f)
        found: dict[int, str] = {}
        todo = [(line, 0)]
        seen: set[str] = set()
        while todo:
            n, depth = todo.pop()
            for name in _CALL.findall(self.text(n)):
                if name in seen or name not in by_name or depth >= MAX_HELPER_DEPTH:
                    continue
                seen.add(name)
                for f in by_name[name]:
                    if f is own or f.first <= line <= f.last:
                        continue  # a definition's own line, not a call
                    for m in range(f.first, f.last + 1):
                        found.setdefault(m, f"in {name}(), called from line {line}")
                        todo.append((m, depth + 1))
        return found

    def has_collective(self, lines: list[int]) -> bool:
        return any(COLLECTIVE.search(self.text(n)) for n in lines)


def _functions(code: str, line_of) -> list[Function]:
    """Function bodies: a ``{`` after ``name(...)`` (and qualifiers) that is not a control
    statement, each to its matching ``}``."""
    found: list[Function] = []
    depth_at: list[int] = []  # the offsets of the open braces
    opened: dict[int, str] = {}
    for i, c in enumerate(code):
        if c == "{":
            depth_at.append(i)
            name = _function_name(code, i)
            if name:
                opened[i] = name
        elif c == "}" and depth_at:
            start = depth_at.pop()
            if start in opened:
                found.append(Function(opened.pop(start), line_of(start), line_of(i)))
    return found


def _function_name(code: str, brace: int) -> str:
    head = code[max(0, brace - 400):brace]
    qualifiers = _QUALIFIERS.search(head)
    head = head[:qualifiers.start()] if qualifiers else head
    head = re.sub(r"\s*->\s*[\w:<>,\s*&]+$", "", head)  # a trailing return type
    if not head.endswith(")"):
        return ""
    depth, i = 0, len(head) - 1
    while i >= 0:
        depth += {")": 1, "(": -1}.get(head[i], 0)
        if depth == 0:
            break
        i -= 1
    m = re.search(r"([A-Za-z_]\w*)\s*$", head[:max(i, 0)])
    if not m or m.group(1) in _NOT_FUNCTIONS:
        return ""
    return m.group(1)
