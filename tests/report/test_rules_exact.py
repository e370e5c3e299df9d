"""Each verdict rule (porting/report/rules.py) on hand-built matrices, one branch per test, with
the exact reason and records it must give.

The end-to-end tests (test_verdict.py, test_verdict_holes.py) go through JUnit files and assert
the status; these pin what a user reads beside it. They were written against the mutants that
survived `ci/mutation verdict` (README "Mutation testing"): each asserts a behaviour one of them
broke (a reason's wording, a record's fields, a branch's condition).
"""

from __future__ import annotations

import datetime as dt

import pytest

from porting.matrix.exemptions import Exemption
from porting.report import rules
from porting.report.model import (
    ERROR,
    FAILED,
    MISSING,
    PASSED,
    SKIPPED,
    XFAILED,
    XPASSED,
    Cell,
    Column,
    Matrix,
    RunInfo,
)
from porting.report.rules import BLOCKING, INCOMPLETE, NONE_ON_ROCM, Context, Finding
from porting.report.verdict import (
    CERTIFIED,
    CERTIFIED_EXTERNAL,
    INCOMPLETE_STATUS,
    NO_EVIDENCE,
    NOT_CERTIFIED,
    Blocker,
    Exempted,
    NeverCompared,
    NotExecuted,
    Verdict,
    decide,
    evidence_level,
)

TODAY = dt.date(2026, 12, 7)
GATE = (7, 0)
R, C = "rocm-7.0.2/gfx942", "cpu"


def rocm_info(file: str = "rocm.xml", **kw) -> RunInfo:
    base = dict(platform="rocm", path="native-hip", rocm_version="7.0.2", rocm_usable="true", gpu_arch="gfx942",
                torch_flavour="rocm", monarch_flavour="rocm")
    return RunInfo(file, **{**base, **kw})


def col(key: str = R, platform: str = "rocm", arch: str = "gfx942", runs: list[RunInfo] | None = None,
        problems: list[str] | None = None) -> Column:
    if runs is None:
        runs = [rocm_info() if platform == "rocm" else RunInfo(f"{key}.xml", platform)]
    return Column(key, platform, "7.0.2" if platform == "rocm" else "", arch, runs, problems or [])


def matrix(rows: dict[str, dict[str, str]], columns: list[Column], component: str = "actor",
           problems: list[str] | None = None, exemption: str = "") -> Matrix:
    cells = {t: {k: Cell(s, message=f"{s} msg", exemption=exemption) for k, s in row.items()}
             for t, row in rows.items()}
    return Matrix(columns, {t: component for t in rows}, cells, problems or [])


def ctx(m: Matrix, exemptions: list[Exemption] | None = None, min_executed: float = 1.0) -> Context:
    refs = [c for c in m.columns if c.platform == "cpu"]
    return Context(m, "cpu", refs, [c for c in m.columns if c.platform == "rocm"], GATE, "7.0",
                   exemptions or [], TODAY, min_executed)


def admitted(c: Context) -> Verdict:
    v = Verdict(NOT_CERTIFIED)
    rules.admit_rocm_runs(c, v)
    return v


def exemption(test: str, expires: str = "2027-01-31", ex_id: str = "EX-1", platforms: tuple[str, ...] = ("rocm",)):
    return Exemption(id=ex_id, pattern=test, platforms=platforms, action="skip", reason="known",
                     tracking="https://example.invalid/1", expires=dt.date.fromisoformat(expires))


# --- run_refusal: one reason per property ----------------------------------------------------

