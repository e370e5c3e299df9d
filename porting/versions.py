"""Version numbers and `--require` expressions (``rocm>=7.0``), without third-party deps."""

from __future__ import annotations

import re

from .errors import UsageError
from .records import Record

# ASCII digits (\d also matches other scripts' digits), at most FIELD_DIGITS per field, and not
# a piece of a longer number: a 26-digit major is no version at all, never one that passes a gate.
FIELD_DIGITS = 6
_FIELD = f"([0-9]{{1,{FIELD_DIGITS}}})"
_VERSION = re.compile(rf"(?<![0-9.]){_FIELD}(?:\.{_FIELD})?(?:\.{_FIELD})?(?![0-9])")
_REQUIRE = re.compile(r"^\s*(rocm|cuda|torch|hip)\s*(>=|<=|==|!=|>|<)\s*([0-9][0-9.]*)\s*$")


def parse_version(text: str | None, anchored: bool = False) -> tuple[int, ...] | None:
    """'7.0.2-56' -> (7, 0, 2); '13.0' -> (13, 0); None/garbage -> None. ``anchored``: the
    version must start the text (after blanks), as in a label or a ``.info/version`` file."""
    if not text:
        return None
    m = _VERSION.match(text.lstrip()) if anchored else _VERSION.search(text)
    if not m:
        return None
    return tuple(int(g) for g in m.groups() if g is not None)


# A released version: two or three dot-separated fields of ASCII digits and nothing else (no
# pre-release tag, build suffix, other separator, empty field, range or non-ASCII digit).
_RELEASE = re.compile(rf"{_FIELD}\.{_FIELD}(?:\.{_FIELD})?")


class VersionRefused(ValueError):
    """A text that is not a released version; ``str()`` is the one-line reason."""


def parse_release(text: str | None) -> tuple[int, ...]:
    """The one strict reader of gate versions (``min_rocm`` and a run's ROCm version): '7.0',
    '7.0.2', '7.1.25424' -> tuples; anything else raises ``VersionRefused`` with the reason."""
    raw = (text or "").strip(" \t")
    if not raw:
        raise VersionRefused("no version given")
    if not raw.isascii():
        raise VersionRefused(f"{raw[:40]!r} has non-ASCII characters (only the digits 0-9 and dots)")
    m = _RELEASE.fullmatch(raw)
    if m is None:
        raise VersionRefused(f"{raw[:40]!r} is not a released version X.Y or X.Y.Z "
                             f"(ASCII digits, at most {FIELD_DIGITS} per field, dots only: no pre-release, "
                             "range or empty field)")
    return tuple(int(g) for g in m.groups() if g is not None)


def version_prefix(text: str | None, fields: int = 2) -> str | None:
    """The version that starts ``text`` with at least ``fields`` fields ('7.0.2-56' -> '7.0.2')."""
    v = parse_version(text, anchored=True)
    return format_version(v) if v is not None and len(v) >= fields else None


def format_version(v: tuple[int, ...] | None) -> str | None:
    return ".".join(map(str, v)) if v else None


def compare(a: tuple[int, ...], op: str, b: tuple[int, ...]) -> bool:
    # A missing field is 0 (7.0 == 7.0.0): both sides are padded to the longer one's length. (A
    # fixed width, as before, left an equivalent mutant: any width >= 3 orders the same.)
    n = max(len(a), len(b))
    x, y = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
    return {">=": x >= y, "<=": x <= y, "==": x == y, "!=": x != y, ">": x > y, "<": x < y}[op]


class Requirement(Record, frozen=True):
    """One `--require` expression, e.g. ``rocm>=7.0``."""

    name: str
    op: str
    version: tuple[int, ...]

    @classmethod
    def parse(cls, text: str) -> Requirement:
        m = _REQUIRE.match(text)
        if not m:
            raise UsageError(
                f"--require {text!r}: expected NAME OP VERSION with NAME in rocm|hip|cuda|torch "
                "and OP in >=,<=,==,!=,>,< (e.g. 'rocm>=7.0')")
        name, op, ver = m.groups()
        # ver is digits and dots from its first character (_REQUIRE), so no later match can begin
        # after a digit or dot: searching finds exactly what an anchored read would (one spelling,
        # no equivalent `anchored` mutant)
        version = parse_version(ver)
        if version is None:
            raise UsageError(f"--require {text[:60]!r}: version {ver[:20]!r}... is not a version (at most "
                             f"{FIELD_DIGITS} digits per field)")
        return cls(name="rocm" if name == "hip" else name, op=op, version=version)

    def __str__(self) -> str:
        return f"{self.name}{self.op}{format_version(self.version)}"
