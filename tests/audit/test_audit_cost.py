"""Issue 26's speed-ups change no answer: the rewritten scanners against the character loops they
replaced, on random texts made of the characters that matter (seeded, so a failure reproduces)."""

from __future__ import annotations

import random

from porting.audit import model, warp
from porting.audit.mask import Masked, mask


def _split_args_by_char(args: str) -> list[str]:
    """model._split_args as it was: one step per character."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in args:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return out if args.strip() else []


def _call_args_by_char(code: str, open_at: int) -> str:
    """warp._call_args as it was: one step per character, at most 400."""
    depth = 0
    for i in range(open_at, min(len(code), open_at + 400)):
        depth += code[i] == "("
        depth -= code[i] == ")"
        if depth == 0:
            return code[open_at + 1:i]
    return ""


def test_split_args_and_call_args_agree_with_the_character_loops() -> None:
    rng = random.Random(26)
    for _ in range(20000):
        text = "".join(rng.choice("ab ,()[]{}\n") for _ in range(rng.randint(0, 30)))
        assert model._split_args(text) == _split_args_by_char(text), repr(text)
        at = rng.randint(0, len(text) + 1)
        assert warp._call_args(text, at) == _call_args_by_char(text, at), (repr(text), at)


def test_call_args_stops_after_400_characters() -> None:
    deep = "(" * 300 + "x" + ")" * 300
    for at in range(0, len(deep) + 2, 7):
        assert warp._call_args(deep, at) == _call_args_by_char(deep, at)
    assert warp._call_args("f(" + "a" * 500 + ")", 1) == ""  # the match is past the window
    assert warp._call_args("f(a, (b))", 1) == "a, (b)"


def _line_starts_by_find(text: str) -> list[int]:
    """Masked.line_starts as it was: a str.find loop."""
    starts = [0]
    i = text.find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    return starts


def test_line_starts_agree_with_the_find_loop() -> None:
    rng = random.Random(17)
    for _ in range(20000):
        text = "".join(rng.choice("ab\n\r ") for _ in range(rng.randint(0, 20)))
        assert Masked(text, "").line_starts() == _line_starts_by_find(text), repr(text)


def test_comments_are_still_listed_when_asked() -> None:
    text = 'int a; // one\nchar* s = "/* no */"; /* two\n lines */ int b;\n'
    assert [(c.start, c.text) for c in mask(text, "c").comments] == [(7, "// one"), (36, "/* two\n lines */")]
    assert [c.text for c in mask("let a = 1; // r\n/* n /* e */ */", "rust").comments] == ["// r", "/* n /* e */ */"]