@pytest.mark.parametrize("kw, reason", [
    ({}, ""),
    ({"rocm_version": "7.0rc1"}, "ROCm version refused: "),
    ({"rocm_version": "6.4.3"}, "ROCm 6.4.3 is below 7.0"),
    ({"rocm_usable": "FALSE"}, "run says ROCm was not usable (port.rocm_usable=false)"),
    ({"rocm_usable": ""}, ""),
    ({"gpu_arch": ""}, "no GPU arch recorded: not evidence of execution on an AMD GPU"),
    ({"gpu_arch": ",,"}, "no GPU arch recorded: not evidence of execution on an AMD GPU"),
    ({"gpu_arch": "gfx942,gfx950"}, ""),
    ({"gpu_arch": "gfx942,sm_90"}, "GPU arch 'gfx942,sm_90' is not an AMD gfx target"),
    ({"gpu_arch": "gfx9_42"}, "GPU arch 'gfx9_42' is not an AMD gfx target"),
    ({"gpu_arch": "gfx942é"}, "GPU arch 'gfx942é' is not an AMD gfx target"),
    ({"gpu_arch": "gfx"}, "GPU arch 'gfx' is not an AMD gfx target"),
    ({"gpu_arch": "gfx_42"}, "GPU arch 'gfx_42' is not an AMD gfx target"),
    ({"gpu_arch": "gfx¹42"}, "GPU arch 'gfx¹42' is not an AMD gfx target"),
    ({"path": "cuda"}, "path 'cuda' is not a ROCm path: the tests ran on cuda"),
    ({"path": "cpu"}, "path 'cpu' is not a ROCm path: the tests ran on cpu"),
    ({"path": "hipified-cuda"}, ""),
    ({"path": ""}, "no port.path recorded: what was under test is unknown"),
    ({"path": "", "source": "label"}, ""),
])
def test_run_refusal_names_the_first_inconsistent_property(kw, reason):
    got = rules.run_refusal(rocm_info(**kw), GATE, "7.0")
    assert got.startswith(reason) if reason.endswith(": ") else got == reason


def test_the_version_is_checked_before_usability_and_arch():
    info = rocm_info(rocm_version="6.0", rocm_usable="false", gpu_arch="")
    assert rules.run_refusal(info, GATE, "7.0") == "ROCm 6.0 is below 7.0"
    assert rules.run_refusal(rocm_info(rocm_usable="false", gpu_arch=""), GATE, "7.0").startswith("run says")


# --- admit_rocm_runs ---------------------------------------------------------------------------

def test_a_column_is_refused_with_the_file_and_reason_of_its_first_bad_run():
    bad = col(runs=[rocm_info("a.xml"), rocm_info("b.xml", gpu_arch=""), rocm_info("c.xml", path="cuda")])
    good = col("rocm-7.0.2/gfx950", arch="gfx950")
    c = ctx(matrix({"t": {bad.key: PASSED, good.key: PASSED}}, [bad, good]))
    v = Verdict(NOT_CERTIFIED)
    assert rules.admit_rocm_runs(c, v) == [Finding(
        "admit_rocm_runs", BLOCKING,
        f"{R}: refused as ROCm evidence: b.xml: no GPU arch recorded: not evidence of execution on an AMD GPU")]
    assert c.judged == [good] and v.rocm == [good.key]


def test_no_admitted_column_adds_its_own_finding():
    bad = col(runs=[rocm_info(rocm_version="6.2")])
    c = ctx(matrix({"t": {R: PASSED}}, [bad]))
    v = Verdict(NOT_CERTIFIED)
    assert rules.admit_rocm_runs(c, v) == [
        Finding("admit_rocm_runs", BLOCKING, f"{R}: refused as ROCm evidence: rocm.xml: ROCm 6.2 is below 7.0"),
        Finding("admit_rocm_runs", BLOCKING, "no usable run on ROCm >= 7.0")]
    assert c.judged == [] and v.rocm == []


def test_no_rocm_column_at_all_is_not_an_admission_finding():
    c = ctx(matrix({"t": {C: PASSED}}, [col(C, "cpu", "")]))
    assert rules.admit_rocm_runs(c, Verdict(NOT_CERTIFIED)) == []


# --- presence rules ----------------------------------------------------------------------------

