"""`port audit PATH...`: find porting hazards hipify cannot fix (text, JSON or SARIF 2.1.0)."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys

HELP = "scan C/C++/CUDA/Rust sources for ROCm porting hazards (text, JSON, SARIF)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", metavar="PATH", nargs="*", help="files or directories to scan")
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", default=None, help="write the report here (atomically)")
    parser.add_argument("--fail-on", choices=("error", "warning", "never"), default=None,
                        help="lowest severity that makes the exit code 1 (default: config audit.fail_on)")
    parser.add_argument("--baseline", metavar="FILE", default=None,
                        help="ignore findings recorded in this baseline (default: config audit.baseline)")
    parser.add_argument("--write-baseline", metavar="FILE", default=None,
                        help="record the current findings as accepted, then exit 0")
    parser.add_argument("--disable", metavar="RULES", default=None, help="comma-separated rule ids to skip")
    parser.add_argument("--enable", metavar="RULES", default=None,
                        help="comma-separated opt-in rule ids to run (see --list-rules)")
    parser.add_argument("-j", "--jobs", type=int, default=None, help="worker processes (0 = cores)")
    parser.add_argument("--list-rules", action="store_true", help="print the rules and exit")
    parser.add_argument("--confirm", action="store_true",
                        help="run each program holding wave64 findings under port emulate at 32 and 64 lanes "
                             "and mark each finding confirmed / not-reproduced / untraced by what the runs showed at "
                             "or from its line (JSON and SARIF)")
    parser.add_argument("--confirm-timeout", type=float, default=60.0, metavar="SECONDS",
                        help="time limit of each emulated run (default %(default)s)")
    parser.add_argument("--confirm-args", default="", metavar="ARGS",
                        help="arguments of every emulated program, split as a shell would (default: none)")


def run(args: argparse.Namespace) -> int:
    from ..audit.findings import SCHEMA, Baseline
    from ..audit.rules import RULES
    from ..audit.scan import audit_paths
    from ..config import load_config
    from ..errors import ProblemsFound, UsageError

    if args.list_rules:
        for r in RULES.values():
            print(f"{r.id:22} {r.severity:8} {r.title}{'' if r.default else ' [opt-in: --enable]'}")
        return 0
    if not args.paths:
        raise UsageError("audit: give at least one PATH to scan (or --list-rules)")
    if args.jobs is not None and args.jobs < 0:
        raise UsageError(f"--jobs: must be >= 0, got {args.jobs}")
    if args.confirm_timeout <= 0:
        raise UsageError(f"--confirm-timeout: must be positive, got {args.confirm_timeout}")
    try:
        args.confirm_argv = shlex.split(args.confirm_args)
    except ValueError as exc:
        raise UsageError(f"--confirm-args: {exc}") from None
    disable = [d.strip() for d in args.disable.split(",") if d.strip()] if args.disable is not None else None
    enable = [d.strip() for d in args.enable.split(",") if d.strip()] if args.enable is not None else None
    config = load_config(cli={"audit.fail_on": args.fail_on, "audit.baseline": args.baseline,
                              "audit.disable": disable, "audit.enable": enable, "jobs": args.jobs},
                         env=os.environ, config_file=args.config)
    baseline = Baseline.load(config["audit.baseline"]) if config["audit.baseline"] and not args.write_baseline else None
    result = audit_paths(args.paths, disable=config["audit.disable"], enable=config["audit.enable"],
                         baseline=baseline, jobs=int(config["jobs"]) or None)
    from ..audit.findings import display_path

    result.problems = [display_path(p) for p in result.problems]  # a name that is not UTF-8, as \xNN
    for problem in result.problems:
        print(f"port audit: {problem}", file=sys.stderr)
    if args.confirm and not args.write_baseline:
        from ..audit.confirm import confirm

        programs = confirm(result.findings, timeout=args.confirm_timeout, program_args=args.confirm_argv)
        print(f"audit: --confirm emulated {programs} program(s) at 32 and 64 lanes", file=sys.stderr)
    if args.write_baseline:
        _write("--write-baseline", args.write_baseline, json.dumps(Baseline.to_json(result.findings), indent=2) + "\n")
        print(f"audit: wrote {len(result.findings)} finding(s) to baseline {args.write_baseline}", file=sys.stderr)
        return 0

    counts = result.counts()
    summary = (f"audit: {result.files} files, {result.lines} lines: {counts['error']} errors, "
               f"{counts['warning']} warnings, {counts['note']} notes"
               + (f", {result.suppressed} suppressed" if result.suppressed else "")
               + (f", {result.baselined} in baseline" if result.baselined else ""))
    if args.format == "sarif":
        from ..audit.sarif import to_sarif
        text = json.dumps(to_sarif(result.findings), indent=2) + "\n"
    elif args.format == "json":
        text = json.dumps({"schema": SCHEMA, "summary": {**counts, "files": result.files, "lines": result.lines,
                                                         "suppressed": result.suppressed,
                                                         "baselined": result.baselined},
                           "findings": [f.to_json() for f in result.findings],
                           "problems": result.problems}, indent=2) + "\n"
    else:
        lines = [f"{display_path(f.path)}:{f.line}:{f.col}: {f.severity}[{f.rule}]: {f.message}\n"
                 f"    suggestion: {f.suggestion}"
                 + (f"\n    emulation: {f.confirmation}: {f.confirmation_detail}" if f.confirmation else "")
                 for f in result.findings]
        text = "\n".join(lines + [summary]) + "\n"
    if args.output:
        _write("--output", args.output, text)
        print(summary, file=sys.stderr)
    else:
        sys.stdout.write(text)
        if args.format != "text":
            print(summary, file=sys.stderr)

    fail_on = config["audit.fail_on"]
    failing = counts["error"] + (counts["warning"] if fail_on == "warning" else 0)
    if fail_on != "never" and failing:
        raise ProblemsFound(f"{failing} finding(s) at or above '{fail_on}' (--fail-on)")
    return 0


def _write(option: str, path: str, text: str) -> None:
    from ..atomic import write_text
    from ..errors import UsageError

    try:
        write_text(path, text)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write: {exc.strerror or exc}") from None
