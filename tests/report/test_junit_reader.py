"""Reading JUnit from real producers, and every kind of bad input, into a Run."""

from __future__ import annotations

import pytest

from porting.report.junit_reader import default_component, parse_label, read_run


def test_real_pytest_output_maps_every_outcome(real_pytest_junit):
    run = read_run(real_pytest_junit, label="cpu")
    status = {cid.rpartition("::")[2]: c.status for cid, c in run.cases.items()}
    assert status == {"test_pass": "passed", "test_fail": "failed", "test_error": "error", "test_skip": "skipped",
                      "test_xfail": "xfailed", "test_xpass_strict": "xpassed", "test_param[1]": "passed",
                      "test_param[2]": "passed"}
    fail = next(c for cid, c in run.cases.items() if cid.endswith("::test_fail"))
    assert "<script>alert(1)</script>" in fail.message and "\n" not in fail.message
    assert fail.component == "actor"  # tests.actor.test_outcomes -> actor
    assert run.info.platform == "cpu" and run.info.source == "label" and run.info.problems == []


def test_properties_give_the_platform(write_junit, jx):
    path = write_junit("r.xml", jx.ROCM, [("tests.actor.t::a", "passed", "", 1.5, "actor")])
    run = read_run(path)
    assert (run.info.platform, run.info.rocm_version, run.info.gpu_arch) == ("rocm", "7.0.2", "gfx942")
    case = run.cases["tests.actor.t::a"]
    assert (case.status, case.duration, case.component) == ("passed", 1.5, "actor")
    assert run.info.problems == [] and run.info.complete


def test_label_overrides_platform_but_keeps_other_properties(write_junit, jx):
    path = write_junit("r.xml", jx.CPU, [("a::b", "passed")])
    run = read_run(path, label="rocm-7.1/gfx90a")
    assert (run.info.platform, run.info.rocm_version, run.info.gpu_arch) == ("rocm", "7.1", "gfx90a")
    assert run.info.run_id == "r1"


@pytest.mark.parametrize("label,expected", [
    ("cpu", {"platform": "cpu", "gpu_arch": ""}),
    ("cuda-13.0/sm_90", {"platform": "cuda", "cuda_version": "13.0", "gpu_arch": "sm_90"}),
    ("ROCm:7.0.2", {"platform": "rocm", "rocm_version": "7.0.2", "rocm_usable": "true", "gpu_arch": ""}),
])
def test_parse_label(label, expected):
    assert parse_label(label) == expected


@pytest.mark.parametrize("label", ["", "gpu", "rocm-", "rocm 7", "cuda-13.0/sm 90"])
def test_parse_label_rejects(label):
    with pytest.raises(ValueError):
        parse_label(label)


def test_cargo_nextest_and_ctest_shapes(tmp_path):
    nextest = tmp_path / "nextest.xml"
    nextest.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><testsuites name="nextest-run" tests="2" failures="1">'
        '<testsuite name="hip_aliases" tests="2" failures="1">'
        '<testcase name="tests::maps_malloc" classname="hip_aliases" time="0.002"/>'
        '<testcase name="tests::maps_free" classname="hip_aliases" time="0.003">'
        '<failure type="test failure">thread panicked at src/lib.rs:10</failure></testcase>'
        "</testsuite></testsuites>")
    ctest = tmp_path / "ctest.xml"
    ctest.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><testsuite name="Linux-c++" tests="2" failures="0" skipped="1">'
        '<testcase name="native_add" classname="native_add" time="0.1" status="run"/>'
        '<testcase name="native_gpu" classname="native_gpu" time="0" status="notrun">'
        '<skipped message="Disabled"/></testcase></testsuite>')
    n = read_run(nextest, "cuda-13.0")
    assert {k: c.status for k, c in n.cases.items()} == {"hip_aliases::tests::maps_free": "failed",
                                                          "hip_aliases::tests::maps_malloc": "passed"}
    assert n.cases["hip_aliases::tests::maps_free"].message == "thread panicked at src/lib.rs:10"
    assert n.cases["hip_aliases::tests::maps_free"].component == "hip_aliases"
    c = read_run(ctest, "cpu")
    assert {k: c.status for k, c in c.cases.items()} == {"native_add::native_add": "passed",
                                                          "native_gpu::native_gpu": "skipped"}