def test_presence_rules_say_what_is_absent():
    only_cpu = ctx(matrix({"t": {C: PASSED}}, [col(C, "cpu", "")]))
    assert rules.rocm_run_present(only_cpu, Verdict(NOT_CERTIFIED)) == [
        Finding("rocm_run_present", NONE_ON_ROCM, "no run on ROCm")]
    assert rules.reference_present(only_cpu, Verdict(NOT_CERTIFIED)) == []
    only_rocm = ctx(matrix({"t": {R: PASSED}}, [col()]))
    assert rules.rocm_run_present(only_rocm, Verdict(NOT_CERTIFIED)) == []
    assert rules.reference_present(only_rocm, Verdict(NOT_CERTIFIED)) == [
        Finding("reference_present", BLOCKING, "no run on the reference platform (cpu)")]


# --- _label: the reference's say about a ROCm failure --------------------------------------------

@pytest.mark.parametrize("ref, label", [
    ([PASSED], "regression"),
    ([FAILED, PASSED], "regression"),
    ([FAILED], "fails on cpu too"),
    ([ERROR], "fails on cpu too"),
    ([XFAILED], "not passed on cpu"),
    ([XPASSED], "not passed on cpu"),
    ([SKIPPED], "ROCm only (never ran on cpu)"),
    ([], "ROCm only (never ran on cpu)"),
    ([SKIPPED, XFAILED], "not passed on cpu"),
])
def test_the_reference_labels_a_rocm_failure(ref, label):
    refs = [col(f"cpu{i}", "cpu", "") for i in range(len(ref))] or [col(C, "cpu", "")]
    row = {r.key: s for r, s in zip(refs, ref)} | {R: FAILED}
    c = ctx(matrix({"t": row}, [*refs, col()]))
    v = admitted(c)
    rules.rocm_failures_block(c, v)
    assert [(b.label, b.reference) for b in v.blocking] == [(label, next((r.key for r, s in zip(refs, ref)
                                                                           if s == PASSED), ""))]


# --- rocm_failures_block / reference_passes_run_on_rocm ----------------------------------------------

def test_every_failing_status_blocks_with_its_record():
    rows = {f"t_{s}": {C: PASSED, R: s} for s in (FAILED, ERROR, XFAILED, XPASSED, PASSED, SKIPPED)}
    c = ctx(matrix(rows, [col(C, "cpu", ""), col()]))
    v = admitted(c)
    assert rules.rocm_failures_block(c, v) == [Finding("rocm_failures_block", BLOCKING, "4 test(s) fail on ROCm")]
    assert v.blocking == [Blocker(f"t_{s}", R, s, C, f"{s} msg", "", "regression")
                          for s in (ERROR, FAILED, XFAILED, XPASSED)]
    assert c.blocked_cells == {(f"t_{s}", R) for s in (ERROR, FAILED, XFAILED, XPASSED)}


def test_the_rule_counts_only_the_failures_it_blocked():
    c = ctx(matrix({"t": {C: PASSED, R: FAILED}}, [col(C, "cpu", ""), col()]))
    v = admitted(c)
    v.blocking.append(Blocker("earlier", R, SKIPPED, C))
    assert [f.reason for f in rules.rocm_failures_block(c, v)] == ["1 test(s) fail on ROCm"]


def test_no_failure_is_no_finding():
    c = ctx(matrix({"t": {C: PASSED, R: PASSED}}, [col(C, "cpu", ""), col()]))
    v = admitted(c)
    assert rules.rocm_failures_block(c, v) == [] and v.blocking == []


