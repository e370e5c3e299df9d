"""`port detect`: probe the machine, pick the build path, explain every decision."""

from __future__ import annotations

import argparse

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


def run(args: argparse.Namespace) -> int:
    from ..detection import run_detect

    return run_detect(args)
