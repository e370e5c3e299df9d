"""A small, fast tokenizer for C, C++, CUDA/HIP and Rust sources.

It is not a compiler front end: it splits text into tokens well enough to tell code from
comments and string literals and to see identifiers and operators in order, which is what
`port audit` (and `port aliases`, to find CUDA names used from Rust) need.

API::

    from porting.audit.tokenize import tokenize, language_for, Token

    for tok in tokenize(text, lang="c"):       # lang: "c" (C/C++/CUDA/HIP) or "rust"
        tok.kind, tok.text, tok.line, tok.col  # line and col are 1-based; col counts characters

    language_for("x.rs") == "rust"; language_for("k.cu") == "c"; language_for("a.py") is None

Token kinds (``KINDS``):

- ``ident``: identifiers and keywords (``cudaMalloc``, ``__global__``, ``fn``).
- ``string``: string literals including prefix and quotes (``"x"``, ``u8"x"``, ``R"(..)"``,
  Rust ``b"x"`` / ``r#"x"#``), and the header name of ``#include <cuda.h>`` (text ``<cuda.h>``).
- ``char``: character literals (``'a'``, Rust ``b'a'``).
- ``comment``: ``// ...`` and ``/* ... */`` (Rust block comments nest), text verbatim.
- ``number``: numeric literals (C pp-numbers such as ``0xffffffffu``, ``1.5e-3f``; Rust ``32_u32``).
- ``punct``: operators and punctuation; multi-character operators are one token (``->``,
  ``::``, ``<<``, ``&=``...). CUDA's ``<<<`` comes out as ``<<`` then ``<``.
- ``preprocessor``: C only, the directive head at the start of a line (text ``#include``,
  ``#define``, ``#pragma``... with inner spaces removed: ``#  if`` gives ``#if``). The rest of
  the directive is tokenized normally, so identifiers in macros are seen.
- ``lifetime``: Rust only, ``'a`` / ``'static``.

Whitespace and backslash-newline continuations are skipped. Unterminated literals and
comments end at the end of the line (C strings/chars) or of the text; the tokenizer never
raises on any input. Tokenizing is lazy (a generator) and pure Python: expect tens of
thousands of lines per second per core (a regex match per token); whole-tree scans that only
need "code vs comment/literal" should use ``porting.audit.mask``, which is several times faster.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import NamedTuple

__all__ = ["Token", "KINDS", "tokenize", "language_for", "C_EXTENSIONS", "RUST_EXTENSIONS"]

KINDS = ("ident", "string", "char", "comment", "number", "punct", "preprocessor", "lifetime")

C_EXTENSIONS = frozenset({
    ".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".inc",
    ".ipp", ".tpp", ".cu", ".cuh", ".hip", ".cl",
})
RUST_EXTENSIONS = frozenset({".rs"})


class Token(NamedTuple):
    kind: str
    text: str
    line: int
    col: int


def language_for(path: str | os.PathLike[str]) -> str | None:
    """``"c"`` for C/C++/CUDA/HIP file names, ``"rust"`` for ``.rs``, else None."""
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext in C_EXTENSIONS:
        return "c"
    if ext in RUST_EXTENSIONS:
        return "rust"
    return None


_PUNCT = (r"<<=|>>=|\.\.\.|->\*|->|::|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|--|##"
          r"|[-+*/%&|^]=|\.\.=|\.\.|=>|[^\s\w]")

_C_PATTERN = re.compile(
    r"(?P<nl>\n)"
    r"|(?P<pp>^[ \t]*\#[ \t]*[A-Za-z_]*)"
    r"|(?P<ws>(?:[ \t\r\f\v]|\\\r?\n)+)"
    r"|(?P<comment>//[^\n]*|/\*(?s:.*?)(?:\*/|\Z))"
    r"|(?P<rawstring>(?:u8|u|U|L)?R\"(?P<delim>[^()\\\s\"]{0,16})\((?s:.*?)(?:\)(?P=delim)\"|\Z))"
    r"|(?P<string>(?:u8|u|U|L)?\"(?:[^\"\\\n]|\\(?s:.))*(?:\"|$))"
    r"|(?P<char>(?:u8|u|U|L)?'(?:[^'\\\n]|\\(?s:.))*(?:'|$))"
    r"|(?P<ident>[^\W\d]\w*)"
    r"|(?P<number>\.?\d(?:[eEpP][+-]|[\w.'])*)"
    r"|(?P<punct>" + _PUNCT + r")",
    re.MULTILINE,
)

_RUST_PATTERN = re.compile(
    r"(?P<nl>\n)"
    r"|(?P<ws>[ \t\r\f\v]+)"
    r"|(?P<comment>//[^\n]*)"
    r"|(?P<block>/\*)"
    r"|(?P<rawstring>b?r(?P<hashes>\#*)\"(?s:.*?)(?:\"(?P=hashes)|\Z))"
    r"|(?P<string>b?\"(?:[^\"\\]|\\(?s:.))*(?:\"|\Z))"
    r"|(?P<char>b?'(?:\\(?:u\{[0-9a-fA-F_]*\}|x[0-9a-fA-F]{2}|.)|[^'\\\n])')"
    r"|(?P<lifetime>'[^\W\d]\w*)"
    r"|(?P<ident>(?:r\#)?[^\W\d]\w*)"
    r"|(?P<number>\d(?:[eE][+-]\d|\w)*(?:\.(?!\.)\d?(?:[eE][+-]\d|\w)*)?)"
    r"|(?P<punct>" + _PUNCT + r")"
)

_INCLUDE_NAME = re.compile(r"[ \t]*(<[^>\n]*>?)")
_PP_SPACE = re.compile(r"[ \t]+")
_RUST_BLOCK = re.compile(r"/\*|\*/")

_KIND_OF_GROUP: dict[str | None, str | None] = {"rawstring": "string", "block": "comment"}


def _rust_block_end(text: str, start: int) -> int:
    """End offset of the (nesting) Rust block comment opened at ``start``."""
    depth = 0
    for m in _RUST_BLOCK.finditer(text, start):
        depth += 1 if m.group() == "/*" else -1
        if depth == 0:
            return m.end()
    return len(text)


def tokenize(text: str, lang: str = "c") -> Iterator[Token]:
    """Yield the tokens of ``text``; ``lang`` is ``"c"`` (C/C++/CUDA/HIP) or ``"rust"``."""
    if lang not in ("c", "rust"):
        raise ValueError(f"tokenize: unknown language {lang!r} (use 'c' or 'rust')")
    rust = lang == "rust"
    pattern = _RUST_PATTERN if rust else _C_PATTERN
    line = 1
    line_start = 0  # offset of the first character of the current line
    pos = 0
    n = len(text)
    match = pattern.match
    while pos < n:
        m = match(text, pos)
        if m is None:  # pragma: no cover - the punct alternative matches any non-space char
            pos += 1
            continue
        group = m.lastgroup
        end = m.end()
        if group == "nl":
            line += 1
            line_start = end
            pos = end
            continue
        if group == "ws":
            if "\n" in m.group():
                line += m.group().count("\n")
                line_start = m.start() + m.group().rfind("\n") + 1
            pos = end
            continue
        start = m.start()
        if group == "pp":
            raw = m.group()
            hash_at = raw.index("#")
            head = _PP_SPACE.sub("", raw)
            yield Token("preprocessor", head, line, start + hash_at - line_start + 1)
            pos = end
            if head in ("#include", "#include_next", "#import"):
                inc = _INCLUDE_NAME.match(text, pos)
                if inc is not None:
                    yield Token("string", inc.group(1), line, inc.start(1) - line_start + 1)
                    pos = inc.end()
            continue
        if group == "block":
            end = _rust_block_end(text, start)
        kind = _KIND_OF_GROUP.get(group, group)
        tok_text = text[start:end]
        yield Token(kind, tok_text, line, start - line_start + 1)  # type: ignore[arg-type]
        if kind in ("comment", "string", "char") and "\n" in tok_text:
            line += tok_text.count("\n")
            line_start = start + tok_text.rfind("\n") + 1
        pos = end


def brace_end(code: str, brace: int, hi: int, pair: str = "{}") -> int:
    """In code whose comments and strings are blanked: the index of the `}` that closes the `{` at
    ``brace`` (or of ``pair``'s closer: "()" for a parenthesis), searched below ``hi``; ``hi`` when
    it stays open there."""
    opener, closer = pair[0], pair[1]
    depth = 0
    for i in range(brace, hi):
        depth += (code[i] == opener) - (code[i] == closer)
        if depth == 0:
            return i
    return hi
