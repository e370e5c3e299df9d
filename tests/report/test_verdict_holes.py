"""Issue 23: each way the verdict was fooled into CERTIFIED, exit 0, as a hand-built input.

Every test builds the input made to break one rule (docs/report.md, "Verdict rules") and runs
it through `port report A.xml B.xml` (the CLI: exit code, one line, no traceback) or the API.
"""

from __future__ import annotations

import datetime as dt

import pytest

from porting.cli import main
from porting.report import build_report

TODAY = dt.date(2026, 11, 29)
CPU_ROCM_PAIR = ("tests.native.m::test_read[host]", "tests.native.m::test_read[device]")


def report(paths, **kw):
    kw.setdefault("today", TODAY)
    return build_report([str(p) for p in paths], **kw)


def cli(capsys, *args) -> tuple[int, str, str]:
    rc = main(["report", *map(str, args)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


def test_hole1_rocm_failure_the_reference_never_ran_blocks(write_junit, jx, tmp_path, capsys):
    """CPU reference skipped the device case; ROCm failed it: a ROCm failure blocks whatever the
    reference did ("never compared" must not hide it)."""
    host, device = CPU_ROCM_PAIR
    cpu = write_junit("cpu.xml", jx.CPU, [(host, "passed"), (device, "skipped", "no GPU")], run_id="c")
    rocm = write_junit("rocm.xml", jx.ROCM, [(host, "passed"), (device, "failed", "hipErrorIllegalAddress")],
                       run_id="r")
    rc, out, _ = cli(capsys, cpu, rocm, "--out", tmp_path / "o")
    assert rc == 1 and out.startswith("verdict: not certified")
    v = report([cpu, rocm]).verdict
    assert [(b.test_id, b.label) for b in v.blocking] == [(device, "ROCm only (never ran on cpu)")]


def test_hole2_four_of_five_failing_with_a_one_test_reference(write_junit, jx, tmp_path, capsys):
    cuda = write_junit("cuda.xml", jx.CUDA, [("tests.actor.m::t0", "passed")], run_id="g")
    rocm = write_junit("rocm.xml", jx.ROCM, [("tests.actor.m::t0", "passed"),
                                             *[(f"tests.actor.m::t{i}", "failed") for i in range(1, 5)]], run_id="r")
    rc, out, _ = cli(capsys, cuda, rocm, "--out", tmp_path / "o")
    assert rc == 1 and "4 blocking" in out
    assert len(report([cuda, rocm]).verdict.blocking) == 4


def test_hole3_a_failure_cuda_shares_blocks_without_an_exemption(write_junit, jx):
    cases = [("tests.actor.m::ok", "passed"), ("tests.actor.m::both", "failed")]
    v = report([write_junit("cuda.xml", jx.CUDA, cases, run_id="g"),
                write_junit("rocm.xml", jx.ROCM, cases, run_id="r")]).verdict
    assert v.status == "not certified"
    assert [(b.test_id, b.label) for b in v.blocking] == [("tests.actor.m::both", "fails on cuda too")]


@pytest.mark.parametrize("flavours,blocked,certifiable", [
    ({"port.monarch_flavour": "cuda"}, ["actor", "rdma", "supervision", "tensor_engine"], ["sharding"]),
    ({"port.torch_flavour": "cuda"}, ["actor", "rdma", "sharding", "supervision", "tensor_engine"], []),
    ({"port.monarch_flavour": ""}, ["actor", "rdma", "supervision", "tensor_engine"], ["sharding"]),
])
def test_hole4_the_wrong_build_makes_its_components_not_certifiable(write_junit, jx, tmp_path, capsys, flavours,
                                                                   blocked, certifiable):
    cases = [(f"test_matrix.{c}.test_x::t", "passed") for c in ("actor", "rdma", "supervision", "tensor_engine",
                                                                   "sharding")]
    cpu = write_junit("cpu.xml", jx.CPU, cases, run_id="c")
    rocm = write_junit("rocm.xml", dict(jx.ROCM, **flavours), cases, run_id="r")
    rc, out, _ = cli(capsys, cpu, rocm, "--out", tmp_path / "o")
    assert rc == 1 and "not certifiable" in out
    comps = report([cpu, rocm]).verdict.components
    assert sorted(c for c, s in comps.items() if s.startswith("not certifiable")) == blocked
    assert sorted(c for c, s in comps.items() if s == "certifiable") == certifiable


def test_hole4_monarch_tests_alone_do_not_certify_over_a_cuda_torch(write_junit, jx):
    # found by hypothesis (test_verdict_properties): only actor cases, torchmonarch a ROCm build,
    # torch a CUDA one; torchmonarch loads the torch it is built against, so this is no ROCm run
    cases = [("tests.actor.m::t0", "passed")]
    v = report([write_junit("cpu.xml", jx.CPU, cases, run_id="c"),
                write_junit("rocm.xml", dict(jx.ROCM, **{"port.torch_flavour": "cuda"}), cases,
                            run_id="r")]).verdict
    assert v.status == "not certified"
    assert list(v.components) == ["actor"]
    assert v.components["actor"].startswith("not certifiable: torch is a cuda build on ")


@pytest.mark.parametrize("version", ["7.0.0-rc1", "7_0", "7..0", "7.0-6.0", "7.\u0660", "7", "", "7.0.", ".7.0",
                                     "7.0 ", "7.0\n1", "v7.0", "7.0.0.0", "7.0,1", "+7.0", "\u0667.0"])
def test_hole6_versions_that_are_not_a_released_rocm_are_refused(write_junit, jx, version):
    rocm = dict(jx.ROCM, **{"port.rocm_version": version})
    cases = [("tests.actor.m::a", "passed")]
    v = report([write_junit("cpu.xml", jx.CPU, cases, run_id="c"), write_junit("rocm.xml", rocm, cases,
                                                                               run_id="r")]).verdict
    if version.strip() in ("7.0",):  # the reader strips blanks around a property value: a real 7.0
        assert v.status == "certified"
        return
    assert v.status == "not certified" and v.rocm == []
    assert any("ROCm version refused" in r or "refused as ROCm evidence" in r for r in v.reasons), v.reasons


@pytest.mark.parametrize("bad", ["7.0.0-rc1", "7_0", "7..0", "7.0-6.0", "7.\u0660"])
def test_hole6_the_same_parser_gates_min_rocm_in_report_and_detect(write_junit, jx, tmp_path, capsys, bad):
    from porting.config import load_config
    from porting.errors import ConfigError
    from porting.plan import make_plan

    cpu = write_junit("cpu.xml", jx.CPU, [("t.a::x", "passed")], run_id="c")
    rc, _, err = cli(capsys, cpu, "--min-rocm", bad, "--out", tmp_path / "o")
    assert rc == 2 and err.count("\n") == 1 and "min_rocm" in err
    config = load_config(cli={"min_rocm": bad}, env={}, project_dir=tmp_path)
    with pytest.raises(ConfigError, match="min_rocm"):  # the gate is read before the machine is looked at
        make_plan(None, config, tmp_path)  # type: ignore[arg-type]


@pytest.mark.parametrize("props,why", [
    ({"port.gpu_arch": ""}, "no GPU arch recorded"),
    ({"port.path": "cpu"}, "is not a ROCm path"),
    ({"port.gpu_arch": "sm_90"}, "is not an AMD gfx target"),
    ({"port.path": ""}, "no port.path recorded"),
    ({"port.rocm_usable": "false"}, "not usable"),
])
def test_hole7_a_rocm_run_without_gpu_arch_or_on_the_cpu_path_is_not_rocm_evidence(write_junit, jx, props, why):
    cases = [("tests.actor.m::a", "passed")]
    v = report([write_junit("cpu.xml", jx.CPU, cases, run_id="c"),
                write_junit("rocm.xml", dict(jx.ROCM, **props), cases, run_id="r")]).verdict
    assert v.status == "not certified" and v.rocm == []
    assert any(why in r for r in v.reasons), v.reasons
    assert all(e["level"] != "executed on an AMD GPU" for e in v.evidence)


def test_hole8_a_huge_shard_count_is_a_bounded_problem(write_junit, jx, tmp_path, capsys):
    cases = [("tests.actor.m::a", "passed")]
    cpu = write_junit("cpu.xml", jx.CPU, cases, run_id="c")
    rocm = write_junit("rocm.xml", jx.ROCM, cases, run_id="r", shard="1/100000000000")
    rc, out, _ = cli(capsys, cpu, rocm, "--out", tmp_path / "o")
    assert rc == 4 and "incomplete" in out
    assert any("bad port.shard '1/100000000000'" in p for p in report([cpu, rocm]).matrix.partial_reasons())


@pytest.mark.parametrize("env", [
    {"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "1000000000000"},
    {"JOB_COMPLETION_INDEX": "0", "PORT_SHARD_COUNT": "1000000000000"},
])
def test_hole8_the_scheduler_shard_count_is_bounded(env):
    from porting.errors import UsageError
    from porting.matrix.scheduler import K8S_COUNT_ENV, shard_from_env

    env = {(K8S_COUNT_ENV if k == "PORT_SHARD_COUNT" else k): v for k, v in env.items()}
    with pytest.raises(UsageError, match="at most 10000 shards"):
        shard_from_env(env)


def test_hole8_shard_flag_is_bounded():
    from porting.errors import UsageError
    from porting.matrix.selection import parse_shard

    assert parse_shard("10000/10000") == (10000, 10000)
    with pytest.raises(UsageError, match="at most 10000 shards"):
        parse_shard("1/10001")


def test_missing_shard_is_incomplete_with_its_own_exit_code(write_junit, jx, tmp_path, capsys):
    cases = [("tests.actor.m::a", "passed"), ("tests.actor.m::b", "passed")]
    cpu = write_junit("cpu.xml", jx.CPU, cases, run_id="c")
    shard1 = write_junit("r1.xml", jx.ROCM, cases[:1], run_id="r", shard="1/3")
    shard3 = write_junit("r3.xml", jx.ROCM, cases[1:], run_id="r", shard="3/3")
    rc, out, _ = cli(capsys, cpu, shard1, shard3, "--out", tmp_path / "o")
    assert rc == 4 and out.startswith("verdict: incomplete")
    assert any("missing shard(s) 2/3" in r for r in report([cpu, shard1, shard3]).verdict.reasons)


def test_a_test_skipped_on_rocm_is_incomplete_not_certified(write_junit, jx):
    """CERTIFIED needs execution: a case collected for ROCm but skipped there (both platforms
    skipped it: nothing compared) makes the verdict INCOMPLETE, N of M never ran; a configured
    share below 1 admits it."""
    cases = [("tests.actor.m::a", "passed"), ("tests.actor.m::gpu", "skipped")]
    paths = [write_junit("cpu.xml", jx.CPU, cases, run_id="c"), write_junit("rocm.xml", jx.ROCM, cases, run_id="r")]
    v = report(paths).verdict
    assert v.status == "incomplete" and v.exit_code == 4
    assert any("1 of 2 applicable test(s) never ran on ROCm" in r for r in v.reasons)
    assert [(n.test_id, n.status) for n in v.not_executed] == [("tests.actor.m::gpu", "skipped")]
    from porting.report.verdict import decide
    assert decide(report(paths).matrix, today=TODAY, min_executed=0.5).status == "certified"


@pytest.mark.parametrize("percent,rc", [("100", 4), ("50", 0), ("150", 2), ("-1", 2)])
def test_the_executed_share_is_configured(write_junit, jx, tmp_path, capsys, monkeypatch, percent, rc):
    cases = [("tests.actor.m::a", "passed"), ("tests.actor.m::gpu", "skipped")]
    paths = [write_junit("cpu.xml", jx.CPU, cases, run_id="c"), write_junit("rocm.xml", jx.ROCM, cases, run_id="r")]
    monkeypatch.setenv("PORT_REPORT_MIN_EXECUTED_PERCENT", percent)
    got, _, err = cli(capsys, *paths, "--out", tmp_path / "o")
    assert got == rc
    if rc == 2:
        assert "report.min_executed_percent" in err and err.count("\n") == 1
