"""porting.versions: version parsing, comparison with every operator, and `--require`."""

from __future__ import annotations

import pytest

from porting.errors import UsageError
from porting.versions import Requirement, compare, format_version, parse_version, version_prefix


@pytest.mark.parametrize("text,anchored,expected", [
    ("7.0.2-56", False, (7, 0, 2)), ("13.0", False, (13, 0)), ("7", False, (7,)),
    ("HIP version: 7.1.25424", False, (7, 1, 25424)), ("HIP version: 7.1", True, None),
    ("  7.1.1\n", True, (7, 1, 1)), ("", False, None), (None, False, None), ("banana", False, None),
    ("1234567.0", False, None),  # a 7-digit field is no version, not a big one
    ("x9.8", False, (9, 8)),
])
def test_parse_version(text, anchored, expected):
    assert parse_version(text, anchored=anchored) == expected


def test_prefix_and_format():
    assert version_prefix("7.0.2-56") == "7.0.2" and version_prefix("7.1 rc") == "7.1"
    assert version_prefix("7") is None and version_prefix("7", fields=1) == "7"
    assert version_prefix("v7.1") is None and version_prefix(None) is None
    assert format_version((7, 0, 2)) == "7.0.2" and format_version(()) is None and format_version(None) is None


# (a, b, ordering of a against b); a missing field counts as 0 (7.0 == 7.0.0)
PAIRS = [((7, 0), (7, 0, 0), 0), ((7,), (7, 0, 1), -1), ((7, 0, 0), (7,), 0),
         ((7, 0, 1), (7, 0), 1), ((7, 0, 9), (7, 1), -1), ((8,), (7, 9, 9), 1),
         ((6, 4, 1), (7, 0), -1), ((7, 1, 0), (7, 1, 1), -1)]


@pytest.mark.parametrize("a,b,order", PAIRS)
def test_compare_every_operator(a, b, order):
    expected = {">=": order >= 0, "<=": order <= 0, "==": order == 0, "!=": order != 0, ">": order > 0,
                "<": order < 0}
    assert {op: compare(a, op, b) for op in expected} == expected


def test_requirement_parse_and_text():
    r = Requirement.parse(" hip >= 7.0 ")
    assert (r.name, r.op, r.version, str(r)) == ("rocm", ">=", (7, 0), "rocm>=7.0")
    assert str(Requirement.parse("torch<2.14.1")) == "torch<2.14.1"
    with pytest.raises(UsageError) as bad:
        Requirement.parse("rocm=>7")
    assert str(bad.value) == ("--require 'rocm=>7': expected NAME OP VERSION with NAME in rocm|hip|cuda|torch "
                              "and OP in >=,<=,==,!=,>,< (e.g. 'rocm>=7.0')")
    with pytest.raises(UsageError) as big:
        Requirement.parse("cuda>=1234567")
    assert str(big.value) == ("--require 'cuda>=1234567': version '1234567'... is not a version (at most "
                              "6 digits per field)")
    with pytest.raises(UsageError) as long:  # a pasted blob is cut: 60 characters of it, 20 of the version
        Requirement.parse("cuda>=" + "1234567890" * 8)
    assert str(long.value) == (f"--require {('cuda>=' + '1234567890' * 6)[:60]!r}: version "
                               f"{'1234567890' * 2!r}... is not a version (at most 6 digits per field)")


def test_parse_version_searches_by_default():
    assert parse_version("HIP version: 7.1") == (7, 1)