def test_nested_testsuites_are_read(tmp_path):
    path = tmp_path / "nested.xml"
    path.write_text('<testsuites><testsuite name="outer"><testsuite name="inner">'
                    '<testcase classname="x" name="deep"><error message="e"/></testcase>'
                    '</testsuite><testcase classname="x" name="top"/></testsuite></testsuites>')
    run = read_run(path, "cpu")
    assert {k: c.status for k, c in run.cases.items()} == {"x::deep": "error", "x::top": "passed"}


def test_without_properties_or_label_platform_is_unknown(write_junit):
    run = read_run(write_junit("r.xml", None, [("a::b", "passed")]))
    assert run.info.platform == "" and run.info.source == "none"


@pytest.mark.parametrize("content,needle", [
    (b"", "empty file"),
    (b"   \n", "empty file"),
    (b"this is not xml", "not XML"),
    (b"<html><body>hello</body></html>", "not JUnit XML (root element <html>"),
    (b'<?xml version="1.0"?><testsuites></testsuites>', "zero tests"),
])
def test_unusable_files_become_problems(tmp_path, content, needle):
    path = tmp_path / "bad.xml"
    path.write_bytes(content)
    run = read_run(path, "rocm-7.0")
    assert not run.cases
    assert any(needle in p for p in run.info.problems), run.info.problems


def test_missing_file_is_a_problem(tmp_path):
    run = read_run(tmp_path / "nope.xml")
    assert run.info.problems and "cannot read" in run.info.problems[0]


def test_truncated_file_keeps_finished_cases_and_drops_the_cut_one(tmp_path, jx):
    text = jx.xml(jx.ROCM, [("m::a", "passed"), ("m::b", "passed"), ("m::c", "failed", "boom")])
    cut = text.index('<failure')  # m::c is cut before its failure element: its outcome is unknown
    path = tmp_path / "trunc.xml"
    path.write_text(text[:cut])
    run = read_run(path)
    assert set(run.cases) == {"m::a", "m::b"}
    assert run.info.platform == "rocm"
    assert any("truncated or malformed XML" in p for p in run.info.problems)


def test_mixed_encodings_are_replaced_not_fatal(tmp_path, jx):
    text = jx.xml(jx.CPU, [("m::a", "failed", "MARKER"), ("m::b", "passed")])
    data = text.encode("utf-8").replace(b"MARKER", b"caf\xe9 \xff latin-1 and \xe2\x9c\x93 utf-8 \x1b[31m")
    path = tmp_path / "mixed.xml"
    path.write_bytes(data)
    run = read_run(path)
    assert run.cases["m::a"].status == "failed" and run.cases["m::b"].status == "passed"
    assert "\ufffd" in run.cases["m::a"].message and "✓ utf-8" in run.cases["m::a"].message
    assert run.info.problems == []
    assert any("U+FFFD" in w for w in run.info.warnings)


def test_duplicate_ids_keep_the_worse_outcome_and_are_a_problem(write_junit, jx):
    run = read_run(write_junit("d.xml", jx.CPU, [("m::a", "failed", "x"), ("m::a", "passed"), ("m::b", "passed")]))
    assert run.cases["m::a"].status == "failed"
    assert any("1 duplicate test ids" in p for p in run.info.problems)


