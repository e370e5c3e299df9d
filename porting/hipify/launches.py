"""hipify's ``processKernelLaunches`` with its comment masker run at C speed.

``processKernelLaunches`` first blanks comments and string literals (its nested
``mask_comments``: a per-character Python loop, ``new_string += c``) so that ``<<<`` inside
them is not taken for a launch. On NVIDIA's samples that loop is the largest single cost of
hipify, plain or ours. Everything else in ``processKernelLaunches`` (the namespace regex, the
launch bounds, the template and name scan, the ``hipLaunchKernelGGL`` text) is hipify's own
code, unchanged: we build a copy of the function whose one nested ``mask_comments`` code object
is replaced by ``mask_comments`` below, which computes the same string by jumping between the
characters that change its state (``str.find``) instead of visiting each one.

The replacement is checked, not trusted: ``tests/hipify/test_launches.py`` compares it with
hipify's own masker (taken from the same code object) on every file of a corpus and on random
text over the characters the state machine reads, and the byte-identity tests compare whole
trees with plain hipify. If hipify's function ever stops having exactly one nested
``mask_comments`` without free variables, hipify's own function is used unchanged.
"""

from __future__ import annotations

import types
from collections.abc import Callable


def mask_comments(string: str) -> str:  # runs as hipify's nested function
    """hipify's ``mask_comments``: ``//`` and ``/* */`` comments and ``"..."`` literals become ``x``.

    The same state machine (the opening character is masked, the closing one kept; a ``"`` after
    ``\\`` or ``'`` does not open a literal, one after ``\\`` does not close it; a comment's
    closing ``/`` can start the next ``//``), taken a run at a time. It uses only builtins and
    str methods: it runs with hipify's module as its globals.
    """
    n = len(string)
    out = []
    pos = 0  # the next character, read outside any comment or literal
    line = block = quote = ret = -2  # the next "//", "/*" and opening '"' (-1: none left); positional,
    # so each is searched again only once passed: a search that fails is never repeated
    while pos < n:
        # '/' or '*' right after a '/' opens a comment; that '/' may be the character before pos
        # (hipify's prev_c is always the previous character, even one that closed a comment)
        if line != -1 and line < pos - 1:
            line = string.find("//", max(pos - 1, 0))
        if block != -1 and block < pos - 1:
            block = string.find("/*", max(pos - 1, 0))
        slash = line if block < 0 else block if line < 0 else min(line, block)
        # '"' opens a literal unless it follows '\\' or "'"
        if quote != -1 and quote < pos:
            quote = string.find('"', pos)
            while quote > 0 and string[quote - 1] in "\\'":
                quote = string.find('"', quote + 1)
        at_slash = slash + 1 if slash >= 0 else n
        at_quote = quote if quote >= 0 else n
        i = min(at_slash, at_quote)
        if i >= n:
            out.append(string[pos:])
            break
        out.append(string[pos:i])
        if i == at_quote:  # in "...": closed by '"' not after '\\'
            end = string.find('"', i + 1)
            while end >= 0 and string[end - 1] == "\\":
                end = string.find('"', end + 1)
        elif string[i] == "/":  # in // ...: closed by '\r' or '\n'
            newline = string.find("\n", i + 1)
            if ret != -1 and ret <= i:  # '\r' is rare: a failed search is not repeated per comment
                ret = string.find("\r", i + 1)
            end = newline if ret < 0 else ret if newline < 0 else min(newline, ret)
        else:  # in /* ... */: closed by '/' after '*' (the opening '*' counts: "/*/" closes)
            end = string.find("*/", i)
            end = end + 1 if end >= 0 else -1
        if end < 0:
            out.append("x" * (n - i))
            break
        out.append("x" * (end - i))
        out.append(string[end])
        pos = end + 1
    return "".join(out)


def fast_process_kernel_launches(hipify_python: types.ModuleType) -> Callable[..., str]:
    """``hipify_python.processKernelLaunches`` with ``mask_comments`` above as its masker;
    hipify's function itself when its shape is not the one this was checked against."""
    original = hipify_python.processKernelLaunches
    code = original.__code__
    nested = [i for i, const in enumerate(code.co_consts)
              if isinstance(const, types.CodeType) and const.co_name == "mask_comments"]
    if len(nested) != 1 or code.co_consts[nested[0]].co_freevars:
        return original
    at = nested[0]
    consts = code.co_consts[:at] + (mask_comments.__code__,) + code.co_consts[at + 1:]
    return types.FunctionType(code.replace(co_consts=consts), original.__globals__, original.__name__,
                              original.__defaults__, original.__closure__)


def hipify_mask_comments(hipify_python: types.ModuleType) -> Callable[[str], str]:
    """hipify's own nested ``mask_comments``, as a function (for the equivalence tests)."""
    code = hipify_python.processKernelLaunches.__code__
    nested = next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == "mask_comments")
    return types.FunctionType(nested, hipify_python.processKernelLaunches.__globals__)
