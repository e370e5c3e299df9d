"""The exemption registry: parsing, validation messages, matching, expiry, unmatched."""

from __future__ import annotations

import datetime as dt

import pytest

from porting import assets
from porting.config import load_config
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
    (("id = \"A\"", "id = \"A\"\nrdma = [\"roce\"]"), "'rdma' must be"),
    (("id = \"A\"", "id = \"A\"\nrdma = []"), "'rdma' must be"),
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


# -- the loader's exact messages: each names the file and the entry, and says what is wrong -------
# One valid entry, as TOML values; entry(key=value) changes a key, entry(key=None) drops it.
FIELDS = {"id": '"A"', "pattern": '"*"', "platforms": '["rocm"]', "action": '"skip"', "reason": '"r"',
          "tracking": '"t"', "expires": "2030-01-31"}


def entry(**change):
    fields = {**FIELDS, **change}
    return "[[exemption]]\n" + "".join(f"{k} = {v}\n" for k, v in fields.items() if v is not None)


INLINE = "{" + ", ".join(f"{k} = {v}" for k, v in FIELDS.items()) + "}"


@pytest.mark.parametrize("text,message", [
    (f'exemption = [{INLINE}, "x"]\n', "exemption #2: must be a table"),
    (entry() + "size = 2\ncolour = 1\n",
     "exemption 'A': unknown key(s) colour, size "
     "(known: action, expires, id, pattern, platforms, rdma, reason, tracking)"),
    (entry(reason=None, tracking=None), "exemption 'A': missing key(s) reason, tracking"),
    (entry(pattern='["*", "  "]'), "exemption 'A': 'pattern' must be a non-empty string or list of strings"),
    (entry(reason='" "'), "exemption 'A': 'reason' must be a non-empty string"),
    (entry(action='"ignore"'), "exemption 'A': 'action' must be skip or xfail, got 'ignore'"),
    (entry(platforms="[]"), "exemption 'A': 'platforms' must be a non-empty list of cuda, rocm, cpu"),
    (entry(expires="20300131"), "exemption 'A': 'expires' must be a date (YYYY-MM-DD)"),
    (entry(expires='"soon"'), "exemption 'A': 'expires' must be a date (YYYY-MM-DD), got 'soon'"),
    ("size = 2\ncolour = 1\n" + entry(), "unknown top-level key(s) colour, size"),
    ("exemption = 1\n", "'exemption' must be an array of tables ([[exemption]])"),
    ("schema = 2\n" + entry(), "schema must be 1, got 2"),
    (entry() + entry(), "exemption id 'A' is used twice"),
])
def test_invalid_registry_messages(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        ex.load(path)
    assert str(info.value) == f"{path}: {message}"


@pytest.mark.parametrize("written", ["2030-01-31", '"2030-01-31"', "2030-01-31T23:59:00"])
def test_expires_is_a_date_however_written(tmp_path, written):
    """A TOML date, an ISO date string, or a date-time (its day counts)."""
    [e] = ex.load(_write(tmp_path, entry(expires=written))).exemptions
    assert e.expires == dt.date(2030, 1, 31) and type(e.expires) is dt.date


def test_a_list_of_patterns_is_shown_joined(tmp_path):
    b = ex.load(_write(tmp_path, GOOD)).exemptions[1]
    assert b.pattern == "*::test_two | *::test_three"


def test_a_registry_without_entries_is_empty_and_keeps_its_path(tmp_path):
    path = _write(tmp_path, "schema = 1\n")
    assert (ex.load(path).exemptions, ex.load(path).path) == ([], path)
    missing = tmp_path / "none.toml"
    assert ex.load(missing).path == missing
    assert ex.load(_write(tmp_path, GOOD)).path == tmp_path / "exemptions.toml"


def test_load_all_merges_in_order_and_names_both_files_of_a_reused_id(tmp_path):
    first, second = tmp_path / "a.toml", tmp_path / "b.toml"
    first.write_text(GOOD)
    second.write_text(entry(id='"C"'))
    merged = ex.load_all([tmp_path / "none.toml", first, second])
    assert [e.id for e in merged.exemptions] == ["A", "B", "C"]
    assert ex.load_all([first, second]).path == first  # the first file is the one messages name
    second.write_text(entry(id='"B"'))
    with pytest.raises(ConfigError) as info:
        ex.load_all([first, second])
    assert str(info.value) == f"{second}: exemption id 'B' is already used in {first}"


# -- registry_files: which registries a run applies --------------------------------------------------
def test_registry_files_order_packs_and_duplicates(tmp_path):
    """The packs' registry, then each added pack's that exists, then the user's; resolved, each once."""
    pack, bare, matrix = tmp_path / "pack", tmp_path / "bare", tmp_path / "matrix"
    for d in (pack, bare, matrix / "sub"):
        d.mkdir(parents=True)
    _write(pack, GOOD)
    user = _write(tmp_path, GOOD)
    config = load_config(cli={"matrix.packs": [str(pack), str(bare)],
                              "matrix.exemptions": [str(user), str(matrix / "sub" / ".." / ".." / user.name)]},
                         env={}, project_dir=tmp_path)
    assert ex.registry_files(config, matrix) == [matrix / "exemptions.toml", pack / "exemptions.toml", user]
    assert ex.registry_files(config)[0] == assets.exemptions_file().resolve()  # the shipped packs by default


@pytest.mark.parametrize("how,where", [
    ("cli", "--exemptions"),
    ("env", "PORT_MATRIX_EXEMPTIONS"),
    ("file", "{project}/port.toml"),
])
@pytest.mark.parametrize("project_name", ["p", "file:env:p"])  # the origin's prefix is cut, not the path's text
def test_a_missing_user_registry_is_blamed_on_where_it_was_named(tmp_path, how, where, project_name):
    project = tmp_path / project_name
    project.mkdir()
    missing = project / "typo.toml"
    if how == "file":
        (project / "port.toml").write_text(f'[matrix]\nexemptions = ["{missing}"]\n')
    config = load_config(cli={"matrix.exemptions": [str(missing)]} if how == "cli" else None,
                         env={"PORT_MATRIX_EXEMPTIONS": str(missing)} if how == "env" else {}, project_dir=project)
    with pytest.raises(ConfigError) as info:
        ex.registry_files(config)
    assert str(info.value) == f"{where.format(project=project)}: matrix.exemptions: {missing}: no such file"


def test_an_rdma_restricted_exemption_applies_only_on_those_backends():
    e = ex.Exemption(id="R", pattern="*::t", platforms=("cpu", "rocm"), action="xfail", reason="r",
                     tracking="t", expires=dt.date(2030, 1, 1), rdma=("tcp", "none"))
    reg = ex.Registry(path=None, exemptions=[e])
    today = dt.date(2029, 1, 1)
    assert reg.match("a::t", "rocm", today, "tcp") is e
    assert reg.match("a::t", "rocm", today, "ibverbs") is None  # an ibverbs host runs it unexempted
    assert reg.match("a::t", "cuda", today, "tcp") is None
    assert reg.match("a::t", "cpu", today) is e  # a reader that does not know the backend (the report)
