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

import json
import os
import sys
from collections.abc import Mapping

from . import __version__
from .config import load_config
from .plan import Plan, make_plan
from .probe import Machine, probe_machine

TYPE_CHECKING = False  # typing is not imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from .entry import DetectArgs

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


def _check_requirements(record: dict, requirements: list[str]) -> list[str]:
    from .versions import Requirement, compare, parse_version

    failures: list[str] = []
    for text in requirements:
        req = Requirement.parse(text)
        if req.name == "rocm" and not record["rocm"]["found"]:
            failures.append(f"{req} not met: no ROCm found (looked at: "
                            f"{'; '.join(record['evidence']['rocm'])})")
            continue
        found = {"rocm": record["rocm"], "cuda": record["cuda"], "torch": record["torch"]}[req.name]
        have = parse_version(found.get("version"))
        where = found.get("home") or found.get("version_source") or ""
        if have is None:
            failures.append(f"{req} not met: {req.name} {'not found' if not found.get('found') else 'version unknown'}")
        elif not compare(have, req.op, req.version):
            src = record["rocm"]["version_source"] if req.name == "rocm" else found.get("version_source")
            failures.append(f"{req} not met: {req.name} {found['version']} at {where}"
                            + (f" (from {src})" if src else ""))
    return failures


def render_table(record: dict) -> str:
    lines = [f"path: {record['path']}    device: {record['device']}    host: {record['host']}", ""]
    r, c, t = record["rocm"], record["cuda"], record["torch"]
    rows = [
        ("ROCm", f"{r['version']} at {r['home']} ({r['version_source']})" if r["found"] else "not found",
         "ok" if r["gate_ok"] else (f"refused: below {r['min_required']}" if r["found"] else "-")),
        ("CUDA", f"{c['version']} at {c['home']}" if c["found"] else "not found",
         f"driver {c['driver']}" if c["driver"] else "no driver (libcuda)"),
        ("GPUs", ", ".join(f"{g['arch']} ({g['name']})" for g in record["gpus"]) or "none", ""),
        ("torch", f"{t['version']} ({t['flavour']})" if t["found"] else "not installed", ""),
        ("monarch", record["monarch"] or "not installed", f"torchft {record['torchft'] or '-'}"),
        ("collectives",
         f"rccl {record['collectives']['rccl'] or '-'}; nccl {record['collectives']['nccl'] or '-'}", ""),
        ("RDMA", f"backend {record['rdma']['backend']}",
         ", ".join(n["name"] for n in record["rdma"]["nics"]) or "no NICs"),
        ("hipcc platform", record["hip_platform"]["selected"] or "-", record["hip_platform"]["reason"]),
    ]
    width = max(len(k) for k, _, _ in rows)
    lines += [f"  {k:<{width}}  {v}" + (f"  [{n}]" if n else "") for k, v, n in rows]
    lines += ["", "toolchains:"]
    for tc in record["toolchains"]:
        state = "runs" if tc["can_run"] else "compile-only" if tc["can_compile"] else "unavailable"
        lines.append(f"  {tc['path']:<14} {state:<13} {tc['compiler'] or '-'} {tc['version'] or ''}  ({tc['reason']})")
        if tc.get("headers"):
            lines.append(f"  {'':<14} headers: {tc['headers']}")
    lines += ["", "reasons:"] + [f"  - {x}" for x in record["reasons"]]
    if record["warnings"]:
        lines += ["", "warnings:"] + [f"  ! {x}" for x in record["warnings"]]
    return "\n".join(lines)


def run_detect(args: DetectArgs | argparse.Namespace) -> int:
    """`port detect` with its parsed options (argparse's Namespace or entry.DetectArgs)."""
    from .errors import ProblemsFound, UsageError

    root = args.root  # strings, not pathlib: detect is on every build's path and must start fast
    if not os.path.isdir(root):
        raise UsageError(f"--root {args.root}: not a directory")
    project = args.project or os.getcwd()
    cli = {"platform": args.platform, "min_rocm": args.min_rocm, "sources": args.sources}
    config = load_config(cli=cli, env=os.environ, project_dir=project, config_file=args.config)
    machine = probe_machine(root, os.environ)
    plan = make_plan(machine, config, project)
    record = detect_record(machine, plan)
    failures = _check_requirements(record, args.require)
    record["requirements"] = {"checked": args.require, "failed": failures}
    if args.out:
        from .atomic import write_json

        write_json(args.out, record)
    if args.json:
        sys.stdout.write(json.dumps(record, indent=2) + "\n")
    else:
        sys.stdout.write(render_table(record) + "\n")
    if failures:
        raise ProblemsFound("; ".join(failures))
    return 0
