"""GPU visibility and the matrix's device scheduling: which GPUs a run may use, and which of
them each pytest-xdist worker gets.

Visibility (what the runtimes do with the variables):

* NVIDIA: ``CUDA_VISIBLE_DEVICES`` lists the devices a process sees, in that order; the list
  ends at the first entry that names no device (so ``-1`` or ``""`` hides every GPU).
* AMD: ``ROCR_VISIBLE_DEVICES`` filters the physical devices first (ROCr runtime); then
  ``HIP_VISIBLE_DEVICES`` (or, if unset, ``CUDA_VISIBLE_DEVICES``, which HIP honours too)
  indexes into what ROCr left.

Scheduling: a case with N ranks needs N devices, and xdist workers must never share one
(each would build its own communicators on the same GPUs). So the controller gives each
worker a disjoint set through the worker's visibility variable and, where the host has too
few GPUs for every requested worker to get a full rank pool, runs fewer workers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

VISIBILITY_VARS = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")
MAX_RANKS = 4  # the largest rank pool a matrix case uses (porting.matrix.rank_pool)


def _entries(value: str, count: int) -> list[str]:
    """The entries of a visibility list that name one of ``count`` devices, in order, up to
    the first that names none (integer indices; a UUID-like token is kept as it is)."""
    out: list[str] = []
    for raw in value.split(","):
        token = raw.strip()
        if not token:
            break
        if token.lstrip("-").isdigit():
            if not 0 <= int(token) < count or token in out:
                break
        elif token in out:
            break
        out.append(token)
    return out[:count]


@dataclass(frozen=True)
class Visibility:
    """The GPUs this process may use: ``tokens`` in the namespace of ``variable`` (setting a
    child's ``variable`` to a subset of ``tokens`` narrows it to those devices)."""

    variable: str
    tokens: tuple[str, ...]
    evidence: str

    @property
    def count(self) -> int:
        return len(self.tokens)


def visible_gpus(platform: str, physical: int, env: Mapping[str, str]) -> Visibility:
    """The devices of ``platform`` (cuda / rocm) visible to a process with ``env``."""
    if platform == "cuda":
        raw = env.get("CUDA_VISIBLE_DEVICES")
        if raw is None:
            return Visibility("CUDA_VISIBLE_DEVICES", tuple(map(str, range(physical))),
                              f"{physical} GPU(s), CUDA_VISIBLE_DEVICES unset")
        tokens = tuple(_entries(raw, physical))
        return Visibility("CUDA_VISIBLE_DEVICES", tokens,
                          f"CUDA_VISIBLE_DEVICES={raw!r} -> {len(tokens)} of {physical} GPU(s)")
    if platform == "rocm":
        rocr = env.get("ROCR_VISIBLE_DEVICES")
        after_rocr = physical if rocr is None else len(_entries(rocr, physical))
        notes = [f"ROCR_VISIBLE_DEVICES={rocr!r} -> {after_rocr}" if rocr is not None else "ROCR_VISIBLE_DEVICES unset"]
        variable = "HIP_VISIBLE_DEVICES" if "HIP_VISIBLE_DEVICES" in env or "CUDA_VISIBLE_DEVICES" not in env \
            else "CUDA_VISIBLE_DEVICES"
        raw = env.get(variable)
        tokens = tuple(map(str, range(after_rocr))) if raw is None else tuple(_entries(raw, after_rocr))
        notes.append(f"{variable}={raw!r} -> {len(tokens)}" if raw is not None else f"{variable} unset")
        return Visibility(variable, tokens, f"{physical} GPU(s); " + "; ".join(notes))
    return Visibility("CUDA_VISIBLE_DEVICES", (), f"platform {platform}: no GPUs")


def worker_count(requested: int, gpus: int, max_ranks: int = MAX_RANKS) -> int:
    """How many xdist workers a GPU host runs: each needs ``min(gpus, max_ranks)`` devices of
    its own, so that the largest rank pool that fits the host fits every worker."""
    if gpus <= 0:
        return max(1, requested)
    need = min(gpus, max_ranks)
    return max(1, min(requested, gpus // need))


def assign(vis: Visibility, workers: int) -> list[tuple[str, ...]]:
    """Disjoint, equal device sets for ``workers`` workers (leftover devices stay idle)."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if vis.count == 0:
        return [() for _ in range(workers)]
    per = vis.count // workers
    if per < 1:
        raise ValueError(f"{workers} workers for {vis.count} GPU(s): use worker_count() first")
    return [vis.tokens[i * per:(i + 1) * per] for i in range(workers)]


def worker_env(vis: Visibility, devices: Sequence[str]) -> dict[str, str]:
    """The visibility variable a worker process is started with for ``devices``."""
    return {vis.variable: ",".join(devices)}