def test_incomplete_flags_from_the_plugin(write_junit, jx):
    run = read_run(write_junit("i.xml", jx.ROCM, [("m::a", "passed")], complete=False))
    assert any("run incomplete" in p for p in run.info.problems)
    run = read_run(write_junit("c.xml", jx.ROCM, [("m::a", "passed")], collected=5))
    assert any("collected 5 tests but only 1 reported" in p for p in run.info.problems)
    # the other way round, the file's cases contradict its own run: cases added after the run
    run = read_run(write_junit("d.xml", jx.ROCM, [("m::a", "passed"), ("m::b", "passed")], collected=1))
    assert "reports 2 tests but collected only 1" in run.info.problems


def test_crashed_xdist_worker_is_a_problem(write_junit, jx):
    msg = "worker 'gw1' crashed while running 'tests/a.py::test_x'"
    run = read_run(write_junit("w.xml", jx.ROCM, [("m::a", "passed"), ("m::x", "error", msg)]))
    assert any("crashed xdist worker" in p for p in run.info.problems)


def test_bad_durations_are_zero(tmp_path):
    path = tmp_path / "t.xml"
    path.write_text('<testsuite><testcase classname="a" name="b" time="nan"/>'
                    '<testcase classname="a" name="c" time="-3"/><testcase classname="a" name="d" time="x"/>'
                    "</testsuite>")
    run = read_run(path, "cpu")
    assert [c.duration for c in run.cases.values()] == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("test_id,component", [
    ("tests.rdma.test_x::t", "rdma"), ("tests/actor/test_y.py::t", "actor"), ("hip_aliases::tests::x", "hip_aliases"),
    ("native_add::native_add", "native_add"), ("plain", "plain"), ("", "(none)"),
])
def test_default_component(test_id, component):
    assert default_component(test_id) == component


@pytest.mark.slow
def test_file_of_200k_cases(tmp_path, jx):
    cases = [(f"tests.c{i % 7}.mod::t{i}", "passed" if i % 1000 else "failed") for i in range(200_000)]
    path = tmp_path / "big.xml"
    path.write_text(jx.xml(jx.ROCM, cases))
    run = read_run(path)
    assert len(run.cases) == 200_000 and run.info.problems == []
    assert sum(c.status == "failed" for c in run.cases.values()) == 200


def test_nameless_testcases_are_not_duplicates(tmp_path):
    path = tmp_path / "n.xml"
    path.write_text('<testsuite name="pytest"><testcase classname="a" name="b"/><testcase time="0.001"/>'
                    '<testcase time="0.001"/><testcase><error message="session teardown failed"/></testcase>'
                    "</testsuite>")
    run = read_run(path, "cpu")
    assert run.info.problems == []
    assert sorted(run.cases) == ["a::b", "pytest::(unnamed 2)"]
    assert run.cases["pytest::(unnamed 2)"].status == "error"
    assert "2 nameless passing" in run.info.warnings[0]


@pytest.mark.parametrize("platform,torch,monarch,flagged", [
    ("rocm", "rocm", "cuda", ["torchmonarch is a cuda build on a rocm run"]),  # PyPI's torchmonarch on ROCm
    ("rocm", "cuda", "rocm", ["torch is a cuda build on a rocm run"]),
    ("rocm", "cpu", "none", ["torch is a cpu build on a rocm run"]),
    ("rocm", "rocm", "rocm", []),
    ("cuda", "cuda", "cuda", []),
    ("cpu", "cuda", "cuda", []),  # a CPU run makes no GPU claim for either build
])
def test_a_gpu_run_with_another_platforms_build_is_flagged(write_junit, jx, platform, torch, monarch, flagged):
    props = {**{"rocm": jx.ROCM, "cuda": jx.CUDA, "cpu": jx.CPU}[platform], "port.torch_flavour": torch,
             "port.monarch_version": "0.7.0", "port.monarch_flavour": monarch}
    run = read_run(write_junit("r.xml", props, [("t::a", "passed")]))
    assert run.info.monarch_flavour == monarch and run.info.torch_flavour == torch
    assert [w.split(":")[0] for w in run.info.warnings] == flagged
