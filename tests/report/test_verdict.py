"""The verdict rules: certified only on complete ROCm >= 7.0 evidence that matches the reference."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from porting.errors import ConfigError
from porting.report import build_report, write_artifacts
from porting.report.exemptions import nodeid_to_junit
from porting.report.model import Column, Matrix
from porting.report.verdict import decide

TODAY = dt.date(2026, 11, 29)
GREEN = [("tests.actor.m::a", "passed"), ("tests.rdma.m::b", "passed"), ("tests.rdma.m::c", "passed")]


def report(paths, **kw):
    kw.setdefault("today", TODAY)
    return build_report([str(p) for p in paths], **kw)


def test_certified_when_rocm_matches_cpu(write_junit, jx):
    r = report([write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"), write_junit("rocm.xml", jx.ROCM, GREEN, run_id="r")])
    assert r.verdict.status == "certified" and r.verdict.exit_code == 0
    assert r.verdict.reference == ["cpu"] and r.verdict.rocm == ["rocm-7.0.2/gfx942"]
    assert r.verdict.blocking == [] and not r.matrix.partial


def test_cpu_only_evidence_is_never_certified(write_junit, jx):
    r = report([write_junit("cpu.xml", jx.CPU, GREEN)])
    assert r.verdict.status == "no evidence" and r.verdict.exit_code == 3
    assert "no run on ROCm" in r.verdict.reasons


def test_failure_on_rocm_blocks(write_junit, jx):
    rocm = [("tests.actor.m::a", "failed", "HIP error"), ("tests.rdma.m::b", "passed"), ("tests.rdma.m::c", "failed")]
    r = report([write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"), write_junit("rocm.xml", jx.ROCM, rocm, run_id="r")])
    assert r.verdict.status == "not certified" and r.verdict.exit_code == 1
    assert [(b.test_id, b.status, b.message, b.reference, b.label) for b in r.verdict.blocking] == [
        ("tests.actor.m::a", "failed", "HIP error", "cpu", "regression"),
        ("tests.rdma.m::c", "failed", "failed here", "cpu", "regression")]


@pytest.mark.parametrize("status", ["error", "skipped", "xfailed", "xpassed"])
def test_anything_but_pass_on_rocm_blocks(write_junit, jx, status):
    rocm = [("tests.actor.m::a", status), *GREEN[1:]]
    r = report([write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"), write_junit("rocm.xml", jx.ROCM, rocm, run_id="r")])
    assert [(b.test_id, b.status) for b in r.verdict.blocking] == [("tests.actor.m::a", status)]


def test_test_missing_on_rocm_blocks(write_junit, jx):
    r = report([write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"),
                write_junit("rocm.xml", jx.ROCM, GREEN[1:], run_id="r")])
    assert [(b.test_id, b.status) for b in r.verdict.blocking] == [("tests.actor.m::a", "missing")]


def test_cuda_is_the_reference_when_present(write_junit, jx):
    cuda = [("tests.actor.m::a", "failed"), ("tests.rdma.m::b", "passed")]
    cpu = [("tests.actor.m::a", "passed"), ("tests.rdma.m::b", "passed")]
    rocm = [("tests.actor.m::a", "failed"), ("tests.rdma.m::b", "passed")]
    paths = [write_junit("cuda.xml", jx.CUDA, cuda, run_id="g"), write_junit("cpu.xml", jx.CPU, cpu, run_id="c"),
             write_junit("rocm.xml", jx.ROCM, rocm, run_id="r")]
    shared = report(paths).verdict  # a fails on CUDA too: labelled so, and it still blocks (no exemption)
    assert shared.status == "not certified" and [(b.test_id, b.label) for b in shared.blocking] == [
        ("tests.actor.m::a", "fails on cuda too")]
    forced = report(paths, reference="cpu")
    assert forced.verdict.status == "not certified" and forced.reference == "cpu"


def test_every_reference_column_is_consulted(write_junit, jx):
    """A test that passes on any reference column (here one of two CUDA archs) and fails on ROCm
    blocks, whichever column comes first: a is green on sm_80 only, b on sm_90 only."""
    sm80 = dict(jx.CUDA, **{"port.gpu_arch": "sm_80"})
    paths = [write_junit("sm90.xml", jx.CUDA, [("tests.x.m::a", "failed"), ("tests.x.m::b", "passed")], run_id="g9"),
             write_junit("sm80.xml", sm80, [("tests.x.m::a", "passed"), ("tests.x.m::b", "failed")], run_id="g8"),
             write_junit("rocm.xml", jx.ROCM, [("tests.x.m::a", "failed"), ("tests.x.m::b", "failed")], run_id="r")]
    v = report(paths).verdict
    assert sorted(v.reference) == ["cuda-13.0/sm_80", "cuda-13.0/sm_90"]
    assert v.status == "not certified"
    assert sorted((b.test_id, b.reference) for b in v.blocking) == [("tests.x.m::a", "cuda-13.0/sm_80"),
                                                                    ("tests.x.m::b", "cuda-13.0/sm_90")]


def test_every_rocm_column_is_judged(write_junit, jx):
    """A failure on gfx950 next to a pass on gfx942 blocks, and the other way round."""
    gfx950 = dict(jx.ROCM, **{"port.gpu_arch": "gfx950", "port.rocm_version": "7.1.0"})
    both = [("tests.x.m::a", "passed"), ("tests.x.m::b", "passed")]
    paths = [write_junit("cpu.xml", jx.CPU, both, run_id="c"),
             write_junit("942.xml", jx.ROCM, [("tests.x.m::a", "passed"), ("tests.x.m::b", "failed")], run_id="r1"),
             write_junit("950.xml", gfx950, [("tests.x.m::a", "failed"), ("tests.x.m::b", "passed")], run_id="r2")]
    v = report(paths).verdict
    assert sorted(v.rocm) == ["rocm-7.0.2/gfx942", "rocm-7.1.0/gfx950"]
    assert v.status == "not certified"
    assert sorted((b.test_id, b.column) for b in v.blocking) == [("tests.x.m::a", "rocm-7.1.0/gfx950"),
                                                                 ("tests.x.m::b", "rocm-7.0.2/gfx942")]
    green = [write_junit("942g.xml", jx.ROCM, both, run_id="r3"), write_junit("950g.xml", gfx950, both, run_id="r4")]
    assert report([paths[0], *green]).verdict.status == "certified"  # the same columns, all passing


def test_requested_reference_absent(write_junit, jx):
    r = report([write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"), write_junit("rocm.xml", jx.ROCM, GREEN, run_id="r")],
               reference="cuda")
    assert r.verdict.status == "not certified"
    assert "no run on the reference platform (cuda)" in r.verdict.reasons


@pytest.mark.parametrize("version,usable,reason", [
    ("6.4.1", "true", "ROCm 6.4.1 is below 7.0"),
    ("", "true", "ROCm version refused: no version given"),
    # the version is the whole property, not a number hidden in it
    ("build 7.1.0", "true", "ROCm version refused: 'build 7.1.0' is not a released version"),
    ("7.0.0", "false", "not usable"),
])
def test_rocm_gate(write_junit, jx, version, usable, reason):
    rocm = dict(jx.ROCM, **{"port.rocm_version": version, "port.rocm_usable": usable})
    r = report([write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"), write_junit("rocm.xml", rocm, GREEN, run_id="r")])
    assert r.verdict.status == "not certified"
    assert any(reason in x for x in r.verdict.reasons), r.verdict.reasons


@pytest.mark.parametrize("version,min_rocm,status", [
    ("7.0.0", "7.0", "certified"),  # the gate is >=: exactly the minimum passes
    ("7.0", "7.0.0", "certified"),
    ("7.0.9", "7.1", "not certified"),  # the minor version counts, not only the major
    ("7.1.0", "7.1", "certified"),
    ("7.1.0", "7.1.1", "not certified"),  # and the patch
    ("8.0.0", "7.1", "certified"),
])
def test_rocm_gate_boundaries(write_junit, jx, version, min_rocm, status):
    rocm = dict(jx.ROCM, **{"port.rocm_version": version})
    r = report([write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"), write_junit("rocm.xml", rocm, GREEN, run_id="r")],
               min_rocm=min_rocm)
    assert r.verdict.status == status, r.verdict.reasons
    if status != "certified":
        assert f"ROCm {version} is below {min_rocm}" in " ".join(r.verdict.reasons)


def test_a_min_rocm_that_is_not_a_version_is_a_config_error(write_junit, jx):
    with pytest.raises(ConfigError, match="min_rocm: 'banana' is not a released version"):
        report([write_junit("cpu.xml", jx.CPU, GREEN)], min_rocm="banana")


def test_min_rocm_is_configurable(write_junit, jx):
    paths = [write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"), write_junit("rocm.xml", jx.ROCM, GREEN, run_id="r")]
    assert report(paths, min_rocm="7.1").verdict.status == "not certified"


@pytest.mark.parametrize("kw,problem", [
    ({"complete": False}, "run incomplete"),
    ({"shard": "1/2"}, "missing shard(s) 2/2"),
    ({"collected": 10}, "collected 10"),
])
def test_incomplete_rocm_run_is_never_certified(write_junit, jx, kw, problem):
    r = report([write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"),
                write_junit("rocm.xml", jx.ROCM, GREEN, run_id="r", **kw)])
    assert r.verdict.status == "incomplete" and r.verdict.exit_code == 4 and r.matrix.partial
    assert any(problem in x for x in r.matrix.partial_reasons())


def test_incomplete_reference_is_never_certified(write_junit, jx):
    r = report([write_junit("cpu.xml", jx.CPU, GREEN, run_id="c", complete=False),
                write_junit("rocm.xml", jx.ROCM, GREEN, run_id="r")])
    assert r.verdict.status == "incomplete"


def test_shards_of_one_run_are_joined(write_junit, jx):
    paths = [write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"),
             write_junit("r1.xml", jx.ROCM, GREEN[:2], run_id="r", shard="1/2"),
             write_junit("r2.xml", jx.ROCM, GREEN[2:], run_id="r", shard="2/2")]
    r = report(paths)
    assert r.verdict.status == "certified" and len(r.matrix.columns) == 2


def test_unreadable_extra_file_blocks_certification(write_junit, jx, tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_bytes(b"<testsuites><testsuite><testcase name='x'")
    r = report([write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"),
                write_junit("rocm.xml", jx.ROCM, GREEN, run_id="r"), bad])
    assert r.verdict.status == "incomplete" and r.matrix.partial


def _registry(tmp_path, expires="2027-01-31", pattern="tests/rdma/*.py::b", platforms='["rocm"]'):
    path = tmp_path / "exemptions.toml"
    path.write_text(f'''
[[exemption]]
id = "ibverbs"
pattern = "{pattern}"
platforms = {platforms}
action = "skip"
reason = "no ibverbs NIC on the MI300 runner"
tracking = "https://github.com/example/issues/1"
expires = {expires}
''')
    return path


def test_user_registry_is_applied_with_the_shipped_one(write_junit, jx, tmp_path):
    from porting import assets

    rocm = [GREEN[0], ("tests.rdma.m::b", "failed", "no NIC"), GREEN[2]]
    paths = [write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"), write_junit("rocm.xml", jx.ROCM, rocm, run_id="r")]
    assert report(paths, exemptions=[assets.exemptions_file()]).verdict.status == "not certified"
    r = report(paths, exemptions=[assets.exemptions_file(), _registry(tmp_path)])
    assert r.verdict.status == "certified" and [e.test_id for e in r.verdict.exempted] == ["tests.rdma.m::b"]
    assert r.exemptions_file == f"{assets.exemptions_file()}, {tmp_path / 'exemptions.toml'}"


def test_unexpired_exemption_unblocks(write_junit, jx, tmp_path):
    rocm = [GREEN[0], ("tests.rdma.m::b", "failed", "no NIC"), GREEN[2]]
    paths = [write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"), write_junit("rocm.xml", jx.ROCM, rocm, run_id="r")]
    r = report(paths, exemptions=_registry(tmp_path))
    assert r.verdict.status == "certified"
    [ex] = r.verdict.exempted
    assert ex.test_id == "tests.rdma.m::b" and ex.exemption["link"] == "https://github.com/example/issues/1"
    assert ex.exemption["reason"].startswith("no ibverbs")
    paths = write_artifacts(r, tmp_path / "out")
    assert '<a href="https://github.com/example/issues/1" rel="noopener noreferrer">' in paths["index.html"].read_text()
    assert "[link](https://github.com/example/issues/1)" in paths["parity.md"].read_text()


def test_exemption_with_a_list_of_patterns_unblocks_each_of_them(write_junit, jx, tmp_path):
    path = tmp_path / "exemptions.toml"
    path.write_text('[[exemption]]\nid = "two"\npattern = ["tests/actor/*.py::a", "tests/rdma/*.py::b"]\n'
                    'platforms = ["rocm"]\naction = "skip"\nreason = "r"\ntracking = "https://example.org/1"\n'
                    'expires = 2027-01-31\n')
    rocm = [("tests.actor.m::a", "failed"), ("tests.rdma.m::b", "skipped"), GREEN[2]]
    paths = [write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"), write_junit("rocm.xml", jx.ROCM, rocm, run_id="r")]
    r = report(paths, exemptions=path)
    assert r.verdict.status == "certified" and r.verdict.blocking == []
    assert [(e.test_id, e.exemption["id"]) for e in r.verdict.exempted] == [("tests.actor.m::a", "two"),
                                                                          ("tests.rdma.m::b", "two")]


def test_expired_exemption_does_not_unblock(write_junit, jx, tmp_path):
    rocm = [GREEN[0], ("tests.rdma.m::b", "failed"), GREEN[2]]
    paths = [write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"), write_junit("rocm.xml", jx.ROCM, rocm, run_id="r")]
    r = report(paths, exemptions=_registry(tmp_path, expires="2026-11-28"))
    assert r.verdict.status == "not certified"
    assert "expired 2026-11-28" in r.verdict.blocking[0].note


def test_exemption_for_another_platform_does_not_unblock(write_junit, jx, tmp_path):
    rocm = [GREEN[0], ("tests.rdma.m::b", "failed"), GREEN[2]]
    paths = [write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"), write_junit("rocm.xml", jx.ROCM, rocm, run_id="r")]
    assert report(paths, exemptions=_registry(tmp_path, platforms='["cuda"]')).verdict.status == "not certified"


def test_exemption_without_tracking_link_is_a_config_error(write_junit, jx, tmp_path):
    path = tmp_path / "ex.toml"
    path.write_text('[[exemption]]\nid = "x"\npattern = "*"\nplatforms = ["rocm"]\naction = "skip"\n'
                    'reason = "r"\nexpires = 2030-01-01\n')
    with pytest.raises(ConfigError, match="missing key.*tracking"):
        report([write_junit("cpu.xml", jx.CPU, GREEN)], exemptions=path)


@pytest.mark.parametrize("nodeid,junit", [
    ("test_matrix/rdma/test_x.py::test_y[a-1]", "test_matrix.rdma.test_x::test_y[a-1]"),
    ("test_matrix/rdma/test_x.py::TestC::test_y", "test_matrix.rdma.test_x.TestC::test_y"),
    ("test_matrix/rdma/*", "test_matrix.rdma.*"),
])
def test_nodeid_patterns_match_junit_ids(nodeid, junit):
    assert nodeid_to_junit(nodeid) == junit


def test_exemption_named_by_the_plugin_but_unregistered_does_not_unblock(tmp_path, jx):
    xml = jx.xml(jx.ROCM, [("tests.actor.m::a", "passed")])
    rocm = tmp_path / "rocm.xml"
    rocm.write_text(xml.replace('<testcase classname="tests.actor.m" name="a" time="0.01">',
                                '<testcase classname="tests.actor.m" name="a" time="0.01"><properties>'
                                '<property name="exemption" value="made-up"/></properties><skipped message="x"/>'))
    cpu = tmp_path / "cpu.xml"
    cpu.write_text(jx.xml(jx.CPU, [("tests.actor.m::a", "passed")], run_id="c"))
    r = report([cpu, rocm], exemptions=_registry(tmp_path))
    assert r.verdict.status == "not certified"
    assert "not in the registry" in r.verdict.blocking[0].note


STATUS = st.sampled_from(["passed", "failed", "error", "skipped", "xfailed", "xpassed", None])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ref=st.lists(STATUS, min_size=1, max_size=8), rocm=st.lists(STATUS, min_size=1, max_size=8),
       complete=st.booleans(), version=st.sampled_from(["6.4.0", "7.0.0", "7.2.1", ""]))
def test_certified_implies_parity(write_junit, jx, ref, rocm, complete, version):
    """Property: whatever the input, 'certified' means every reference pass is a ROCm pass."""
    ref_cases = [(f"t.m::c{i}", s) for i, s in enumerate(ref) if s]
    rocm_cases = [(f"t.m::c{i}", s) for i, s in enumerate(rocm) if s]
    paths = [write_junit("cpu.xml", jx.CPU, ref_cases, run_id="c")]
    if rocm_cases:
        paths.append(write_junit("rocm.xml", dict(jx.ROCM, **{"port.rocm_version": version}), rocm_cases,
                                 run_id="r", complete=complete))
    r = report(paths)
    if r.verdict.status == "certified":
        assert complete and version.startswith("7") and ref_cases and rocm_cases
        rocm_status = dict(rocm_cases)
        assert all(rocm_status.get(t) == "passed" for t, s in ref_cases if s == "passed")
    if not rocm_cases:
        assert r.verdict.status == "no evidence"


def test_cases_the_reference_skipped_are_listed_as_never_compared(write_junit, jx):
    cpu = [("tests.a.m::ok", "passed"), ("tests.a.m::gpu", "skipped"), ("tests.a.m::gpu_fails", "skipped"),
           ("tests.a.m::both_fail", "failed")]
    rocm = [("tests.a.m::ok", "passed"), ("tests.a.m::gpu", "passed"), ("tests.a.m::gpu_fails", "failed"),
            ("tests.a.m::both_fail", "failed")]
    files = [write_junit("cpu.xml", jx.CPU, cpu, run_id="c"), write_junit("rocm.xml", jx.ROCM, rocm, run_id="r")]
    v = report(files).verdict
    listed = {n.test_id: (n.status, n.reference_status) for n in v.never_compared}
    assert listed == {"tests.a.m::gpu": ("passed", "skipped"), "tests.a.m::gpu_fails": ("failed", "skipped"),
                      "tests.a.m::both_fail": ("failed", "failed")}
    # listed, not silently dropped; and a failure on ROCm blocks whatever the reference did (issue 23, hole 1)
    assert [(b.test_id, b.label) for b in v.blocking] == [("tests.a.m::both_fail", "fails on cpu too"),
                                                          ("tests.a.m::gpu_fails", "ROCm only (never ran on cpu)")]
    assert v.status == "not certified"


def test_never_compared_error_and_absent_references(write_junit, jx):
    """A test the reference never ran at all is listed with reference status 'missing'; an error
    on the reference is listed with it too (it was never compared: it never passed there)."""
    cpu = [("tests.a.m::ok", "passed"), ("tests.a.m::broken", "error")]
    rocm = [("tests.a.m::ok", "passed"), ("tests.a.m::broken", "error"), ("tests.a.m::rocm_only", "failed")]
    files = [write_junit("cpu.xml", jx.CPU, cpu, run_id="c"), write_junit("rocm.xml", jx.ROCM, rocm, run_id="r")]
    v = report(files).verdict
    assert [(n.test_id, n.column, n.status, n.reference_status) for n in v.never_compared] == [
        ("tests.a.m::broken", "rocm-7.0.2/gfx942", "error", "error"),
        ("tests.a.m::rocm_only", "rocm-7.0.2/gfx942", "failed", "missing")]


def test_decide_defaults_are_the_documented_ones(write_junit, jx):
    """decide() called bare: reference 'auto' (CUDA when present), gate 7.0, no exemptions, today."""
    rocm700 = dict(jx.ROCM, **{"port.rocm_version": "7.0.0"})
    paths = [write_junit("cuda.xml", jx.CUDA, GREEN, run_id="g"), write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"),
             write_junit("rocm.xml", rocm700, GREEN, run_id="r")]
    v = decide(report(paths).matrix)
    assert v.status == "certified" and v.reference == ["cuda-13.0/sm_90"] and v.rocm == ["rocm-7.0.0/gfx942"]
    old = dict(jx.ROCM, **{"port.rocm_version": "6.4.1"})
    v = decide(report([paths[0], write_junit("old.xml", old, GREEN, run_id="o")]).matrix)
    assert v.status == "not certified" and any(r.startswith("rocm-6.4.1/gfx942: refused as ROCm evidence: ")
                                               and r.endswith("ROCm 6.4.1 is below 7.0") for r in v.reasons)


def test_verdict_json_is_the_documented_shape(write_junit, jx, tmp_path):
    """parity.json's "verdict": every key, a blocker (no exemption involved: empty note), an exempted
    cell (the registry entry as the report shows it) and a never-compared test, in one run."""
    cpu = [*GREEN, ("tests.a.m::ref_skip", "skipped")]
    rocm = [("tests.actor.m::a", "failed", "HIP error"), ("tests.rdma.m::b", "failed", "no NIC"), GREEN[2],
            ("tests.a.m::ref_skip", "passed")]
    paths = [write_junit("cpu.xml", jx.CPU, cpu, run_id="c"), write_junit("rocm.xml", jx.ROCM, rocm, run_id="r")]
    col = "rocm-7.0.2/gfx942"
    registry = _registry(tmp_path, platforms='["rocm", "cpu"]')
    assert report(paths, exemptions=registry).verdict.to_json() == {
        "status": "not certified", "exit_code": 1, "reference": ["cpu"], "rocm": [col],
        "reasons": ["1 test(s) fail on ROCm"],
        "blocking": [{"test_id": "tests.actor.m::a", "column": col, "status": "failed", "reference": "cpu",
                      "message": "HIP error", "note": "", "label": "regression"}],
        "exempted": [{"test_id": "tests.rdma.m::b", "column": col, "status": "failed", "exemption": {
            "id": "ibverbs", "test": "tests/rdma/*.py::b", "platform": "rocm,cpu",
            "reason": "no ibverbs NIC on the MI300 runner", "link": "https://github.com/example/issues/1",
            "expires": "2027-01-31", "action": "skip"}}],
        "never_compared": [{"test_id": "tests.a.m::ref_skip", "column": col, "status": "passed",
                            "reference_status": "skipped"}],
        "not_executed": [],
        "components": {"a": "certifiable", "actor": "certifiable", "rdma": "certifiable"},
        "evidence": [{"column": col, "level": "executed on an AMD GPU (gfx942)", "provenance": "given: no manifest"},
                     {"column": "cpu", "level": "CPU only", "provenance": "given: no manifest"}],
        "rules": [{"rule": "rocm_failures_block", "level": "blocking", "reason": "1 test(s) fail on ROCm"}]}


def _named_by_plugin(jx, tmp_path, test, exemption):
    """A ROCm JUnit file where the matrix plugin skipped ``test`` (pkg.mod::name), naming ``exemption``."""
    classname, _, name = test.rpartition("::")
    xml = jx.xml(jx.ROCM, [(test, "passed")])
    opening = f'<testcase classname="{classname}" name="{name}" time="0.01">'
    path = tmp_path / "rocm.xml"
    path.write_text(xml.replace(opening, opening + '<properties><property name="exemption" value="'
                                f'{exemption}"/></properties><skipped message="x"/>'))
    return path


def test_exemption_named_by_the_plugin_unblocks_where_its_pattern_does_not_match(tmp_path, jx):
    """The plugin's record of the exemption it applied counts even when the JUnit spelling of the id
    escapes the pattern; the registry entry must still exist, be live and cover ROCm."""
    cpu = tmp_path / "cpu.xml"
    cpu.write_text(jx.xml(jx.CPU, [("tests.odd.m::t", "passed")], run_id="c"))
    rocm = _named_by_plugin(jx, tmp_path, "tests.odd.m::t", "ibverbs")
    v = report([cpu, rocm], exemptions=_registry(tmp_path)).verdict
    assert v.status == "certified" and [(e.test_id, e.exemption["id"]) for e in v.exempted] == [
        ("tests.odd.m::t", "ibverbs")]
    cuda_only = _registry(tmp_path, platforms='["cuda"]')
    assert report([cpu, rocm], exemptions=cuda_only).verdict.status == "not certified"


def test_a_live_exemption_after_an_expired_one_unblocks(write_junit, jx, tmp_path):
    """The registry is searched past an expired match: a renewed entry under a new id still applies."""
    reg = _registry(tmp_path, expires="2026-11-01")
    reg.write_text(reg.read_text() + reg.read_text().split("\n", 1)[1].replace('"ibverbs"', '"ibverbs-2"')
                   .replace("2026-11-01", "2027-03-01"))
    rocm = [GREEN[0], ("tests.rdma.m::b", "failed"), GREEN[2]]
    paths = [write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"), write_junit("rocm.xml", jx.ROCM, rocm, run_id="r")]
    v = report(paths, exemptions=reg).verdict
    assert v.status == "certified" and [e.exemption["id"] for e in v.exempted] == ["ibverbs-2"]


def test_the_given_day_decides_expiry_not_the_clock(write_junit, jx, tmp_path):
    """``today`` is the day the evidence is judged on (reproducible verdicts): an exemption that
    expired in 2021 still covers a verdict given for a day in 2020."""
    rocm = [GREEN[0], ("tests.rdma.m::b", "failed"), GREEN[2]]
    paths = [write_junit("cpu.xml", jx.CPU, GREEN, run_id="c"), write_junit("rocm.xml", jx.ROCM, rocm, run_id="r")]
    reg = _registry(tmp_path, expires="2021-01-31")
    assert report(paths, exemptions=reg, today=dt.date(2020, 6, 1)).verdict.status == "certified"
    assert report(paths, exemptions=reg, today=dt.date(2021, 2, 1)).verdict.status == "not certified"


ROCM_COLUMN = Column("rocm-7.0.2/gfx942", "rocm", "7.0.2", "gfx942")


@pytest.mark.parametrize("count,shown", [
    (1, "p0"),
    (5, "p0; p1; p2; p3; p4"),
    (6, "p0; p1; p2; p3; p4 (+1 more)"),  # the first five problems are named, the rest counted
    (7, "p0; p1; p2; p3; p4 (+2 more)"),
])
def test_incomplete_evidence_reason_names_five_problems(count, shown):
    matrix = Matrix(columns=[ROCM_COLUMN], components={}, cells={}, problems=[f"p{i}" for i in range(count)])
    assert decide(matrix, today=TODAY).reasons[0] == f"incomplete evidence: {shown}"


def test_no_rocm_run_is_the_first_reason():
    matrix = Matrix(columns=[Column("cpu", "cpu", "", "")], components={}, cells={}, problems=["cpu.xml: unreadable"])
    assert decide(matrix, today=TODAY).reasons == ["no run on ROCm", "incomplete evidence: cpu.xml: unreadable"]
