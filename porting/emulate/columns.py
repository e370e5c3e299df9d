"""The column-aware timing mask: numbers in a table under a header that names a time or rate unit.

Benchmark programs print tables of bare numbers whose header names the unit once
(``stride(KB) hops cyc/hop ns``; ``Device  HtoD  DtoH`` under ``(all bandwidths in GB/s)``).
A number in such a row carries no sign of being a timing, so the per-line default masks
(run.DEFAULT_MASKS) cannot take it; two runs of the program differ there at any width.

The rule (docs/emulate.md, "Default masks"): a **header** is a line of at least two fields
followed by at least one **row**, a line with the same number of fields under the same
separator (a tab, ``|``, ``,``, two or more spaces, else single spaces: the first that makes
the header's and the next line's counts equal), at least one number, and a number (or nothing)
in every timing column. A header field that
names a time or rate unit, or a timing word (``Time(ms)``, ``cyc/hop``, ``ns``, ``GB/s``,
``GFLOPS``, ``maxBW``, ``latency``), makes its column a timing column; a caption on the line
just above the header that names a unit for *all* columns (``(all bandwidths in GB/s)``,
``all times in ms``) makes every column but the first (the row's key) one. The numbers of
timing columns are replaced by ``<masked>`` in the header's rows, until a blank line or a line
whose field count differs; a drawn rule (``-----``, ``=====``, markdown's ``|---|---|``) under
the header or between rows is passed over (the seventh suite's histogram table). Every other
column stays compared: a result printed beside a timing column still diverges.
"""

from __future__ import annotations

import re

MASKED = "<masked>"
_NUM = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
# a field that is a number, possibly with a unit, % or x suffix: "1.23", "12 ms", "3.5x", "87%"
_NUMERIC_FIELD = re.compile(r"^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*[A-Za-z%/\u00b5\u00d7]{0,8}\s*$")
# the separators, most specific first: a tab-separated header may hold spaces inside a field
_SEPARATORS = (re.compile(r"\t+"), re.compile(r"\s*\|\s*"), re.compile(r"\s*,\s*"), re.compile(r" {2,}"),
               re.compile(r"\s+"))
# a unit or timing word as a token of a header field: letters bounded by non-letters, or by a
# lower-to-upper case change for the upper-case abbreviations ("maxBW", "avgMs" stays a word)
_TIME_UNITS = r"ns|nsec|us|usec|\u00b5s|ms|msec|sec|secs|seconds?|minutes?|cycles?|cyc|clocks?|clks?|ticks?"
# a one-letter "s" (or "sec") is a unit only in brackets: a column named s may hold a result
_SECONDS = re.compile(r"(?i)[(\[]\s*(?:s|sec)\s*[)\]]")
_TIMING_WORDS = (r"time|timing|elapsed|duration|latency|runtime|throughput|bandwidth|speedup|speed-up"
                 r"|[kmgtp]?flops|[kmgtp]?ips")
_UNIT_TOKEN = re.compile(rf"(?i)(?<![a-z])(?:{_TIME_UNITS}|{_TIMING_WORDS})(?![a-z])")
_RATE = re.compile(r"(?i)[a-z]+\s*/\s*s(?:ec|econd)?(?![a-z])")   # GB/s, GFLOP/s, items/sec
_ABBREVIATION = re.compile(r"(?<![A-Z])BW(?![A-Z])")              # BW, maxBW, BW(GB/s)
_CAPTION = re.compile(rf"(?i)\ball\b[^\n]*?\bin\s+(?:\[|\()?\s*(?:{_TIME_UNITS}|s|sec|[a-z]+\s*/\s*s(?:ec)?)(?![a-z])")


# a rule drawn under a header or between rows: dashes, equals signs, markdown's |---|:--:|
_RULE = re.compile(r"^\s*[-=_~*+|: \t]*[-=_~*]{3}[-=_~*+|: \t]*$")


def names_unit(field: str) -> bool:
    """A header field naming a time or rate unit or a timing word."""
    return any(p.search(field) for p in (_UNIT_TOKEN, _SECONDS, _RATE, _ABBREVIATION))


def mask_tables(lines: list[str]) -> list[str]:
    """``lines`` with the numbers of every table's timing columns replaced by MASKED."""
    out = list(lines)
    i = 0
    while i + 1 < len(lines):
        table = _table_at(lines, i)
        if table is None:
            i += 1
            continue
        sep, timing, end = table
        for j in range(i + 1, end):
            out[j] = _mask_row(lines[j], sep, timing)
        i = end
    return out


def _table_at(lines: list[str], i: int) -> tuple[re.Pattern[str], set[int], int] | None:
    """(separator, timing columns, end of rows) when line ``i`` is a header with timing columns."""
    header = lines[i]
    if not header.strip() or _NUMERIC_FIELD.match(header) or _RULE.match(header):
        return None
    first = _past_rules(lines, i + 1)  # a rule under the header is drawn, not a row
    if first >= len(lines):
        return None
    for sep in _SEPARATORS:
        fields = _fields(header, sep)
        if len(fields) < 2 or len(_fields(lines[first], sep)) != len(fields):
            continue
        if all(_NUMERIC_FIELD.match(f) for f in fields):
            return None  # a row, not a header
        timing = {k for k, f in enumerate(fields) if names_unit(f)}
        if i > 0 and _CAPTION.search(lines[i - 1]):
            timing |= set(range(1, len(fields)))
        if not timing:  # nothing to mask: not a table of ours, decided before walking its rows
            return None  # (walking them from every line was quadratic: 10,000 `c[i] = x` lines hung)
        end, rows = first, 0
        while end < len(lines) and _is_row(_fields(lines[end], sep), len(fields), timing):
            end, rows = _past_rules(lines, end + 1), rows + 1
        return (sep, timing, end) if rows else None
    return None


def _past_rules(lines: list[str], at: int) -> int:
    """The first line from ``at`` on that is not a drawn rule."""
    while at < len(lines) and _RULE.match(lines[at]):
        at += 1
    return at


def _fields(line: str, sep: re.Pattern[str]) -> list[str]:
    text = line.strip()
    return sep.split(text) if text else []


def _is_row(fields: list[str], width: int, timing: set[int]) -> bool:
    """A row of the table: as many fields as the header, a number in one of them, and in every
    timing column a number or nothing (a prose line of as many words is not a row)."""
    return (len(fields) == width and any(_NUMERIC_FIELD.match(f) for f in fields)
            and all(_NUMERIC_FIELD.match(fields[k]) or fields[k] in ("", "-") for k in timing))


def _mask_row(line: str, sep: re.Pattern[str], timing: set[int]) -> str:
    """The row with the numbers of the timing columns masked, its spacing kept."""
    lead = len(line) - len(line.lstrip())
    text = line.strip()
    pieces: list[str] = []
    at, column = 0, 0
    for m in sep.finditer(text):
        pieces.append(_mask_field(text[at:m.start()], column in timing))
        pieces.append(m.group(0))
        at, column = m.end(), column + 1
    pieces.append(_mask_field(text[at:], column in timing))
    return line[:lead] + "".join(pieces) + line[lead + len(text):]


def _mask_field(field: str, timing: bool) -> str:
    return _NUM.sub(MASKED, field, count=1) if timing and _NUMERIC_FIELD.match(field) else field
