"""The `port detect` record: Machine + Plan in one documented, versioned JSON document.

Schema (``schema: 1``; fields are only ever added within a schema version):

- ``schema`` int, ``tool`` "rocm-port x.y.z"
- ``path`` one of cuda / native-hip / hipified-cuda / cpu: the path that builds and runs here
- ``device`` cuda / rocm / none
- ``toolchains`` list of {path, compiler, version, can_compile, can_run, reason}
- ``rocm`` {found, home, version, version_source, hipcc, runtime_library, gate_ok, min_required}
- ``cuda`` {found, home, version, version_source, nvcc, driver}
- ``torch`` {found, version, cuda, hip, flavour}; ``monarch``/``torchft`` versions or null;
  ``monarch_flavour`` cuda / rocm / none (the GPU build torchmonarch was made as)
- ``gpus`` list of {vendor, arch, name, source}
- ``rdma`` {backend: ibverbs/tcp, nics: [...]}; ``collectives`` {rccl, nccl}
- ``hip_platform`` {selected, reason, trap}
- ``reasons`` list of strings (why this path), ``warnings`` list of strings
- ``evidence`` {rocm, cuda, devices, torch, fabric}: what each probe looked at
"""

from __future__ import annotations

from collections.abc import Mapping

from . import __version__
from .config import load_config
from .plan import Plan, make_plan
from .probe import Machine, probe_machine

TYPE_CHECKING = False  # typing is not imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    from typing import Any

DETECT_SCHEMA = 1


def detect_here(env: Mapping[str, str], config_file: str | None = None) -> tuple[Machine, Plan]:
    """Probe this machine and plan with the project's config, as `port detect` does."""
    machine = probe_machine("/", env)
    return machine, make_plan(machine, load_config(env=env, config_file=config_file))


def detect_record(machine: Machine, plan: Plan) -> dict[str, Any]:
    r, c, t = machine.rocm, machine.cuda, machine.packages.torch
    return {
        "schema": DETECT_SCHEMA,
        "tool": f"rocm-port {__version__}",
        "host": machine.host,
        "path": plan.path,
        "device": plan.device,
        "platform_request": plan.platform_request,
        "toolchains": [tc.to_json() for tc in plan.toolchains],
        "gpu_archs": plan.gpu_archs,
        "rocm": {"found": r.found, "home": r.home, "version": r.version, "version_source": r.version_source,
                 "hipcc": r.hipcc, "runtime_library": r.runtime_library, "gate_ok": plan.rocm_gate_ok,
                 "min_required": plan.min_rocm},
        "cuda": {"found": c.found, "home": c.home, "version": c.version, "version_source": c.version_source,
                 "nvcc": c.nvcc, "driver": c.driver},
        "torch": {"found": t.found, "version": t.version, "cuda": t.cuda, "hip": t.hip, "flavour": t.flavour},
        "monarch": machine.packages.monarch,
        "monarch_flavour": machine.packages.monarch_flavour,
        "torchft": machine.packages.torchft,
        "gpus": [{"vendor": g.vendor, "arch": g.arch, "name": g.name, "source": g.source} for g in machine.gpus],
        "rdma": {"backend": machine.fabric.rdma_backend,
                 "nics": [{"name": n.name, "link_layer": n.link_layer, "state": n.state}
                          for n in machine.fabric.nics]},
        "collectives": {"rccl": machine.fabric.rccl, "nccl": machine.fabric.nccl},
        "hip_platform": machine.hip_platform.to_json(),
        "sources": plan.sources.to_json()["counts"],
        "reasons": plan.reasons,
        "warnings": plan.warnings,
        "evidence": {"rocm": r.evidence, "cuda": c.evidence,
                     "devices": machine.devices.evidence + machine.devices.unreachable,
                     "torch": t.evidence, "fabric": machine.fabric.evidence,
                     "host_compiler": machine.host_compiler.evidence,
                     "rocm_sdk": machine.rocm_sdk.evidence + machine.rocm_sdk.problems},
    }