def test_a_live_exemption_records_the_cell_and_an_expired_one_is_named_on_the_blocker():
    live, old = exemption("t_live"), exemption("t_old", expires="2026-12-06", ex_id="EX-OLD")
    rows = {"t_live": {C: PASSED, R: FAILED}, "t_old": {C: PASSED, R: FAILED}}
    c = ctx(matrix(rows, [col(C, "cpu", ""), col()]), [live, old])
    v = admitted(c)
    assert [f.reason for f in rules.rocm_failures_block(c, v)] == ["1 test(s) fail on ROCm"]
    assert [(e.test_id, e.column, e.status, e.exemption["id"]) for e in v.exempted] == [("t_live", R, FAILED, "EX-1")]
    assert c.exempted_cells == {("t_live", R)} and c.blocked_cells == {("t_old", R)}
    assert [(b.test_id, b.note) for b in v.blocking] == [("t_old", "exemption EX-OLD expired 2026-12-06")]


def test_an_exemption_the_plugin_named_but_the_registry_lacks_is_named_on_the_blocker():
    c = ctx(matrix({"t": {C: PASSED, R: FAILED}}, [col(C, "cpu", ""), col()], exemption="EX-GONE"))
    v = admitted(c)
    rules.rocm_failures_block(c, v)
    assert [b.note for b in v.blocking] == ["exemption 'EX-GONE' is not in the registry"]


def test_skipped_or_missing_on_rocm_after_a_reference_pass_blocks_as_a_regression():
    rows = {"skip": {C: PASSED, R: SKIPPED}, "gone": {C: PASSED}, "ran": {C: PASSED, R: PASSED},
            "refskip": {C: SKIPPED, R: SKIPPED}}
    c = ctx(matrix(rows, [col(C, "cpu", ""), col()]))
    v = admitted(c)
    assert rules.reference_passes_run_on_rocm(c, v) == [Finding(
        "reference_passes_run_on_rocm", BLOCKING, "2 test(s) pass on cpu but did not run on ROCm")]
    assert [(b.test_id, b.status, b.reference, b.label, b.message) for b in v.blocking] == [
        ("gone", MISSING, C, "regression", ""), ("skip", SKIPPED, C, "regression", "skipped msg")]


def test_missing_from_an_incomplete_rocm_column_is_unknown_not_lost():
    rocm = col(problems=["shard 2/2 never reported"])
    c = ctx(matrix({"gone": {C: PASSED}, "skip": {C: PASSED, R: SKIPPED}}, [col(C, "cpu", ""), rocm]))
    v = admitted(c)
    assert [f.reason for f in rules.reference_passes_run_on_rocm(c, v)] == [
        "1 test(s) pass on cpu but did not run on ROCm"]
    assert [b.test_id for b in v.blocking] == ["skip"]


# --- executed_on_rocm ------------------------------------------------------------------------------

def test_executed_counts_applicable_tests_and_lists_what_never_ran_or_was_never_compared():
    rows = {"a": {C: PASSED, R: PASSED}, "b": {C: SKIPPED, R: PASSED}, "c": {C: PASSED, R: SKIPPED},
            "d": {R: FAILED}, "e": {C: FAILED}}
    c = ctx(matrix(rows, [col(C, "cpu", ""), col()]))
    v = admitted(c)
    rules.rocm_failures_block(c, v)
    rules.reference_passes_run_on_rocm(c, v)
    assert rules.executed_on_rocm(c, v) == [Finding(
        "executed_on_rocm", INCOMPLETE, f"{R}: 2 of 5 applicable test(s) never ran on ROCm (skipped or absent)")]
    # c is blocked (a reference pass skipped on ROCm): judged, so not listed as merely not executed
    assert v.not_executed == [NotExecuted("e", R, MISSING, "")]
    assert v.never_compared == [NeverCompared("b", R, PASSED, SKIPPED), NeverCompared("d", R, FAILED, MISSING)]


def test_the_share_that_must_execute_is_min_executed():
    rows = {f"t{i}": {C: PASSED, R: PASSED} for i in range(3)} | {"t9": {C: SKIPPED, R: SKIPPED}}
    m = matrix(rows, [col(C, "cpu", ""), col()])
    for share, findings in ((0.75, 0), (0.76, 1), (1.0, 1)):
        c = ctx(m, min_executed=share)
        v = admitted(c)
        assert len(rules.executed_on_rocm(c, v)) == findings, share
        assert v.not_executed == [NotExecuted("t9", R, SKIPPED, "skipped msg")]


