"""What a job scheduler tells a matrix job through its environment.

One place reads the variables of the engines the runners in ``ci/`` use (Slurm job arrays,
Kubernetes Indexed Jobs, GitHub Actions): which shard this job is, the id that ties the
shards of one run together, and the runner's provenance that the report shows per column.
Each function takes the environment as an argument (the caller passes ``os.environ``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import UsageError
from ..junit_contract import MAX_SHARDS

# Kubernetes gives a pod its completion index but not the Job's completion count:
# the manifest (ci/k8s/) sets this from the same number as ``spec.completions``.
K8S_COUNT_ENV = "PORT_SHARD_COUNT"


@dataclass(frozen=True)
class SchedulerShard:
    spec: str  # "I/N", 1-based, what --shard takes
    source: str  # the variables it came from, for the log line
    run_id: str | None  # the id every shard of this scheduler run shares, when the scheduler gives one


def _int(env: Mapping[str, str], name: str) -> int:
    raw = env.get(name, "")
    try:
        return int(raw)
    except ValueError:
        raise UsageError(f"environment variable {name}={raw!r}: expected an integer") from None


def _slurm(env: Mapping[str, str]) -> SchedulerShard:
    """Array task -> shard: task ids may start anywhere and step (``--array=0-6:2``)."""
    task, count = _int(env, "SLURM_ARRAY_TASK_ID"), _int(env, "SLURM_ARRAY_TASK_COUNT")
    low = _int(env, "SLURM_ARRAY_TASK_MIN") if env.get("SLURM_ARRAY_TASK_MIN") else 0
    step = _int(env, "SLURM_ARRAY_TASK_STEP") if env.get("SLURM_ARRAY_TASK_STEP") else 1
    high = _int(env, "SLURM_ARRAY_TASK_MAX") if env.get("SLURM_ARRAY_TASK_MAX") else low + step * (count - 1)
    if count < 1 or step < 1 or (task - low) % step or not low <= task <= high or (high - low) // step + 1 != count:
        raise UsageError(f"Slurm array task {task} of {count} (ids {low}-{high}:{step}) is not one of a regular "
                         f"array: submit the matrix as --array=0-{max(count, 1) - 1} (see ci/slurm/)")
    if count > MAX_SHARDS:
        raise UsageError(f"SLURM_ARRAY_TASK_COUNT={count}: at most {MAX_SHARDS} shards (port.shard I/N)")
    index = (task - low) // step + 1
    job = env.get("SLURM_ARRAY_JOB_ID", "").strip()
    cluster = env.get("SLURM_CLUSTER_NAME", "").strip()
    run_id = f"slurm-{cluster + '-' if cluster else ''}{job}" if job else None
    return SchedulerShard(f"{index}/{count}", f"SLURM_ARRAY_TASK_ID={task} of SLURM_ARRAY_TASK_COUNT={count}", run_id)


def _k8s(env: Mapping[str, str]) -> SchedulerShard:
    index = _int(env, "JOB_COMPLETION_INDEX")
    if not env.get(K8S_COUNT_ENV):
        raise UsageError(f"JOB_COMPLETION_INDEX={index} but {K8S_COUNT_ENV} (the Job's completions) is not set: "
                         f"set it in the pod template (see ci/k8s/matrix-job.yaml) or pass --shard")
    count = _int(env, K8S_COUNT_ENV)
    if count > MAX_SHARDS:
        raise UsageError(f"{K8S_COUNT_ENV}={count}: at most {MAX_SHARDS} shards (port.shard I/N)")
    if count < 1 or not 0 <= index < count:
        raise UsageError(f"JOB_COMPLETION_INDEX={index} is not below {K8S_COUNT_ENV}={count}")
    return SchedulerShard(f"{index + 1}/{count}", f"JOB_COMPLETION_INDEX={index} of {K8S_COUNT_ENV}={count}", None)


def shard_from_env(env: Mapping[str, str]) -> SchedulerShard | None:
    """The shard a Slurm array task or a Kubernetes Indexed Job pod is, or None outside both."""
    slurm = bool(env.get("SLURM_ARRAY_TASK_ID"))
    k8s = bool(env.get("JOB_COMPLETION_INDEX"))
    if slurm and k8s:
        raise UsageError("both SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX are set: pass --shard I/N to choose")
    if slurm:
        if not env.get("SLURM_ARRAY_TASK_COUNT"):
            raise UsageError("SLURM_ARRAY_TASK_ID is set without SLURM_ARRAY_TASK_COUNT: pass --shard I/N")
        return _slurm(env)
    return _k8s(env) if k8s else None


def runner_properties(env: Mapping[str, str]) -> dict[str, str]:
    """``port.runner`` (github-actions / slurm / kubernetes / local) and ``port.runner_detail``:
    which job of which run on which runner produced a JUnit file, for the report's provenance."""
    def get(name: str) -> str:
        return env.get(name, "").strip()

    if get("GITHUB_ACTIONS") == "true":
        url = f"{get('GITHUB_SERVER_URL') or 'https://github.com'}/{get('GITHUB_REPOSITORY')}/actions/runs/{get('GITHUB_RUN_ID')}"
        detail = (f"{url} attempt {get('GITHUB_RUN_ATTEMPT') or '1'}, job {get('GITHUB_JOB') or '?'}, "
                  f"runner {get('RUNNER_NAME') or '?'}")
        return {"port.runner": "github-actions", "port.runner_detail": detail}
    if get("SLURM_JOB_ID"):
        job = (f"{get('SLURM_ARRAY_JOB_ID')}_{get('SLURM_ARRAY_TASK_ID')}" if get("SLURM_ARRAY_JOB_ID")
               else get("SLURM_JOB_ID"))
        detail = (f"job {job} (id {get('SLURM_JOB_ID')}) on cluster {get('SLURM_CLUSTER_NAME') or '?'}, "
                  f"partition {get('SLURM_JOB_PARTITION') or '?'}, nodes {get('SLURM_JOB_NODELIST') or '?'}")
        return {"port.runner": "slurm", "port.runner_detail": detail}
    if get("KUBERNETES_SERVICE_HOST"):
        detail = (f"pod {get('PORT_POD_NAME') or get('HOSTNAME') or '?'}"
                  + (f" in namespace {get('PORT_POD_NAMESPACE')}" if get("PORT_POD_NAMESPACE") else "")
                  + (f", completion index {get('JOB_COMPLETION_INDEX')}" if get("JOB_COMPLETION_INDEX") else "")
                  + (f", node {get('PORT_NODE_NAME')}" if get("PORT_NODE_NAME") else ""))
        return {"port.runner": "kubernetes", "port.runner_detail": detail}
    return {"port.runner": "local", "port.runner_detail": ""}
