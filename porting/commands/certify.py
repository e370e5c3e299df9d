"""`port certify [--out DIR]`: detect -> audit/hipify -> build -> matrix -> report, with progress."""

from __future__ import annotations

import argparse
import os

HELP = "run every stage end to end (detect, audit, hipify, build, matrix, report) and print the verdict"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..config import OPTIONS

    parser.add_argument("--out", metavar="DIR", default=None, help="artifact directory (default: out_dir, port-out)")
    parser.add_argument("--sources", action="append", default=None, metavar="DIR",
                        help="source dir to audit and hipify (default from config: native)")
    parser.add_argument("--stage-timeout", type=float, default=1200.0, metavar="SECONDS",
                        help="kill a stage that runs longer than this (default 1200)")
    parser.add_argument("--progress-interval", type=float, default=10.0, metavar="SECONDS",
                        help="seconds between progress lines while a stage runs (default 10)")
    parser.add_argument("--baseline", metavar="parity.json", default=None, help="passed to `port report`")
    parser.add_argument("--reference", metavar="DIR", default=None,
                        help="JUnit of a reference run made elsewhere (e.g. the CUDA fleet's merged shards), "
                             "merged into the report so that this machine alone can reach a verdict")
    parser.add_argument("--reference-platform", choices=OPTIONS["report.reference"].choices, default=None,
                        help="reference platform, passed to `port report --reference` (default auto)")
    parser.add_argument("--matrix-dir", metavar="DIR", default=None,
                        help="matrix packs to run instead of the shipped test_matrix/ (passed to `port matrix`)")
    parser.add_argument("--suite", action="append", default=[], metavar="NAME|DIR",
                        help="also run a project's own test suite after the packs (repeatable; `port matrix "
                             "--suite`): monarch, torchft or a directory")
    parser.add_argument("--skip", action="append", default=[], metavar="STAGE",
                        choices=("detect", "audit", "hipify", "build", "matrix"),
                        help="do not run STAGE (repeatable); the report is then marked partial")
    parser.add_argument("--require-signed", action="store_true",
                        help="refuse evidence (this run's and --reference's) not signed by a key of "
                             "report.trusted_keys")
    parser.add_argument("--no-evidence-ok", action="store_true",
                        help="exit 0 instead of 3 when there is no ROCm run and the evidence is complete")


def run(args: argparse.Namespace) -> int:
    from ..certify import Progress, certify
    from ..config import load_config
    from ..errors import UsageError

    config = load_config(cli={"out_dir": args.out, "sources": args.sources}, env=os.environ,
                         config_file=args.config)
    if args.stage_timeout <= 0 or args.progress_interval <= 0:
        raise UsageError("--stage-timeout and --progress-interval must be positive")
    report_args: list[str] = []
    if args.baseline:
        report_args += ["--baseline", os.path.abspath(args.baseline)]
    if args.reference_platform:
        report_args += ["--reference", args.reference_platform]
    if args.no_evidence_ok:
        report_args.append("--no-evidence-ok")
    if args.require_signed:
        report_args.append("--require-signed")

    matrix_args = ["--matrix-dir", os.path.abspath(args.matrix_dir)] if args.matrix_dir else []

    # A signal raises process_group.Interrupted (the CLI's owner), which unwinds through
    # run_stage: it stops the running stage's process group.
    record = certify(config["out_dir"], list(config["sources"]), config_file=args.config,
                     stage_timeout=args.stage_timeout, progress=Progress(interval=args.progress_interval),
                     report_args=report_args, skip=set(args.skip), reference_dir=args.reference,
                     matrix_args=matrix_args, suites=list(args.suite))
    return record.exit_code
