"""`port fix PATH...`: repair the mechanical wave64 hazards in CUDA sources, each repair verified."""

from __future__ import annotations

import argparse
import json
import os
import sys

HELP = ("repair wave64 hazards in CUDA sources (masks, ballots, lane math, shuffle widths), "
        "verified by compiling and emulating")
FORMATS = ("diff", "json", "sarif")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("Default: a dry run printing a unified diff of the verified repairs. Exit 0: nothing "
                     "left to repair or note; 1: repairs offered, withdrawn or notes left; 2: bad input. "
                     "See docs/fix.md.")
    parser.add_argument("paths", metavar="PATH", nargs="+", help="CUDA files or trees")
    parser.add_argument("--apply", action="store_true", help="write the offered repairs in place (atomically)")
    parser.add_argument("--out", metavar="DIR", default=None, help="write repaired copies of the changed files here")
    parser.add_argument("--rules", metavar="LIST", default=None,
                        help="comma-separated repair classes (mask, ballot, shift, lane-math, warp-array, "
                             "shuffle-width) or audit rule ids (default: all)")
    parser.add_argument("--format", choices=FORMATS, default="diff", help="output (default: diff)")
    parser.add_argument("--work", metavar="DIR", default=None,
                        help="scratch directory of the verifications (default: BUILD_DIR/fix)")
    parser.add_argument("--arch", metavar="SM", default="sm_80",
                        help="nvcc's arch for the CUDA compile (default sm_80)")
    parser.add_argument("-I", dest="includes", metavar="DIR", action="append", default=[],
                        help="include directory for every verification step (repeatable)")
    parser.add_argument("--emulate-timeout", metavar="S", type=float, default=120.0,
                        help="limit of each emulated run in seconds (default 120)")
    parser.add_argument("--no-nvcc", action="store_true", help="skip the nvcc compile step")
    parser.add_argument("--no-check", action="store_true", help="skip the port check step (gfx942/gfx950 compile)")
    parser.add_argument("--no-emulate", action="store_true", help="skip the port emulate step")
    parser.add_argument("--no-verify", action="store_true", help="offer every repair unverified (recorded so)")


def run(args: argparse.Namespace) -> int:
    import re
    from pathlib import Path

    from ..config import load_config
    from ..errors import ProblemsFound, UsageError
    from ..fix import FixRequest, run_fix
    from ..fix.output import summary_line, to_diff, to_sarif

    if not re.fullmatch(r"sm_\d+[a-z]?", args.arch):
        raise UsageError(f"--arch: {args.arch!r} is not an sm arch (sm_80, sm_90a, ...)")
    if args.emulate_timeout <= 0:
        raise UsageError(f"--emulate-timeout: must be positive, got {args.emulate_timeout}")
    for d in args.includes:
        if not os.path.isdir(d):
            raise UsageError(f"-I {d}: not a directory")
    if args.apply and args.out:
        raise UsageError("--apply and --out: choose one (in place, or a repaired copy)")
    config = load_config(cli={}, env=os.environ, config_file=args.config)
    work = Path(args.work) if args.work else Path(config["build_dir"]) / "fix"
    rules = [r.strip() for r in args.rules.split(",") if r.strip()] if args.rules else []
    req = FixRequest(paths=list(args.paths), work=work.resolve(), rules=rules, verify=not args.no_verify,
                     check=not args.no_check, emulate=not args.no_emulate,
                     nvcc=None if args.no_nvcc else "auto", sm=args.arch, apply=args.apply,
                     out=Path(args.out) if args.out else None, includes=list(args.includes),
                     emulate_timeout=args.emulate_timeout)
    result = run_fix(req)
    for problem in result.problems:
        print(f"port fix: {problem}", file=sys.stderr)
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
    elif args.format == "sarif":
        sys.stdout.write(json.dumps(to_sarif(result), indent=2) + "\n")
    else:
        sys.stdout.write(to_diff(result))
    print(summary_line(result), file=sys.stderr)
    for path in result.applied:
        print(f"fix: repaired {path}", file=sys.stderr)
    counts = result.counts()
    if (counts["offered"] and not args.apply) or counts["withdrawn"] or counts["notes"]:
        raise ProblemsFound(f"fix: {counts['offered']} repair(s) {'applied' if args.apply else 'offered'}, "
                            f"{counts['withdrawn']} withdrawn, {counts['notes']} note(s)")
    return 0