def test_an_exempted_skip_is_not_applicable_and_an_expired_one_is():
    rows = {"a": {C: PASSED, R: PASSED}, "x": {C: SKIPPED, R: SKIPPED}}
    m = matrix(rows, [col(C, "cpu", ""), col()])
    c = ctx(m, [exemption("x")])
    assert rules.executed_on_rocm(c, admitted(c)) == []
    c = ctx(m, [exemption("x", expires="2026-01-01")])
    v = admitted(c)
    assert [f.reason for f in rules.executed_on_rocm(c, v)] == [
        f"{R}: 1 of 2 applicable test(s) never ran on ROCm (skipped or absent)"]
    assert v.not_executed == [NotExecuted("x", R, SKIPPED, "skipped msg")]


def test_tests_after_an_exempted_one_are_still_counted():
    rows = {"a": {C: SKIPPED, R: SKIPPED}, "b": {C: PASSED, R: PASSED}, "c": {C: SKIPPED, R: SKIPPED}}
    c = ctx(matrix(rows, [col(C, "cpu", ""), col()]), [exemption("a")])
    v = admitted(c)
    assert [f.reason for f in rules.executed_on_rocm(c, v)] == [
        f"{R}: 1 of 2 applicable test(s) never ran on ROCm (skipped or absent)"]
    assert v.not_executed == [NotExecuted("c", R, SKIPPED, "skipped msg")]


def test_an_exemption_for_another_platform_leaves_the_skip_applicable():
    c = ctx(matrix({"x": {C: SKIPPED, R: SKIPPED}}, [col(C, "cpu", ""), col()]),
            [exemption("x", platforms=("cuda",))])
    assert [f.level for f in rules.executed_on_rocm(c, admitted(c))] == [INCOMPLETE]


def test_an_exempted_failure_is_not_applicable():
    c = ctx(matrix({"a": {C: PASSED, R: PASSED}, "x": {C: PASSED, R: FAILED}}, [col(C, "cpu", ""), col()]),
            [exemption("x")])
    v = admitted(c)
    rules.rocm_failures_block(c, v)
    assert rules.executed_on_rocm(c, v) == [] and v.not_executed == [] and v.never_compared == []


def test_a_blocked_skip_still_counts_as_not_executed_but_is_not_listed_twice():
    # blocked by reference_passes_run_on_rocm: applicable, not executed, listed as a blocker only
    c = ctx(matrix({"a": {C: PASSED, R: SKIPPED}}, [col(C, "cpu", ""), col()], exemption="EX-NAMED"),
            [exemption("other-test", ex_id="EX-NAMED")])
    v = admitted(c)
    rules.reference_passes_run_on_rocm(c, v)
    assert [(e.test_id, e.exemption["id"]) for e in v.exempted] == [("a", "EX-NAMED")]
    assert rules.executed_on_rocm(c, v) == [] and v.not_executed == []


# --- components_built_for_rocm ------------------------------------------------------------------------

@pytest.mark.parametrize("need, kw, problem", [
    ("path", {}, ""),
    ("path", {"path": "hipified-cuda"}, ""),
    ("path", {"path": "cuda"}, "native code was built for path cuda"),
    ("path", {"path": ""}, "native code was built for path ?"),
    ("path", {"path": "", "source": "label"}, ""),
    ("monarch", {}, ""),
    ("monarch", {"monarch_flavour": "cuda"}, "torchmonarch is a cuda build on rocm.xml"),
    ("monarch", {"monarch_flavour": ""}, "torchmonarch is of an unrecorded build on rocm.xml"),
    ("monarch", {"torch_flavour": "cuda"}, ""),
    ("torch", {"torch_flavour": "cuda"}, "torch is a cuda build on rocm.xml"),
    ("torch", {"torch_flavour": "none"}, "torch is a none build on rocm.xml"),
    ("torch", {"torch_flavour": ""}, "torch is of an unrecorded build on rocm.xml"),
    ("torch", {"monarch_flavour": "cuda"}, ""),
])
def test_flavour_problem(need, kw, problem):
    assert rules._flavour_problem(need, rocm_info(**kw)) == problem


