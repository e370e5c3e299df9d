"""The shard, run id and runner provenance a job takes from its scheduler's environment."""

from __future__ import annotations

import pytest

from porting.errors import UsageError
from porting.matrix.scheduler import runner_properties, shard_from_env
from porting.matrix.selection import parse_shard, select


def _slurm(task: int, count: int, low: int = 0, step: int = 1, **extra: str) -> dict[str, str]:
    env = {"SLURM_ARRAY_TASK_ID": str(task), "SLURM_ARRAY_TASK_COUNT": str(count),
           "SLURM_ARRAY_TASK_MIN": str(low), "SLURM_ARRAY_TASK_MAX": str(low + step * (count - 1)),
           "SLURM_ARRAY_TASK_STEP": str(step), "SLURM_ARRAY_JOB_ID": "4411", "SLURM_CLUSTER_NAME": "mi300"}
    env.update(extra)
    return env


def test_outside_a_scheduler_there_is_no_shard():
    assert shard_from_env({"HOME": "/root"}) is None


@pytest.mark.parametrize("low,step", [(0, 1), (1, 1), (10, 2)])
def test_every_task_of_a_slurm_array_is_a_distinct_shard(low, step):
    specs = [shard_from_env(_slurm(low + i * step, 4, low, step)) for i in range(4)]
    assert [s.spec for s in specs] == ["1/4", "2/4", "3/4", "4/4"]
    assert {s.run_id for s in specs} == {"slurm-mi300-4411"}
    assert "SLURM_ARRAY_TASK_ID" in specs[0].source
    # the shards partition the cases: each in exactly one
    ids = [f"t::{i}" for i in range(23)]
    chosen = [select(ids, *parse_shard(s.spec)) for s in specs]
    assert sorted(sum(chosen, [])) == sorted(ids)


@pytest.mark.parametrize("env,match", [
    (_slurm(5, 4), "not one of a regular array"),
    ({"SLURM_ARRAY_TASK_ID": "1"}, "without SLURM_ARRAY_TASK_COUNT"),
    (_slurm(1, 2, SLURM_ARRAY_TASK_COUNT="two"), "SLURM_ARRAY_TASK_COUNT='two'"),
    ({**_slurm(0, 2), "JOB_COMPLETION_INDEX": "0"}, "both"),
    ({"JOB_COMPLETION_INDEX": "1"}, "PORT_SHARD_COUNT"),
    ({"JOB_COMPLETION_INDEX": "3", "PORT_SHARD_COUNT": "3"}, "not below"),
])
def test_inconsistent_scheduler_variables_are_usage_errors(env, match):
    with pytest.raises(UsageError, match=match):
        shard_from_env(env)


def test_kubernetes_completion_index_is_zero_based():
    got = [shard_from_env({"JOB_COMPLETION_INDEX": str(i), "PORT_SHARD_COUNT": "3"}) for i in range(3)]
    assert [g.spec for g in got] == ["1/3", "2/3", "3/3"]
    assert got[0].run_id is None  # the manifest supplies PORT_MATRIX_RUN_ID from the Job's uid


def test_runner_provenance_per_scheduler():
    gh = runner_properties({"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "99",
                            "GITHUB_RUN_ATTEMPT": "2", "GITHUB_JOB": "shard", "RUNNER_NAME": "mi300-07"})
    assert gh["port.runner"] == "github-actions"
    assert gh["port.runner_detail"] == ("https://github.com/o/r/actions/runs/99 attempt 2, job shard, "
                                        "runner mi300-07")
    slurm = runner_properties({**_slurm(1, 2), "SLURM_JOB_ID": "4413", "SLURM_JOB_PARTITION": "gpu",
                               "SLURM_JOB_NODELIST": "n[01]"})
    assert slurm == {"port.runner": "slurm", "port.runner_detail":
                     "job 4411_1 (id 4413) on cluster mi300, partition gpu, nodes n[01]"}
    k8s = runner_properties({"KUBERNETES_SERVICE_HOST": "10.0.0.1", "HOSTNAME": "port-matrix-1-abcde",
                             "JOB_COMPLETION_INDEX": "1", "PORT_NODE_NAME": "gpu-node-3"})
    assert k8s["port.runner"] == "kubernetes"
    assert k8s["port.runner_detail"] == "pod port-matrix-1-abcde, completion index 1, node gpu-node-3"
    assert runner_properties({}) == {"port.runner": "local", "port.runner_detail": ""}


def test_port_matrix_takes_the_kubernetes_shard_and_says_so(tools, pack, tmp_path):
    env = tools.clean_env(JOB_COMPLETION_INDEX="1", PORT_SHARD_COUNT="2", PORT_MATRIX_RUN_ID="job-uid-1",
                          KUBERNETES_SERVICE_HOST="10.0.0.1", HOSTNAME="port-matrix-1-xyz")
    proc = tools.port("matrix", "--matrix-dir", str(pack), "--junit", str(tmp_path / "j"), "-n", "0", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "port matrix: shard 2/2 (from JOB_COMPLETION_INDEX=1 of PORT_SHARD_COUNT=2)" in proc.stdout
    (junit,) = (tmp_path / "j").glob("*.xml")
    assert junit.name == "matrix-job-uid-1-shard2of2.xml"
    from porting.report.junit_reader import read_run

    info = read_run(junit).info
    assert (info.shard, info.run_id, info.runner) == ("2/2", "job-uid-1", "kubernetes")
    assert "pod port-matrix-1-xyz" in info.runner_detail and info.timestamp


def test_a_kubernetes_shard_without_a_run_id_is_refused_before_pytest(tools, pack, tmp_path):
    env = tools.clean_env(JOB_COMPLETION_INDEX="0", PORT_SHARD_COUNT="2")
    proc = tools.port("matrix", "--matrix-dir", str(pack), "--junit", str(tmp_path / "j"), env=env)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "PORT_MATRIX_RUN_ID" in lines[0], proc.stderr
    assert not (tmp_path / "j").exists()
