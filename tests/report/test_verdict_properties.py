"""Property tests over random sets of runs: whenever the verdict is CERTIFIED, every rule of
docs/report.md holds (hypothesis builds the runs; the rules are re-checked here from scratch,
not through porting.report.rules)."""

from __future__ import annotations

import datetime as dt

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from porting.registry import platform_of_path
from porting.report.matrix_builder import build_matrix
from porting.report.model import RAN, Case, Run, RunInfo
from porting.report.verdict import CERTIFIED, decide
from porting.versions import VersionRefused, compare, parse_release

TESTS = [f"tests.{comp}.m::t{i}" for comp in ("actor", "rdma", "sharding", "native") for i in range(2)]
STATUS = st.sampled_from(["passed", "passed", "passed", "failed", "error", "skipped", "xfailed", "xpassed"])
VERSIONS = st.sampled_from(["7.0.2", "7.1.0", "7.0", "6.4.1", "7.0.0-rc1", "7_0", "7..0", "7.\u0660", "", "8.0"])


@st.composite
def run(draw, index: int) -> Run:
    platform = draw(st.sampled_from(["rocm", "rocm", "cpu", "cuda"]))
    info = RunInfo(file=f"run{index}.xml", platform=platform, run_id=f"r{index}", shard="1/1")
    if platform == "rocm":
        info.rocm_version = draw(VERSIONS)
        info.rocm_usable = draw(st.sampled_from(["true", "false", ""]))
        info.gpu_arch = draw(st.sampled_from(["gfx942", "gfx942", "", "sm_90", "gfx950"]))
        info.path = draw(st.sampled_from(["native-hip", "hipified-cuda", "cpu", ""]))
        info.torch_flavour = draw(st.sampled_from(["rocm", "rocm", "cuda", ""]))
        info.monarch_flavour = draw(st.sampled_from(["rocm", "rocm", "cuda", "none"]))
    elif platform == "cuda":
        info.cuda_version, info.gpu_arch, info.path = "13.0", "sm_90", "cuda"
    else:
        info.path = "cpu"
    if draw(st.booleans()) and draw(st.booleans()):
        info.problems.append("run incomplete")
    ids = draw(st.lists(st.sampled_from(TESTS), min_size=1, max_size=len(TESTS), unique=True))
    r = Run(info=info)
    for test_id in ids:
        r.cases[test_id] = Case(test_id, test_id.split(".")[1], draw(STATUS))
    info.tests = len(r.cases)
    return r


@st.composite
def runs(draw) -> list[Run]:
    n = draw(st.integers(min_value=1, max_value=4))
    return [draw(run(i)) for i in range(n)]


# What each component exercises (docs/report.md, components_built_for_rocm), restated here:
# Monarch's components load torchmonarch and the torch it is built against.
NEEDS = {"actor": ("monarch", "torch"), "rdma": ("monarch", "torch"), "sharding": ("torch",),
         "native": ("path",)}


def _admissible(info: RunInfo, components: set[str]) -> bool:
    try:
        version = parse_release(info.rocm_version)
    except VersionRefused:
        return False
    builds = {"monarch": info.monarch_flavour == "rocm", "torch": info.torch_flavour == "rocm", "path": True}
    return (compare(version, ">=", (7, 0)) and info.rocm_usable != "false" and info.gpu_arch.startswith("gfx")
            and platform_of_path(info.path) == "rocm"
            and all(builds[need] for comp in components for need in NEEDS[comp]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs())
def test_certified_implies_every_rule(rs):
    matrix = build_matrix(rs)
    v = decide(matrix, today=dt.date(2026, 11, 29))
    if v.status != CERTIFIED:
        return
    assert not matrix.partial  # evidence_complete
    rocm = [c for c in matrix.columns if c.platform == "rocm"]
    assert rocm and v.rocm == [c.key for c in rocm]  # rocm_run_present; none refused (admit_rocm_runs)
    components = set(matrix.components.values())
    assert all(_admissible(r, components) for c in rocm for r in c.runs)  # admission + components_built_for_rocm
    assert v.reference and all(c.platform in ("cuda", "cpu") for c in matrix.columns if c.key in v.reference)
    for col in rocm:
        for test_id in matrix.cells:
            status = matrix.cell(test_id, col.key).status
            assert status == "passed", (test_id, col.key, status)  # no failure, and executed (no exemptions here)
    assert v.blocking == [] and v.not_executed == []


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs())
def test_a_failure_on_an_admitted_rocm_run_never_certifies(rs):
    matrix = build_matrix(rs)
    v = decide(matrix, today=dt.date(2026, 11, 29))
    failing = any(matrix.cell(t, k).status in ("failed", "error", "xfailed", "xpassed")
                  for k in v.rocm for t in matrix.cells)
    if failing:
        assert v.status == "not certified" and v.exit_code == 1
    ran = any(matrix.cell(t, k).status in RAN for k in v.rocm for t in matrix.cells)
    if v.status == CERTIFIED:
        assert ran


ADMISSIBLE = RunInfo(file="rocm.xml", platform="rocm", path="native-hip", rocm_version="7.0.2", rocm_usable="true",
                     gpu_arch="gfx942", torch_flavour="rocm", monarch_flavour="rocm", run_id="r", shard="1/1")


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(TESTS), STATUS, min_size=1),
       st.dictionaries(st.sampled_from(TESTS), STATUS, min_size=1))
def test_on_admissible_runs_certified_exactly_when_every_test_passed_on_rocm(cpu_statuses, rocm_statuses):
    """The biconditional on runs whose fingerprints are all admissible: CERTIFIED iff every test
    of the matrix passed on ROCm, whatever the reference did with it."""
    cpu = Run(RunInfo(file="cpu.xml", platform="cpu", path="cpu", run_id="c", shard="1/1"),
              {t: Case(t, t.split(".")[1], s) for t, s in cpu_statuses.items()})
    rocm = Run(RunInfo(**{**ADMISSIBLE.__dict__, "problems": [], "warnings": []}),
               {t: Case(t, t.split(".")[1], s) for t, s in rocm_statuses.items()})
    v = decide(build_matrix([cpu, rocm]), today=dt.date(2026, 11, 29))
    every_passed = set(rocm_statuses) >= set(cpu_statuses) and all(s == "passed" for s in rocm_statuses.values())
    assert (v.status == CERTIFIED) == every_passed, (v.status, v.reasons)
