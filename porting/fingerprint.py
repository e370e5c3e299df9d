"""The platform fingerprint written into JUnit testsuite properties (docs/junit-properties.md)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping

from .junit_contract import SCHEMA as JUNIT_SCHEMA
from .plan import Plan
from .probe import Machine
from .registry import paths_on


def platform_of(plan: Plan) -> str:
    """The platform label a run is filed under: cuda / rocm / cpu."""
    return {"cuda": "cuda", "rocm": "rocm"}.get(plan.device, "cpu")


def junit_properties(machine: Machine, plan: Plan, run_id: str | None = None,
                     shard: str = "1/1") -> dict[str, str]:
    """The detection-derived ``port.*`` properties; producers add complete/collected themselves."""
    archs = plan.gpu_archs if plan.device != "none" else []
    return {
        "port.schema": JUNIT_SCHEMA,
        "port.platform": platform_of(plan),
        "port.path": plan.path,
        "port.rocm_version": machine.rocm.version or "",
        "port.rocm_usable": "true" if any(plan.toolchain(p).can_run for p in paths_on("rocm")) else "false",
        "port.cuda_version": machine.cuda.version or "",
        "port.gpu_arch": ",".join(archs),
        "port.torch_version": machine.packages.torch.version or "",
        "port.torch_flavour": machine.packages.torch.flavour,
        "port.monarch_version": machine.packages.monarch or "",
        "port.monarch_flavour": machine.packages.monarch_flavour,
        "port.rdma_backend": machine.fabric.rdma_backend,
        "port.host": machine.host,
        "port.run_id": run_id or uuid.uuid4().hex,
        "port.shard": shard,
    }


def current_properties(env: Mapping[str, str] | None = None, **kwargs: str) -> dict[str, str]:
    """Probe this machine with the project's config and return its properties."""
    from .detection import detect_here

    machine, plan = detect_here(dict(os.environ if env is None else env))
    return junit_properties(machine, plan, **kwargs)
