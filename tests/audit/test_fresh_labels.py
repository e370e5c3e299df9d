"""Issue 26's fresh labelled corpus (tests/audit/fresh/labels.toml): labels and figures only, the
third-party code stays outside the repository (bench/eval_audit_fresh.py scores a checkout).
These tests keep the label file honest: every label names its source at a commit, a half of a
split made by file before tuning, a known rule and a reason; the halves do not overlap."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from porting.audit.rules import RULES
from porting.config import _load_toml

FRESH = Path(__file__).parent / "fresh"


@pytest.fixture(scope="module", params=["labels.toml", "labels_hecbench_faiss.toml", "labels_fourth.toml"])
def data(request) -> dict:
    return _load_toml(FRESH / request.param)


def test_sources_name_a_commit(data) -> None:
    assert data["source"]
    for s in data["source"]:
        assert re.fullmatch(r"[0-9a-f]{40}", s["commit"]), s


def test_the_split_is_by_file_hash_and_disjoint(data) -> None:
    tune, hold = set(data["split"]["tune"]), set(data["split"]["holdout"])
    assert tune and hold and not tune & hold
    for path in tune | hold:  # the rule stated in the file's header, decided before any finding was seen
        assert (hashlib.sha1(path.encode()).digest()[0] % 2 == 0) == (path in tune), path


def test_every_label_is_complete_and_in_its_half(data) -> None:
    sources = {s["name"] for s in data["source"]}
    split = {half: set(files) for half, files in data["split"].items()}
    assert len(data["finding"]) >= 300
    for d in data["finding"]:
        assert d["rule"] in RULES and isinstance(d["real"], bool) and len(d["why"]) > 10, d
        assert d["source"] in sources and f"{d['source']}/{d['file']}" in split[d["half"]], d
    keys = [(d["source"], d["file"], d["line"], d["rule"]) for d in data["finding"]]
    assert len(keys) == len(set(keys))
    assert len({(d["source"], d["file"]) for d in data["finding"]}) >= 30


def test_holdout_hazards_were_listed_before_the_tool_ran(data) -> None:
    for h in data["hazard"]:
        assert h["listed"] == ("before" if h["half"] == "holdout" else "after"), h


def test_the_third_corpus_is_all_holdout_and_labelled_whole() -> None:
    """Round 2's untouched hold-out (labels_leetcuda.toml): every file is hold-out, chosen by the
    rule in its header; each finding of the one run is labelled with a reason; the hazard reading
    (none outside mma code, stated in the header) was committed before the labels."""
    data = _load_toml(FRESH / "labels_leetcuda.toml")
    assert data["split"]["tune"] == [] and len(data["split"]["holdout"]) >= 20
    files = set(data["split"]["holdout"])
    keys = set()
    for d in data["finding"]:
        assert d["half"] == "holdout" and f"{d['source']}/{d['file']}" in files, d
        assert d["rule"] in RULES and isinstance(d["real"], bool) and len(d["why"]) > 10, d
        keys.add((d["source"], d["file"], d["line"], d["rule"]))
    assert len(keys) == len(data["finding"]) >= 200
    for h in data.get("hazard", []):
        assert h["half"] == "holdout" and h["listed"] == "before", h


@pytest.mark.parametrize("name", ["labels_fifth.toml", "labels_fifth_b.toml", "labels_fifth_c.toml"])
def test_the_fifth_corpus_split_and_holdout_labels(name: str) -> None:
    """Round 4's untouched hold-outs (labels_fifth*.toml): split by the sha1 rule in the header,
    hazards listed before the run, and every hold-out finding of the one run labelled."""
    data = _load_toml(FRESH / name)
    tune, hold = set(data["split"]["tune"]), set(data["split"]["holdout"])
    assert tune and hold and not tune & hold
    for path in tune | hold:
        assert (hashlib.sha1(path.encode()).digest()[0] % 2 == 0) == (path in tune), path
    for h in data.get("hazard", []):
        assert h["half"] == "holdout" and h["listed"] == "before", h
    keys = set()
    for d in data["finding"]:
        assert d["half"] == "holdout" and f"{d['source']}/{d['file']}" in hold, d
        assert d["rule"] in RULES and isinstance(d["real"], bool) and len(d["why"]) > 10, d
        keys.add((d["source"], d["file"], d["line"], d["rule"]))
    assert len(keys) == len(data["finding"])


@pytest.mark.parametrize("name", ["labels_sixth.toml", "labels_seventh.toml", "labels_eighth.toml",
                                  "labels_ninth.toml"])
def test_later_corpora_split_before_the_run_and_every_finding_labelled(name: str) -> None:
    """Rounds 5-11's untouched hold-outs (corpora 6-9): split by the sha1 rule in the header, every
    hazard of both halves listed by reading before the audit ran on it, every finding of a half's
    run labelled with a reason and in its own half, each key once."""
    data = _load_toml(FRESH / name)
    for s in data["source"]:
        assert re.fullmatch(r"[0-9a-f]{40}", s["commit"]), s
    split = {half: set(files) for half, files in data["split"].items()}
    assert split["tune"] and split["holdout"] and not split["tune"] & split["holdout"]
    for path in split["tune"] | split["holdout"]:
        assert (hashlib.sha1(path.encode()).digest()[0] % 2 == 0) == (path in split["tune"]), path
    sources = {s["name"] for s in data["source"]}
    for h in data["hazard"]:
        assert h["listed"] == "before" and f"{h['source']}/{h['file']}" in split[h["half"]], h
        assert h["line"] > 0 and len(h["why"]) > 10, h
    keys = set()
    for d in data["finding"]:
        assert d["rule"] in RULES and isinstance(d["real"], bool) and len(d["why"]) > 10, d
        assert d["source"] in sources and f"{d['source']}/{d['file']}" in split[d["half"]], d
        keys.add((d["source"], d["file"], d["line"], d["rule"]))
    assert len(keys) == len(data["finding"]) >= 300
    assert len({(d["source"], d["file"]) for d in data["finding"]}) >= 30  # the 30 files, 300 findings


@pytest.mark.parametrize("name, repositories", [("labels_tenth.toml", 6), ("labels_eleventh.toml", 8),
                                                 ("labels_twelfth.toml", 10), ("labels_thirteenth.toml", 8)])
def test_a_fresh_corpus_split_before_reading_and_hazards_listed_before_the_run(name: str, repositories: int) -> None:
    """The untouched hold-outs after rounds 13 and 14 (corpora 10-13): the split by the sha1 rule in
    the file's header was committed before any file was read, with the issue's 30 hold-out files;
    every hazard is listed before the audit ran on its half, in its own half; every finding of a
    half's one run is labelled with a reason, in its own half, each key once (the issue's 300
    findings over 30 files)."""
    data = _load_toml(FRESH / name)
    for s in data["source"]:
        assert re.fullmatch(r"[0-9a-f]{40}", s["commit"]), s
    sources = {s["name"] for s in data["source"]}
    assert len(sources) == len(data["source"]) >= repositories
    split = {half: set(files) for half, files in data["split"].items()}
    assert len(split["holdout"]) >= 30 and split["tune"] and not split["tune"] & split["holdout"]
    for path in split["tune"] | split["holdout"]:
        assert path.split("/", 1)[0] in sources, path
        assert (hashlib.sha1(path.encode()).digest()[0] % 2 == 0) == (path in split["tune"]), path
    for h in data.get("hazard", []):
        assert h["listed"] == "before" and f"{h['source']}/{h['file']}" in split[h["half"]], h
        assert h["line"] > 0 and len(h["why"]) > 10 and h["class"], h
    keys = set()
    for d in data.get("finding", []):
        assert d["rule"] in RULES and isinstance(d["real"], bool) and len(d["why"]) > 10, d
        assert d["source"] in sources and f"{d['source']}/{d['file']}" in split[d["half"]], d
        keys.add((d["source"], d["file"], d["line"], d["rule"]))
    assert len(keys) == len(data["finding"]) >= 300
    assert len({(d["source"], d["file"]) for d in data["finding"]}) >= 30  # the 30 files, 300 findings
    for half in ("tune", "holdout"):  # each half's one run is labelled whole: both halves have findings
        assert any(d["half"] == half for d in data["finding"]), half
