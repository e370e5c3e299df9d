"""Platform facts the matrix decides with, and the ``requires(...)`` marker's evaluation.

The facts come from detection (``porting.fingerprint``) once, in the controlling pytest
process, and travel to xdist workers in the ``PORT_MATRIX_FACTS`` environment variable so
that every worker skips the same tests for the same reason.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from ..versions import parse_version

FACTS_ENV = "PORT_MATRIX_FACTS"
DEVICE_KINDS = ("any", "cpu", "gpu", "cuda", "rocm")
RDMA_KINDS = ("any", "ibverbs", "tcp")


@dataclass
class Facts:
    """What this host can run, as detection reports it."""

    properties: dict[str, str] = field(default_factory=dict)  # the port.* JUnit properties
    gpu_count: int = 0  # GPUs this process may use (after the visibility variables)
    cpu_count: int = 1
    gpu_variable: str = ""  # the visibility variable that narrows a child to some of them
    gpu_tokens: list[str] = field(default_factory=list)  # those GPUs in that variable's terms

    @property
    def platform(self) -> str:
        return self.properties.get("port.platform", "cpu")

    @property
    def rdma_backend(self) -> str:
        return self.properties.get("port.rdma_backend", "none")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Facts:
        return cls(properties={str(k): str(v) for k, v in dict(data.get("properties", {})).items()},
                   gpu_count=int(data.get("gpu_count", 0)), cpu_count=int(data.get("cpu_count", 1)),
                   gpu_variable=str(data.get("gpu_variable", "")),
                   gpu_tokens=[str(t) for t in data.get("gpu_tokens", [])])

    def narrowed(self, tokens: list[str]) -> Facts:
        """These facts as seen by a worker given only ``tokens`` of the GPUs."""
        return Facts(properties=dict(self.properties), gpu_count=len(tokens), cpu_count=self.cpu_count,
                     gpu_variable=self.gpu_variable, gpu_tokens=list(tokens))


def detect_facts(env: Mapping[str, str], config_file: str | None = None) -> Facts:
    """Probe this machine (the same probes and config as ``port detect``)."""
    from ..detection import detect_here
    from ..fingerprint import junit_properties

    machine, plan = detect_here(env, config_file)
    return facts_from(junit_properties(machine, plan), machine.devices.of(VENDOR.get(plan.device, "")), env)


VENDOR = {"cuda": "nvidia", "rocm": "amd"}


def facts_from(props: dict[str, str], physical: list[Any], env: Mapping[str, str]) -> Facts:
    """Facts from the fingerprint and the platform's physical GPUs, narrowed by the
    visibility variables in ``env`` (CUDA/HIP/ROCR_VISIBLE_DEVICES)."""
    from .devices import visible_gpus

    platform = props.get("port.platform", "cpu")
    vis = visible_gpus(platform, len(physical), env)
    return Facts(properties=props, gpu_count=vis.count, cpu_count=os.cpu_count() or 1,
                 gpu_variable=vis.variable if vis.count else "", gpu_tokens=list(vis.tokens))


def facts_for_process(env: Mapping[str, str]) -> Facts:
    """The facts handed down by the controller, else detected here."""
    raw = env.get(FACTS_ENV)
    if raw:
        try:
            return Facts.from_json(json.loads(raw))
        except (ValueError, TypeError, AttributeError, RecursionError):
            pass
    return detect_facts(env)


def unmet_requirement(facts: Facts, device: str = "any", min_rocm: str | None = None,
                      rdma: str = "any", world_size: int | None = None, why: str | None = None) -> str | None:
    """Why a test with these requirements cannot run here, or None if it can.

    ``device``: any / cpu / gpu / cuda / rocm; ``min_rocm``: lowest ROCm version (only
    meaningful with a ROCm device); ``rdma``: any / ibverbs / tcp; ``world_size``: ranks needed
    (a case that requires a GPU needs that many visible devices; CPU ranks are processes
    and always fit); ``why``: the
    test's own sentence on what it needs, appended to the reason.
    """
    reason = _unmet(facts, device, min_rocm, rdma, world_size)
    return f"{reason} ({why})" if reason and why else reason


def _unmet(facts: Facts, device: str, min_rocm: str | None, rdma: str, world_size: int | None) -> str | None:
    if device not in DEVICE_KINDS:
        raise ValueError(f"requires(device={device!r}): must be one of {', '.join(DEVICE_KINDS)}")
    if rdma not in RDMA_KINDS:
        raise ValueError(f"requires(rdma={rdma!r}): must be one of {', '.join(RDMA_KINDS)}")
    platform = facts.platform
    props = facts.properties
    if device == "gpu" and platform not in ("cuda", "rocm"):
        return f"requires a GPU; detection: platform {platform} (path {props.get('port.path', '?')})"
    if device in ("cuda", "rocm", "cpu") and platform != device:
        return f"requires platform {device}; detection: platform {platform} (path {props.get('port.path', '?')})"
    if min_rocm is not None:
        found = props.get("port.rocm_version", "")
        want = parse_version(min_rocm)
        have = parse_version(found) if found else None
        if want is None:
            raise ValueError(f"requires(min_rocm={min_rocm!r}): not a version")
        if have is None:
            return f"requires ROCm >= {min_rocm}; detection: no ROCm found"
        if have < want:
            return f"requires ROCm >= {min_rocm}; detection: ROCm {found}"
        if props.get("port.rocm_usable") != "true":
            return f"requires usable ROCm >= {min_rocm}; detection: ROCm {found} has no usable device"
    if rdma != "any" and facts.rdma_backend != rdma:
        return f"requires RDMA backend {rdma}; detection: {facts.rdma_backend}"
    if world_size is not None and device in ("gpu", "cuda", "rocm") and world_size > facts.gpu_count:
        return f"requires world size {world_size}; detection: {facts.gpu_count} GPU(s)"
    return None
