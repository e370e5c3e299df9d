"""`port build`: build native/ for the detected (or given) path, out of tree and incrementally."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..registry import PATH_NAMES as PATHS
from ..registry import archs_for

HELP = "build native/ for a path (cuda, native-hip, hipified-cuda, cpu) into the build directory"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--path", choices=PATHS, default=None,
                   help="build path (default: the one `port detect` picks)")
    p.add_argument("--build-dir", default=None, metavar="DIR",
                   help="out-of-tree build directory (default from config: build/port); output in DIR/PATH")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="parallel compiles (0 = cores)")
    p.add_argument("--gpu-arch", action="append", default=None, metavar="ARCH",
                   help="GPU architecture (repeatable; default: detected GPUs, else the compiler's ROCm 7 "
                        "targets it accepts)")
    p.add_argument("--source", default=None, metavar="DIR", help="native/ source tree (default: the repo's)")
    p.add_argument("--json", action="store_true", help="print the build record as JSON")


def _detect(config: object) -> tuple[object | None, str | None]:
    """The plan (or None) and why detection failed (or None)."""
    from ..errors import PortError
    from ..plan import make_plan
    from ..probe import probe_machine

    try:
        machine = probe_machine("/", os.environ)
        return make_plan(machine, config), None  # type: ignore[arg-type]
    except PortError as exc:
        return None, str(exc)


def run(args: argparse.Namespace) -> int:
    from ..builder import build
    from ..config import load_config
    from ..errors import PlatformError, ToolError, UsageError

    if args.jobs is not None and args.jobs < 0:
        raise UsageError(f"--jobs: must be >= 0, got {args.jobs}")
    archs = [a.strip() for item in (args.gpu_arch or []) for a in item.split(",") if a.strip()] or None
    cli = {"build_dir": args.build_dir, "jobs": args.jobs, "gpu_archs": archs}
    config = load_config(cli=cli, env=os.environ, config_file=args.config)
    plan, why = _detect(config)
    path = args.path
    if path is None:
        if plan is None:
            raise PlatformError(f"cannot detect the build path ({why}); pass --path")
        path = plan.path  # type: ignore[attr-defined]
    compiler = version = tc = None
    if plan is not None:
        tc = plan.toolchain(path)  # type: ignore[attr-defined]
        compiler, version = tc.compiler, tc.version
        gpu_archs = list(plan.gpu_archs)  # type: ignore[attr-defined]  # config gpu_archs, else detected
    else:
        gpu_archs = list(config["gpu_archs"])
    gpu_archs = archs_for(path, gpu_archs)

    record = build(path, config["build_dir"], jobs=config["jobs"], gpu_archs=gpu_archs, compiler=compiler,
                   compiler_version=version, source_dir=args.source, toolchain=tc)
    if args.json:
        sys.stdout.write(json.dumps(record.to_json(), indent=2) + "\n")
    else:
        for note in record.notes:
            print(f"note: {note}", file=sys.stderr)
        for step in record.steps:
            state = "up to date" if step.cached else f"{step.seconds:.2f}s"
            print(f"  {step.kind:<8} {step.source:<28} {state}", file=sys.stderr)
    if not record.ok:
        if record.error_output and not args.json:
            sys.stderr.write(record.error_output.rstrip() + "\n")
        raise ToolError(record.error or f"build for {path} failed")
    rebuilt = len(record.rebuilt)
    if not args.json:
        lib = os.path.join(record.build_dir, record.library or "")
        print(f"port build: {path} ({record.compiler} {record.compiler_version or ''}".rstrip()
              + (f", {','.join(record.gpu_archs)}" if record.gpu_archs else "")
              + f"): {rebuilt} of {len(record.steps)} steps run in {record.seconds:.1f}s -> {lib}")
    return 0
