"""ci/k8s/: the manifests against the Kubernetes API schema (kubernetes-validate, strict, the
oldest version the manifests need and the newest it knows), their consistency, and the pod
scripts run here with a pod's environment (no cluster: the scheduler is simulated)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import kubernetes_validate as kv
import pytest
import yaml  # PyYAML: a dependency of kubernetes-validate (test extra)

MANIFESTS = ("matrix-job.yaml", "matrix-job-cuda.yaml", "merge-job.yaml")
OLDEST = "1.29.0"  # backoffLimitPerIndex


def _load(tools, name):
    return yaml.safe_load((tools.repo / "ci" / "k8s" / name).read_text())


def _env(container) -> dict:
    return {e["name"]: e for e in container.get("env", [])}


@pytest.mark.parametrize("name", MANIFESTS)
@pytest.mark.parametrize("version", [OLDEST, "latest"])
def test_manifests_validate_against_the_kubernetes_api_schema(tools, name, version):
    version = kv.latest_version() if version == "latest" else version
    assert kv.validate(_load(tools, name), version, strict=True)


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d["spec"].__setitem__("completionMod", d["spec"].pop("completionMode")), "completionMod"),
    (lambda d: d["spec"].__setitem__("completions", "4"), "is not of type"),
    (lambda d: d["spec"]["template"]["spec"]["containers"][0].__setitem__("resource", {}), "resource"),
])
def test_the_schema_check_rejects_a_broken_manifest(tools, mutate, message):
    doc = _load(tools, "matrix-job.yaml")
    mutate(doc)
    with pytest.raises(kv.ValidationError, match=message):
        kv.validate(doc, OLDEST, strict=True)


@pytest.mark.parametrize("name,gpu", [("matrix-job.yaml", "amd.com/gpu"), ("matrix-job-cuda.yaml", "nvidia.com/gpu")])
def test_the_indexed_job_gives_each_pod_its_shard_run_id_and_gpus(tools, name, gpu):
    spec = _load(tools, name)["spec"]
    assert spec["completionMode"] == "Indexed"
    assert spec["backoffLimitPerIndex"] == 0  # a failing shard does not stop the others
    (container,) = spec["template"]["spec"]["containers"]
    env = _env(container)
    assert int(env["PORT_SHARD_COUNT"]["value"]) == spec["completions"] == spec["parallelism"]
    assert env["PORT_MATRIX_RUN_ID"]["valueFrom"]["fieldRef"]["fieldPath"] == \
        "metadata.labels['batch.kubernetes.io/controller-uid']"
    assert container["resources"]["limits"][gpu] > 0
    assert container["command"] == ["bash", "ci/k8s/shard.sh"] and (tools.repo / "ci/k8s/shard.sh").is_file()
    merge_env = _env(_load(tools, "merge-job.yaml")["spec"]["template"]["spec"]["containers"][0])
    assert merge_env["PORT_SHARD_COUNT"]["value"] == env["PORT_SHARD_COUNT"]["value"]


def test_the_rocm_and_cuda_jobs_differ_only_in_pool(tools):
    rocm, cuda = (_load(tools, n) for n in MANIFESTS[:2])
    for doc in (rocm, cuda):
        c = doc["spec"]["template"]["spec"]["containers"][0]
        c.pop("image"), c["resources"]["limits"].clear(), doc["metadata"].pop("generateName")
        doc["spec"]["template"]["spec"]["initContainers"][0].pop("image")
    assert rocm == cuda


def _pod_env(tools, run_root, index: int, **extra: str) -> dict:
    return tools.clean_env(JOB_COMPLETION_INDEX=str(index), PORT_SHARD_COUNT="2", PORT_MATRIX_RUN_ID="uid-1234",
                           PORT_RESULTS=str(run_root), PORT_PYTHON=sys.executable, PORT_BUILD="0",
                           KUBERNETES_SERVICE_HOST="10.96.0.1", PORT_POD_NAME=f"port-matrix-rocm-x-{index}",
                           PORT_NODE_NAME="gpu-node-3", **extra)


def _shard(tools, pack, env, **kw):
    return subprocess.Popen(["bash", str(tools.repo / "ci/k8s/shard.sh"), "--matrix-dir", str(pack), "-n", "0"],
                            cwd=tools.repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            **kw)


def _merge(tools, run_root):
    env = tools.clean_env(PORT_RESULTS=str(run_root), PORT_MATRIX_RUN_ID="uid-1234", PORT_SHARD_COUNT="2",
                          PORT_PYTHON=sys.executable)
    return subprocess.run(["bash", str(tools.repo / "ci/k8s/merge.sh")], cwd=tools.repo, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_pod_scripts_run_both_shards_and_merge_them(tools, pack, tmp_path):
    for index in (0, 1):
        proc = _shard(tools, pack, _pod_env(tools, tmp_path, index))
        out, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0, out
        assert f"shard {index + 1}/2 (from JOB_COMPLETION_INDEX={index} of PORT_SHARD_COUNT=2)" in out
    merged = _merge(tools, tmp_path)
    assert merged.returncode == 3, merged.stdout + merged.stderr  # CPU only: no ROCm evidence
    parity = tools.read_parity(tmp_path / "uid-1234" / "report")
    assert parity["partial"] is False
    runs = parity["columns"][0]["runs"]
    assert sorted(r["shard"] for r in runs) == ["1/2", "2/2"] and {r["run_id"] for r in runs} == {"uid-1234"}
    assert {r["runner"] for r in runs} == {"kubernetes"}
    assert all("node gpu-node-3" in r["runner_detail"] for r in runs)
    assert len(parity["tests"]) == tools.pack_size


@pytest.mark.slow
def test_a_terminated_pod_is_an_unfinished_shard_with_partial_junit(tools, pack, tmp_path):
    """SIGTERM to the pod's PID 1 (the script), as the kubelet sends it on deletion."""
    flag = tmp_path / "holding"
    done = _shard(tools, pack, _pod_env(tools, tmp_path, 0))
    out, _ = done.communicate(timeout=600)
    assert done.returncode == 0, out
    held = _shard(tools, pack, _pod_env(tools, tmp_path, 1, PORT_TEST_HOLD_TASK="1", PORT_TEST_HOLD_FLAG=str(flag)),
                  start_new_session=True)
    try:
        for _ in range(1500):  # until the shard is inside its first test (hang guard)
            if flag.exists() or held.poll() is not None:
                break
            time.sleep(0.2)
        assert flag.exists(), "the held shard never started its tests"
        os.kill(held.pid, signal.SIGTERM)  # only the script, as the kubelet does to PID 1
        out, _ = held.communicate(timeout=120)
    finally:
        if held.poll() is None:
            os.killpg(held.pid, signal.SIGKILL)
            held.wait()
    assert held.returncode != 0, out
    run_dir = tmp_path / "uid-1234"
    assert (run_dir / "done" / "index-0").is_file() and not (run_dir / "done" / "index-1").exists()
    (partial,) = (run_dir / "junit").glob("*shard2of2.xml")
    props = {p.get("name"): p.get("value") for p in ET.parse(partial).getroot().iter("property")}
    assert props["port.complete"] == "false" and "SIGTERM" in props["port.incomplete_reason"]
    merged = _merge(tools, tmp_path)
    parity = tools.read_parity(run_dir / "report")
    assert parity["partial"] is True and parity["verdict"]["status"] != "certified"
    assert any("shard 2/2 (completion index 1) did not finish" in r for r in parity["partial_reasons"])
    assert merged.returncode in (1, 3)