def test_each_component_is_judged_on_its_own_needs():
    info = rocm_info(monarch_flavour="cuda")
    rocm = col(runs=[info])
    m = Matrix([col(C, "cpu", ""), rocm], {"a": "actor", "s": "sharding", "n": "native", "o": "other"},
               {t: {C: Cell(PASSED), R: Cell(PASSED)} for t in "asno"})
    c = ctx(m)
    v = admitted(c)
    assert rules.components_built_for_rocm(c, v) == [Finding(
        "components_built_for_rocm", BLOCKING,
        "component actor not certifiable: torchmonarch is a cuda build on rocm.xml")]
    assert v.components == {"actor": "not certifiable: torchmonarch is a cuda build on rocm.xml",
                            "native": "certifiable", "other": "certifiable", "sharding": "certifiable"}


def test_components_without_an_admitted_run_are_not_certifiable_without_a_finding():
    c = ctx(matrix({"t": {C: PASSED, R: PASSED}}, [col(C, "cpu", ""), col(runs=[rocm_info(gpu_arch="")])],
                   component="sharding"))
    v = admitted(c)
    assert rules.components_built_for_rocm(c, v) == []
    assert v.components == {"sharding": "not certifiable: no admitted ROCm run"}


def test_the_first_run_with_a_problem_names_it():
    runs = [rocm_info("a.xml"), rocm_info("b.xml", torch_flavour="cuda"), rocm_info("c.xml", torch_flavour="")]
    c = ctx(matrix({"t": {C: PASSED, R: PASSED}}, [col(C, "cpu", ""), col(runs=runs)], component="sharding"))
    v = admitted(c)
    rules.components_built_for_rocm(c, v)
    assert v.components == {"sharding": "not certifiable: torch is a cuda build on b.xml"}


# --- evidence_complete -------------------------------------------------------------------------------

@pytest.mark.parametrize("n, tail", [(1, ""), (5, ""), (6, " (+1 more)"), (9, " (+4 more)")])
def test_incomplete_evidence_names_at_most_five_problems(n, tail):
    m = matrix({"t": {R: PASSED}}, [col(problems=[f"p{i}" for i in range(n - 1)])], problems=["unreadable x.xml"])
    shown = ["unreadable x.xml", *[f"{R}: p{i}" for i in range(n - 1)]][:5]
    assert rules.evidence_complete(ctx(m), Verdict(NOT_CERTIFIED)) == [
        Finding("evidence_complete", INCOMPLETE, "incomplete evidence: " + "; ".join(shown) + tail)]


def test_complete_evidence_is_no_finding():
    assert rules.evidence_complete(ctx(matrix({"t": {R: PASSED}}, [col()])), Verdict(NOT_CERTIFIED)) == []


# --- verdict.py: the fold and the evidence levels ----------------------------------------------------

def test_every_run_made_elsewhere_certifies_on_external_evidence_naming_the_provenance():
    runs = [rocm_info("a.xml", external=True, provenance="signed by K1"),
            rocm_info("b.xml", external=True)]
    m = matrix({"t": {C: PASSED, R: PASSED}}, [col(C, "cpu", ""), col(runs=runs)])
    v = decide(m, today=TODAY)
    assert v.status == CERTIFIED_EXTERNAL and v.exit_code == 5
    assert v.reasons == ["every admitted ROCm run was made elsewhere: signed by K1, unverified"]


