"""Kubernetes manifests for `port soak` across pods: the Lighthouse as a Deployment (one pod, which
also writes the run's spec, drives the fault schedule and writes soak.json) behind a Service with
a fixed port, and the replica groups as an Indexed Job (pod ``k`` is replica group ``k``, from
``JOB_COMPLETION_INDEX``). Every pod mounts the results volume (ReadWriteMany) as the shared run
directory, and the source volume as ``ci/k8s`` does; a pod's address is its IP (downward API).

``python -m porting.soak.k8s --replicas 3 --run-id ID [--image IMG] [-- SOAK OPTIONS]`` prints a
``v1/List`` as JSON (``kubectl create -f -`` takes it). Validated against the Kubernetes schema
by tests/soak/test_k8s_soak.py.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from typing import Any

from ..errors import UsageError

LIGHTHOUSE_PORT = 29510
RESULTS = "/results"
LABELS = {"app.kubernetes.io/name": "rocm-port", "app.kubernetes.io/component": "soak"}
SETUP = ("python3 -m pip install -q --disable-pip-version-check -e . 'torchft==0.2.0' 'torchmonarch==0.7.0'"
         " && ")


def _pod_env(run_id: str, extra: dict[str, str] | None = None) -> list[dict[str, Any]]:
    env: list[dict[str, Any]] = [
        {"name": "PORT_SOAK_ADDRESS", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
        {"name": "PORT_SOAK_RUN_ID", "value": run_id},
        {"name": "PORT_SOAK_SCHEDULER", "value": "kubernetes"},
    ]
    return env + [{"name": k, "value": v} for k, v in (extra or {}).items()]


def _pod(name: str, script: str, env: list[dict[str, Any]], image: str, restart: str,
         ports: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": name, "image": image, "workingDir": "/work", "command": ["bash", "-c"], "args": [SETUP + script],
        "env": env, "resources": {"requests": {"cpu": "1", "memory": "2Gi"}},
        "volumeMounts": [{"name": "work", "mountPath": "/work"}, {"name": "results", "mountPath": RESULTS}]}
    if ports:
        container["ports"] = ports
    return {
        "restartPolicy": restart,
        "initContainers": [{"name": "source", "image": image, "command": ["cp", "-a", "/src/.", "/work/"],
                            "volumeMounts": [{"name": "src", "mountPath": "/src", "readOnly": True},
                                             {"name": "work", "mountPath": "/work"}]}],
        "containers": [container],
        "volumes": [{"name": "src", "persistentVolumeClaim": {"claimName": "rocm-port-src", "readOnly": True}},
                    {"name": "work", "emptyDir": {}},
                    {"name": "results", "persistentVolumeClaim": {"claimName": "rocm-port-results"}}]}


def _check_options(replicas: int, options: list[str]) -> None:
    """The soak options, refused now (as the pods would) rather than in a pod."""
    from ..commands.soak import add_arguments, spec_from_args

    parser = argparse.ArgumentParser(prog="port soak (kubernetes)", exit_on_error=False)
    add_arguments(parser)
    try:
        args = parser.parse_args([*options, "--replicas", str(replicas)])
    except (argparse.ArgumentError, SystemExit) as exc:
        raise UsageError(f"soak options {options}: {exc}") from None
    if args.hosts:
        raise UsageError("--hosts: simulated hosts are for one machine; on a cluster every pod is a host")
    spec_from_args(args)


def manifests(replicas: int, run_id: str, options: list[str], image: str = "python:3.11-slim") -> list[dict[str, Any]]:
    """Deployment + Service of the Lighthouse, Indexed Job of ``replicas`` replica groups."""
    if replicas < 2:
        raise UsageError(f"--replicas: need at least 2 replica groups, got {replicas}")
    if not re.fullmatch(r"[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?", run_id):
        raise UsageError(f"--run-id {run_id!r}: lower-case letters, digits and '-', at most 32 (a DNS label)")
    _check_options(replicas, options)
    name = f"port-soak-{run_id}"
    run_dir = f"{RESULTS}/soak-{run_id}"
    selector = {**LABELS, "port.soak/run": run_id, "port.soak/role": "lighthouse"}
    service_url = f"http://{name}-lighthouse:{LIGHTHOUSE_PORT}"
    spec_cmd = shlex.join(["python3", "-m", "porting.soak.cluster", "spec", run_dir, "--replicas", str(replicas),
                           *options])
    # after the soak the pod idles rather than exit: a Deployment would restart it into a new run
    lighthouse_script = (f"{spec_cmd} && python3 -m porting.soak.cluster lighthouse {run_dir}; "
                         "echo \"soak finished: $?\"; exec sleep infinity")
    lighthouse_env = _pod_env(run_id, {"PORT_SOAK_LIGHTHOUSE_PORT": str(LIGHTHOUSE_PORT),
                                       "PORT_SOAK_LIGHTHOUSE_URL": service_url})
    deployment = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": f"{name}-lighthouse", "labels": selector},
        "spec": {"replicas": 1, "selector": {"matchLabels": selector}, "strategy": {"type": "Recreate"},
                 "template": {"metadata": {"labels": selector},
                              "spec": _pod("lighthouse", lighthouse_script, lighthouse_env, image, "Always",
                                           [{"name": "lighthouse", "containerPort": LIGHTHOUSE_PORT}])}}}
    service = {
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": f"{name}-lighthouse", "labels": selector},
        "spec": {"selector": selector, "ports": [{"name": "lighthouse", "port": LIGHTHOUSE_PORT,
                                                  "targetPort": "lighthouse", "protocol": "TCP"}]}}
    replica_labels = {**LABELS, "port.soak/run": run_id, "port.soak/role": "replica"}
    job = {
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": f"{name}-replicas", "labels": replica_labels},
        "spec": {"completionMode": "Indexed", "completions": replicas, "parallelism": replicas,
                 "backoffLimitPerIndex": 0, "maxFailedIndexes": replicas, "ttlSecondsAfterFinished": 604800,
                 "template": {"metadata": {"labels": replica_labels},
                              "spec": _pod("replica", f"exec python3 -m porting.soak.cluster replica {run_dir}",
                                           _pod_env(run_id), image, "Never")}}}
    return [deployment, service, job]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m porting.soak.k8s", description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, required=True)
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--image", default="python:3.11-slim")
    parser.add_argument("options", nargs=argparse.REMAINDER, help="`port soak` options, after --")
    args = parser.parse_args(argv)
    options = args.options[1:] if args.options[:1] == ["--"] else args.options
    try:
        items = manifests(args.replicas, args.run_id, options, args.image)
    except UsageError as exc:
        print(f"port soak k8s: {exc}", file=sys.stderr)
        return 2
    json.dump({"apiVersion": "v1", "kind": "List", "items": items}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
