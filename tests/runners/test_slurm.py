"""ci/slurm/ on a real single-node Slurm cluster (slurmctld + slurmd + munged, started by the
``slurm_cluster`` fixture): a 2-task array runs `port matrix` shards, the merge job
(``--dependency=afterany``) runs `port report`; a cancelled task is a missing shard."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest

CUDA_REFERENCE = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="1">
<properties><property name="port.platform" value="cuda"/><property name="port.cuda_version" value="13.0"/>
<property name="port.host" value="h100-node-4"/><property name="port.run_id" value="cuda-fleet-9"/>
<property name="port.shard" value="1/1"/><property name="port.collected" value="1"/></properties>
<testcase classname="pack.test_small" name="test_skipped" time="0.1"/></testsuite></testsuites>"""


def _submit(cluster, tools, pack, results, *extra: str, **env: str) -> dict[str, str]:
    run_env = tools.clean_env(PORT_PYTHON=sys.executable, **env)
    run_env["SLURM_CONF"] = str(cluster.conf)
    out = subprocess.run([str(tools.repo / "ci" / "slurm" / "submit"), "--shards", "2", "--no-build",
                          "--workers", "0", "--results", str(results), *extra, "--", "--matrix-dir", str(pack)],
                         cwd=tools.repo, env=run_env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    fields = dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)
    assert set(fields) == {"array_job", "merge_job", "report"}, out.stdout
    return fields


def _exit_code(cluster, job: str) -> str:
    text = cluster.run(["scontrol", "show", "job", job]).stdout
    m = re.search(r"\bExitCode=(\d+):(\d+)", text)
    assert m, text
    return m.group(1)


@pytest.mark.slow
def test_array_shards_and_the_merge_job_make_one_report(slurm_cluster, tools, pack, tmp_path):
    reference = tmp_path / "cuda-fleet"  # JUnit of a reference run made elsewhere, merged in too
    reference.mkdir()
    (reference / "matrix-cuda-fleet-shard1of1.xml").write_text(CUDA_REFERENCE)
    fields = _submit(slurm_cluster, tools, pack, tmp_path / "results", "--report-arg", str(reference))
    array, merge = fields["array_job"], fields["merge_job"]
    tools.wait_for_queue_empty(slurm_cluster, [array, merge])
    logs = tmp_path / "results" / "logs"
    task_logs = {i: (logs / f"slurm-{array}_{i}.out").read_text() for i in (0, 1)}
    # `port matrix` took its shard from the array task and said so
    assert "shard 1/2 (from SLURM_ARRAY_TASK_ID=0 of SLURM_ARRAY_TASK_COUNT=2)" in task_logs[0]
    assert "shard 2/2 (from SLURM_ARRAY_TASK_ID=1 of SLURM_ARRAY_TASK_COUNT=2)" in task_logs[1]
    assert _exit_code(slurm_cluster, merge) == "3"  # the verdict's exit: CPU only, no ROCm evidence

    parity = tools.read_parity(tmp_path / "results" / f"slurm-{array}" / "report")
    assert parity["partial"] is False, parity["partial_reasons"]
    cuda, col = parity["columns"]  # ordered: cuda (the reference), then this cluster's cpu column
    assert parity["reference"] == "cuda" and cuda["runs"][0]["host"] == "h100-node-4"
    runs = sorted(col["runs"], key=lambda r: r["shard"])
    assert [r["shard"] for r in runs] == ["1/2", "2/2"]
    assert {r["run_id"] for r in runs} == {f"slurm-porttest-{array}"}
    assert {r["runner"] for r in runs} == {"slurm"}
    assert f"job {array}_0 " in runs[0]["runner_detail"] and f"job {array}_1 " in runs[1]["runner_detail"]
    assert all(r["timestamp"] for r in runs)
    assert len(parity["tests"]) == tools.pack_size  # the reference's one case is one of them
    counts = parity["totals"][col["key"]]["*"]
    assert (counts["passed"], counts["skipped"], counts["xfailed"], counts["missing"]) == (4, 1, 1, 0)
    md = (tmp_path / "results" / f"slurm-{array}" / "report" / "parity.md").read_text()
    assert f"slurm: job {array}\\_0" in md  # the Runs table says which job made each column's evidence


@pytest.mark.slow
def test_a_cancelled_task_is_a_missing_shard_never_passed(slurm_cluster, tools, pack, tmp_path):
    flag = tmp_path / "holding"
    fields = _submit(slurm_cluster, tools, pack, tmp_path / "results",
                     PORT_TEST_HOLD_TASK="1", PORT_TEST_HOLD_FLAG=str(flag))
    array, merge = fields["array_job"], fields["merge_job"]
    tools.wait_for_queue_empty(slurm_cluster, [f"{array}_0"])
    for _ in range(1500):  # until task 1 is inside its first test (hang guard, not a timing check)
        if flag.exists():
            break
        time.sleep(0.2)
    assert flag.exists(), "task 1 never started its tests"
    slurm_cluster.run(["scancel", f"{array}_1"])
    tools.wait_for_queue_empty(slurm_cluster, [array, merge])

    run_dir = tmp_path / "results" / f"slurm-{array}"
    assert (run_dir / "done" / "task-0").is_file() and not (run_dir / "done" / "task-1").exists()
    parity = tools.read_parity(run_dir / "report")
    assert parity["partial"] is True
    reasons = " | ".join(parity["partial_reasons"])
    assert f"shard 2/2 (Slurm task {array}_1) did not finish" in reasons
    assert parity["verdict"]["status"] != "certified"
    assert any(r.startswith("incomplete evidence") for r in parity["verdict"]["reasons"])
    # Only shard 1's cases can have passed: everything shard 2 held is missing or interrupted.
    shard1 = next(r for c in parity["columns"] for r in c["runs"] if r["shard"] == "1/2")
    key = parity["columns"][0]["key"]
    passed = [t["id"] for t in parity["tests"] if t["results"].get(key, {}).get("status") == "passed"]
    assert len(passed) <= shard1["tests"] < tools.pack_size
    shard2 = [r for c in parity["columns"] for r in c["runs"] if r["shard"] == "2/2"]
    for run in shard2:  # the JUnit port wrote on SIGTERM, if it got that far, says it is partial
        assert run["problems"], run


@pytest.mark.parametrize("args,message", [
    (["--shards", "0", "--results", "R"], "--shards 0: expected a positive integer"),
    (["--shards", "2"], "--results DIR is required"),
    (["--gpus-per-task", "many", "--results", "R"], "--gpus-per-task many"),
    (["--bogus"], "unknown argument --bogus"),
])
def test_submit_refuses_bad_arguments_before_submitting_anything(tools, tmp_path, args, message):
    args = [str(tmp_path / "results") if a == "R" else a for a in args]
    proc = subprocess.run([str(tools.repo / "ci" / "slurm" / "submit"), *args], cwd=tools.repo,
                          env=tools.clean_env(SLURM_CONF=str(tmp_path / "no-such.conf")),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "results").exists()
