"""The Kubernetes launch of `port soak` (porting/soak/k8s.py): the generated Deployment, Service
and Indexed Job against the Kubernetes API schema (kubernetes-validate, strict, as ci/k8s's are),
their consistency, and the refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from porting.errors import UsageError
from porting.soak.k8s import LIGHTHOUSE_PORT, manifests

kv = pytest.importorskip("kubernetes_validate")
OLDEST = "1.29.0"  # backoffLimitPerIndex / maxFailedIndexes
REPO = Path(__file__).resolve().parents[2]


def _items():
    return manifests(3, "run-7", ["--duration", "120", "--faults", "kill,raise"])


@pytest.mark.parametrize("version", [OLDEST, "latest"])
def test_every_generated_manifest_validates_against_the_api_schema(version):
    version = kv.latest_version() if version == "latest" else version
    for doc in _items():
        assert kv.validate(doc, version, strict=True), doc["kind"]


def test_a_broken_manifest_is_rejected_by_the_same_check():
    deployment = _items()[0]
    deployment["spec"]["template"]["spec"]["containers"][0]["port"] = []  # misspelt "ports"
    with pytest.raises(kv.ValidationError, match="port"):
        kv.validate(deployment, OLDEST, strict=True)


def test_the_service_selects_the_lighthouse_pod_and_the_job_indexes_replicas():
    deployment, service, job = _items()
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    (lh,) = deployment["spec"]["template"]["spec"]["containers"]
    assert lh["ports"] == [{"name": "lighthouse", "containerPort": LIGHTHOUSE_PORT}]
    env = {e["name"]: e for e in lh["env"]}
    assert env["PORT_SOAK_LIGHTHOUSE_URL"]["value"] == \
        f"http://{service['metadata']['name']}:{service['spec']['ports'][0]['port']}"
    assert env["PORT_SOAK_ADDRESS"]["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP"
    assert "porting.soak.cluster spec /results/soak-run-7 --replicas 3 --duration 120" in lh["args"][0]
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed" and spec["completions"] == spec["parallelism"] == 3
    (rep,) = spec["template"]["spec"]["containers"]
    assert "porting.soak.cluster replica /results/soak-run-7" in rep["args"][0]
    assert (REPO / "porting" / "soak" / "cluster.py").is_file()


@pytest.mark.parametrize("replicas, run_id, options, message", [
    (1, "r1", [], "--replicas"),
    (3, "Bad_ID", [], "--run-id"),
    (3, "r1", ["--hosts", "2"], "--hosts"),
    (3, "r1", ["--faults", "partition"], "--faults"),
    (3, "r1", ["--duration", "10"], "--duration"),
])
def test_options_that_cannot_run_are_refused_before_any_pod(replicas, run_id, options, message):
    with pytest.raises(UsageError, match=message):
        manifests(replicas, run_id, options)


def test_the_command_line_prints_a_list_kubectl_reads():
    done = subprocess.run([sys.executable, "-m", "porting.soak.k8s", "--replicas", "2", "--run-id", "x1", "--",
                           "--duration", "60"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["kind"] == "List" and [i["kind"] for i in data["items"]] == ["Deployment", "Service", "Job"]
    bad = subprocess.run([sys.executable, "-m", "porting.soak.k8s", "--replicas", "1", "--run-id", "x1"],
                         capture_output=True, text=True, cwd=REPO, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--replicas" in bad.stderr
