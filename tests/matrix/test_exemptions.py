"""The exemption registry: parsing, validation messages, matching, expiry, unmatched."""

from __future__ import annotations

import datetime as dt

import pytest

from porting import assets
from porting.errors import ConfigError
from porting.matrix import exemptions as ex

GOOD = """
schema = 1
[[exemption]]
id = "A"
pattern = "test_matrix/x/test_a.py::test_one[[]*]"
platforms = ["rocm"]
action = "xfail"
reason = "r"
tracking = "https://t/1"
expires = 2030-01-31
[[exemption]]
id = "B"
pattern = ["*::test_two", "*::test_three"]
platforms = ["cpu", "cuda"]
action = "skip"
reason = "r"
tracking = "https://t/2"
expires = 2020-01-01
"""


def _write(tmp_path, text):
    p = tmp_path / "exemptions.toml"
    p.write_text(text)
    return p


def test_parses_entries_and_list_patterns(tmp_path):
    reg = ex.load(_write(tmp_path, GOOD))
    a, b = reg.exemptions
    assert (a.id, a.action, a.platforms, a.expires) == ("A", "xfail", ("rocm",), dt.date(2030, 1, 31))
    assert b.patterns == ("*::test_two", "*::test_three")
    assert b.matches("m.py::test_three") and not b.matches("m.py::test_four")


def test_brackets_are_literal_when_escaped(tmp_path):
    a = ex.load(_write(tmp_path, GOOD)).exemptions[0]
    assert a.matches("test_matrix/x/test_a.py::test_one[p1]")
    assert not a.matches("test_matrix/x/test_a.py::test_onex")


def test_match_respects_platform_and_expiry(tmp_path):
    reg = ex.load(_write(tmp_path, GOOD))
    today = dt.date(2026, 6, 1)
    assert reg.match("test_matrix/x/test_a.py::test_one[1]", "rocm", today).id == "A"
    assert reg.match("test_matrix/x/test_a.py::test_one[1]", "cpu", today) is None
    assert reg.match("m.py::test_two", "cpu", today) is None  # B expired: never applied
    assert [e.id for e in reg.expired("cpu", today)] == ["B"]
    assert reg.expired("rocm", today) == []
    assert reg.expired("rocm", dt.date(2030, 2, 1))[0].id == "A"


def test_expiry_day_itself_is_still_valid():
    e = ex.Exemption("X", "*", ("cpu",), "skip", "r", "t", dt.date(2026, 1, 1))
    assert not e.expired(dt.date(2026, 1, 1)) and e.expired(dt.date(2026, 1, 2))
    assert e.patterns == ("*",) and e.matches("any::test")  # a single pattern needs no patterns=


def test_unmatched_lists_exemptions_with_no_test(tmp_path):
    reg = ex.load(_write(tmp_path, GOOD))
    assert [e.id for e in reg.unmatched(["m.py::test_two"])] == ["A"]
    assert [e.id for e in reg.unmatched([])] == ["A", "B"]


def test_missing_file_is_an_empty_registry(tmp_path):
    assert ex.load(tmp_path / "none.toml").exemptions == []


@pytest.mark.parametrize("change,message", [
    (("action = \"xfail\"", "action = \"ignore\""), "'action' must be skip or xfail"),
    (("platforms = [\"rocm\"]", "platforms = [\"tpu\"]"), "'platforms' must be"),
    (("expires = 2030-01-31", "expires = \"soon\""), "'expires' must be a date"),
    (("reason = \"r\"\ntracking = \"https://t/1\"", "tracking = \"https://t/1\""), "missing key(s) reason"),
    (("id = \"B\"", "id = \"A\""), "exemption id 'A' is used twice"),
    (("schema = 1", "schema = 2"), "schema must be 1"),
    (("id = \"A\"", "id = \"A\"\ncolour = 1"), "unknown key(s) colour"),
    (("pattern = [\"*::test_two\", \"*::test_three\"]", "pattern = []"), "'pattern' must be"),
])
def test_invalid_registry_names_file_and_entry(tmp_path, change, message):
    text = GOOD.replace(*change, 1)
    assert text != GOOD
    with pytest.raises(ConfigError) as info:
        ex.load(_write(tmp_path, text))
    assert message in str(info.value) and "exemptions.toml" in str(info.value)


def test_invalid_toml_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="invalid TOML"):
        ex.load(_write(tmp_path, "[[exemption]\n"))


def test_repository_registry_is_valid_and_live():

    reg = ex.load(assets.exemptions_file())
    assert reg.exemptions, "the registry documents the known failures"
    assert all(e.tracking and e.reason for e in reg.exemptions)