def test_one_run_made_here_certifies_plainly():
    runs = [rocm_info("a.xml", external=True, provenance="signed by K1"), rocm_info("b.xml")]
    v = decide(matrix({"t": {C: PASSED, R: PASSED}}, [col(C, "cpu", ""), col(runs=runs)]), today=TODAY)
    assert (v.status, v.reasons, v.exit_code) == (CERTIFIED, [], 0)


@pytest.mark.parametrize("rows, columns, status", [
    ({"t": {C: PASSED}}, "cpu", NO_EVIDENCE),
    ({"t": {C: PASSED, R: FAILED}}, "both", NOT_CERTIFIED),
    ({"t": {C: SKIPPED, R: SKIPPED}}, "both", INCOMPLETE_STATUS),
    ({"t": {R: PASSED}}, "rocm", NOT_CERTIFIED),
])
def test_the_fold_orders_no_evidence_blocking_incomplete(rows, columns, status):
    cols = {"cpu": [col(C, "cpu", "")], "rocm": [col()], "both": [col(C, "cpu", ""), col()]}[columns]
    v = decide(matrix(rows, cols), today=TODAY)
    assert v.status == status
    assert v.reasons == [f.reason for f in v.findings]


def test_no_evidence_wins_over_blocking_and_incomplete():
    m = matrix({"t": {C: PASSED}}, [col(C, "cpu", "", problems=["truncated"])])
    v = decide(m, reference="cuda", today=TODAY)
    assert {f.level for f in v.findings} == {NONE_ON_ROCM, INCOMPLETE, BLOCKING}
    assert v.status == NO_EVIDENCE


def test_blocking_wins_over_incomplete():
    m = matrix({"t": {C: PASSED, R: FAILED}, "u": {C: SKIPPED, R: SKIPPED}}, [col(C, "cpu", ""), col()])
    v = decide(m, today=TODAY)
    assert {f.level for f in v.findings} == {BLOCKING, INCOMPLETE} and v.status == NOT_CERTIFIED


@pytest.mark.parametrize("platform, judged, level", [
    ("rocm", True, "executed on an AMD GPU (gfx942)"),
    ("rocm", False, "refused as ROCm GPU evidence"),
    ("cuda", False, "executed on an NVIDIA GPU (sm_90)"),
    ("cpu", False, "CPU only"),
    ("", False, "CPU only"),
])
def test_evidence_level(platform, judged, level):
    c = col("k", platform, "sm_90" if platform == "cuda" else "gfx942",
            runs=[RunInfo("a.xml", platform), RunInfo("b.xml", platform, external=True, provenance="signed by K"),
                  RunInfo("c.xml", platform, external=True)])
    assert evidence_level(c, judged) == {
        "column": "k", "level": level,
        "provenance": "given: not checked, made elsewhere: not checked, made elsewhere: signed by K"}


def test_a_cuda_column_without_an_arch_says_so():
    assert evidence_level(col("k", "cuda", ""), False)["level"] == "executed on an NVIDIA GPU (arch?)"


def test_decide_records_evidence_for_every_column_in_matrix_order():
    refused = col("rocm-6.2/gfx90a", runs=[rocm_info(rocm_version="6.2")])
    m = matrix({"t": {C: PASSED, R: PASSED}}, [col(C, "cpu", ""), col(), refused])
    v = decide(m, today=TODAY)
    assert [(e["column"], e["level"]) for e in v.evidence] == [
        (C, "CPU only"), (R, "executed on an AMD GPU (gfx942)"), ("rocm-6.2/gfx90a", "refused as ROCm GPU evidence")]
    assert v.rocm == [R] and v.reference == [C]


def test_exempted_records_round_trip_to_json():
    e = Exempted("t", R, FAILED, {"id": "EX-1"})
    assert e.to_json() == {"test_id": "t", "column": R, "status": FAILED, "exemption": {"id": "EX-1"}}
