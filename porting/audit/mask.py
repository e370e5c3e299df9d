"""Blank out comments and literals so rule regexes run over code only, at C speed.

``mask(text, lang)`` returns a ``Masked``: ``code`` has the same length and newlines as
``text`` with comments blanked and literal contents blanked (quotes kept); ``strings``
lists the string literals and ``includes`` the ``#include`` header names with offsets.
Line/column lookups go through ``Masked.position(offset)``. C uses one regex pass that only
stops at comments and literals; Rust goes through the tokenizer (nested comments, raw
strings, lifetimes).
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field

from .tokenize import tokenize

# Every alternative starts with a literal (/ # R " '), and none is wrapped in a group: then the
# regex engine gets a first-character set and skips other text at C speed (a top-level named group
# per alternative hides that set and made this scan 5-10x slower). The kind is read off the
# match's first characters (_KIND).
_C_SKIP = re.compile(
    r"//[^\n]*|/\*.*?(?:\*/|\Z)"
    r"|\#[ \t]*(?:include|include_next|import)[ \t]*(?:<[^>\n]*>|\"[^\"\n]*\")"
    r"|R\"(?P<d>[^()\\\s\"]{0,16})\(.*?(?:\)(?P=d)\"|\Z)"
    r"|\"(?:[^\"\\\n]|\\.)*(?:\"|$)"
    r"|'(?:[^'\\\n]|\\.)*(?:'|$)",
    re.DOTALL | re.MULTILINE)
_KIND = {"/": "comment", "#": "inc", "R": "raw", '"': "string", "'": "char"}
_WORDCHAR = re.compile(r"\w")
_NOT_NL = re.compile(r"[^\n]")
_QUOTED = re.compile(r"^(?:u8|u|U|L|b|br|r|bR)?(?:R\"[^(]*\(|r#*\"|\")(.*?)(?:\)[^)\"]*\"|\"#*)?$", re.DOTALL)


@dataclass
class Literal:
    start: int
    end: int
    text: str  # the literal as written, with prefix and quotes

    @property
    def content(self) -> str:
        m = _QUOTED.match(self.text)
        return m.group(1) if m else self.text.strip("\"'")


@dataclass
class Masked:
    text: str
    code: str
    strings: list[Literal] = field(default_factory=list)
    includes: list[Literal] = field(default_factory=list)  # text is the header name
    comment_spans: list[tuple[int, int]] = field(default_factory=list)  # (start, end) of each comment
    _starts: list[int] | None = None

    @property
    def comments(self) -> list[Literal]:
        """The comments as literals, built when asked (no rule reads them; a file has thousands)."""
        return [Literal(start, end, self.text[start:end]) for start, end in self.comment_spans]

    def line_starts(self) -> list[int]:
        if self._starts is None:
            # the offset after each newline: running sums of the lines' lengths plus one, all in C
            # (a str.find loop made a Python step per line)
            lines = self.text.split("\n")
            lines.pop()
            self._starts = list(itertools.accumulate(map((1).__add__, map(len, lines)), initial=0))
        return self._starts

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, col) of a character offset."""
        starts = self.line_starts()
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    def line_text(self, line: int) -> str:
        starts = self.line_starts()
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[starts[line - 1]:end]


def _blank(s: str) -> str:
    return " " * len(s) if "\n" not in s else _NOT_NL.sub(" ", s)


def mask(text: str, lang: str = "c") -> Masked:
    return _mask_rust(text) if lang == "rust" else _mask_c(text)


def _mask_c(text: str) -> Masked:
    out = Masked(text, "")
    pieces: list[str] = []
    last = 0
    pos = 0
    restart = True
    while restart:  # one finditer pass; a rejected match restarts the scan one character later
        restart = False
        for m in _C_SKIP.finditer(text, pos):
            start, end = m.span()
            kind = _KIND[text[start]]
            if kind == "inc":
                if text[text.rfind("\n", 0, start) + 1:start].strip(" \t"):
                    pos, restart = start + 1, True  # '#' not at the start of a line: not a directive
                    break
            elif kind == "char" or kind == "raw":
                prev = text[start - 1:start]
                if prev and (prev.isalnum() or prev == "_") and prev not in "uUL8":
                    pos, restart = start + 1, True  # digit separator (1'000) or an identifier ending in R
                    break
            s = m.group()
            pieces.append(text[last:start])
            if kind == "comment":
                pieces.append(_blank(s))
                out.comment_spans.append((start, end))
            elif kind == "inc":
                name_at = max(s.rfind("<"), s.find('"'))
                pieces.append(s[:name_at + 1] + _blank(s[name_at + 1:-1]) + s[-1])
                out.includes.append(Literal(start + name_at, end, s[name_at + 1:-1]))
            else:
                q = s.index("'") if kind == "char" else s.index('"')
                body = s[q + 1:-1] if len(s) > q + 1 and s[-1] == s[q] else s[q + 1:]
                pieces.append(s[:q + 1] + _blank(body) + s[q + 1 + len(body):])
                if kind != "char":
                    out.strings.append(Literal(start, end, s))
            last = end
    pieces.append(text[last:])
    # CR of CRLF files becomes a space (same length) so that `$` and line-based rules see LF lines
    out.code = "".join(pieces).replace("\r", " ")
    return out


def _mask_rust(text: str) -> Masked:
    out = Masked(text, "")
    starts = out.line_starts()
    chars = list(text)
    for tok in tokenize(text, "rust"):
        if tok.kind not in ("comment", "string", "char"):
            continue
        start = starts[tok.line - 1] + tok.col - 1
        end = start + len(tok.text)
        lit = Literal(start, end, tok.text)
        if tok.kind == "comment":
            out.comment_spans.append((start, end))
        elif tok.kind == "string":
            out.strings.append(lit)
        lo, hi = (start, end) if tok.kind == "comment" else (start + 1, end - 1)
        for i in range(lo, hi):
            if chars[i] != "\n":
                chars[i] = " "
    out.code = "".join(chars)
    return out
