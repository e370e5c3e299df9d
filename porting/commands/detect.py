"""`port detect`: probe the machine, pick the build path, explain every decision."""

from __future__ import annotations

import argparse
import json
import os
import sys

HELP = "probe the machine and choose the build path (cuda, native-hip, hipified-cuda, cpu), with reasons"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the detection record as JSON (schema in docs)")
    p.add_argument("--platform", choices=("auto", "cuda", "rocm", "none"), default=None,
                   help="override the GPU platform (env PORT_GPU_PLATFORM)")
    p.add_argument("--min-rocm", default=None, metavar="VERSION", help="ROCm version gate (default 7.0)")
    p.add_argument("--require", action="append", default=[], metavar="EXPR",
                   help="fail (exit 1) unless EXPR holds, e.g. 'rocm>=7.0' (repeatable)")
    p.add_argument("--root", default="/", metavar="DIR",
                   help="probe the filesystem under DIR instead of / (synthetic machines)")
    p.add_argument("--sources", action="append", default=None, metavar="DIR",
                   help="source dir to classify (HIP vs CUDA); default from config: native")
    p.add_argument("--project", default=None, metavar="DIR", help="project directory (default: cwd)")
    p.add_argument("--out", default=None, metavar="FILE", help="also write the JSON record to FILE")


def _check_requirements(record: dict, requirements: list[str]) -> list[str]:
    from ..versions import Requirement, compare, parse_version

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


def run(args: argparse.Namespace) -> int:
    from ..config import load_config
    from ..detection import detect_record
    from ..errors import ProblemsFound, UsageError
    from ..plan import make_plan
    from ..probe import probe_machine

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
        from ..atomic import write_json

        write_json(args.out, record)
    if args.json:
        sys.stdout.write(json.dumps(record, indent=2) + "\n")
    else:
        sys.stdout.write(render_table(record) + "\n")
    if failures:
        raise ProblemsFound("; ".join(failures))
    return 0
