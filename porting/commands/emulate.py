"""`port emulate SOURCES... -- ARGS`: run a CUDA/HIP program on the CPU at 32 and 64 lanes, diff."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HELP = "run a CUDA/HIP program on the CPU with 32- and 64-lane warps and show where the results diverge"
# everything after `--` is the program's own argument list (porting.cli splits it off)
PASSTHROUGH = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..config import OPTIONS

    parser.epilog = ("Everything after `--` is passed to the program: port emulate prog.cu -- ARGS. "
                     "Exit 0: same results at every width; 1: diverged; 2: could not build or run "
                     "(the unsupported feature named); 3: inconclusive (a run hit the timeout). "
                     "Programs run in a bubblewrap sandbox: read-only filesystem except their run "
                     "directory, no network. See docs/emulate.md.")
    parser.add_argument("sources", metavar="SOURCE", nargs="+", help="the program's .cu/.hip/.cpp files")
    parser.add_argument("-I", dest="include_dirs", metavar="DIR", action="append", default=[],
                        help="include directory (repeatable)")
    parser.add_argument("-D", dest="defines", metavar="NAME[=V]", action="append", default=[],
                        help="preprocessor definition (repeatable)")
    parser.add_argument("--std", choices=OPTIONS["emulate.std"].choices, default=None,
                        help=f"{OPTIONS['emulate.std'].help} (default: config emulate.std)")
    parser.add_argument("--warp", metavar="W,W", default=None,
                        help=f"{OPTIONS['emulate.warps'].help} (default: 32,64)")
    parser.add_argument("--stdin", metavar="FILE", default=None, help="standard input of every run")
    parser.add_argument("--cwd", metavar="DIR", default=None,
                        help="copied as each run's working directory (default: an empty one)")
    parser.add_argument("--compare", metavar="ITEMS", default="stdout,exit",
                        help="what must match: stdout, exit and/or output FILE names (default: stdout,exit)")
    parser.add_argument("--mask", metavar="REGEX", action="append", default=[],
                        help="volatile stdout text (timings) to ignore in the comparison (repeatable)")
    parser.add_argument("--no-default-mask", dest="default_masks", action="store_false",
                        help="compare timing lines too (by default numbers with time units, rates such as "
                             "GB/s, the number after 'time'/'elapsed' and the table columns under a header "
                             "naming a time or rate unit are masked; docs/emulate.md)")
    parser.add_argument("--no-sandbox", dest="sandbox", action="store_false",
                        help="run the program with your own rights, without the bubblewrap sandbox "
                             "(which allows no network and no writes outside the run directory)")
    parser.add_argument("--mask-faults", choices=("stop", "report"), default="stop",
                        help="a 32-bit lane mask at 64 lanes that leaves out its caller: stop the run there "
                             "(default), or report it and go on with the mask widened to both halves, so the "
                             "results can be compared too")
    parser.add_argument("--strict-sync", action="store_true",
                        help="fault when a *_sync mask names a lane waiting at another call site (undefined in "
                             "CUDA; by default reported as a finding and run as NVIDIA GPUs do)")
    parser.add_argument("--timeout", metavar="S", type=int, default=None,
                        help=f"{OPTIONS['emulate.timeout'].help} (default: config emulate.timeout)")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="build and run directory (default: BUILD_DIR/emulate)")
    parser.add_argument("--json", action="store_true", help="print the per-width results as JSON (schema 1)")


def run(args: argparse.Namespace) -> int:
    from ..config import load_config
    from ..emulate import Inconclusive, Request, emulate
    from ..errors import ProblemsFound, UsageError

    warps = [w.strip() for w in args.warp.split(",") if w.strip()] if args.warp is not None else None
    config = load_config(cli={"emulate.std": args.std, "emulate.warps": warps, "emulate.timeout": args.timeout},
                         env=os.environ, config_file=args.config)
    try:
        widths = [int(w) for w in config["emulate.warps"]]
    except ValueError:
        got = ",".join(config["emulate.warps"])
        raise UsageError(f"--warp: comma-separated integers expected, got {got}") from None
    compare = [c.strip() for c in args.compare.split(",") if c.strip()]
    if not compare:
        raise UsageError("--compare: name at least one of stdout, exit or an output file")
    out = Path(args.out) if args.out else Path(config["build_dir"]) / "emulate"
    req = Request(sources=[Path(s) for s in args.sources], out_dir=out.resolve(),
                  include_dirs=[Path(d) for d in args.include_dirs], defines=args.defines, warps=widths,
                  compare=compare, masks=args.mask, program_args=list(getattr(args, "passthrough", [])),
                  stdin=Path(args.stdin) if args.stdin else None, cwd=Path(args.cwd) if args.cwd else None,
                  timeout=float(config["emulate.timeout"]), cxx=config["emulate.cxx"], std=config["emulate.std"],
                  default_masks=args.default_masks, sandbox=args.sandbox, mask_faults=args.mask_faults,
                  strict_sync=args.strict_sync)
    result = emulate(req)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        _print_text(result)
    if result.verdict == "inconclusive":
        late = [str(r.warp) for r in result.runs if r.status == "timeout"]
        raise Inconclusive(f"emulate: inconclusive: the run at warp {' and '.join(late)} took longer than the "
                           f"timeout ({req.timeout:.0f} s); its partial output is in the JSON record")
    if result.differences:
        raise ProblemsFound(f"emulate: results diverge between warp widths "
                            f"({len(result.differences)} difference(s), listed above)")
    return 0


def _print_text(result) -> None:
    stream = sys.stdout
    for r in result.runs:
        compiled = "cached build" if r.compile_cached else f"built in {r.compile_seconds:.1f} s"
        head = f"warp {r.warp}: {r.status}"
        if r.status == "ran":
            head += f", exit {r.exit}, {len(r.stdout.splitlines())} stdout line(s), {r.seconds:.2f} s ({compiled})"
        elif r.status == "timeout":
            head += f" after {r.seconds:.0f} s, {len(r.stdout.splitlines())} stdout line(s) so far"
        if r.masked:
            head += f"; {len(r.masked)} timing line(s) masked, first: line {r.masked[0][0]}: {r.masked[0][1][:80]}"
        print(head + (f"\n  {r.fault}" if r.fault else ""), file=stream)
        for f in r.findings:
            print(f"  finding: {f}", file=stream)
    for d in result.differences:
        print(f"DIVERGED: {d.line()}", file=stream)
    if result.verdict == "same":
        print(f"same results at warp {' and '.join(str(r.warp) for r in result.runs)} "
              f"({', '.join(result.request.compare)} compared)", file=stream)
