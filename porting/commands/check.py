"""`port check SRC`: per translation unit, how far a CUDA tree is from building on ROCm 7."""

from __future__ import annotations

import argparse
import os
import sys

HELP = "hipify, audit and compile every CUDA unit for gfx942/gfx950 against ROCm 7: a ranked worklist"
FORMATS = ("text", "json", "sarif", "html")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..config import add_option_flag

    parser.add_argument("src", metavar="SRC", help="the CUDA source tree")
    parser.add_argument("--compile-commands", metavar="FILE", default=None,
                        help="compile_commands.json (CMake, Bear): each unit's -D/-I/-std")
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=V]",
                        help="define for every unit (repeatable), e.g. -D USE_ROCM=1")
    parser.add_argument("-I", dest="includes", action="append", default=[], metavar="DIR",
                        help="include dir for every unit (repeatable)")
    add_option_flag(parser, "check.archs", "--arch")
    add_option_flag(parser, "check.out", "--out")
    add_option_flag(parser, "check.format", "--format")
    add_option_flag(parser, "check.cache", "--cache")
    parser.add_argument("--codegen", action="store_true", help="generate device code, not just -fsyntax-only")
    parser.add_argument("-j", "--jobs", type=int, default=None, help="parallel compiles (0 = cores)")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..check import CheckRequest, run_check
    from ..config import load_config
    from ..errors import ProblemsFound, UsageError
    from ..plan import make_plan
    from ..probe import probe_machine

    if args.jobs is not None and args.jobs < 0:
        raise UsageError(f"--jobs: must be >= 0, got {args.jobs}")
    archs = [a.strip() for v in (args.archs or []) for a in v.split(",") if a.strip()] or None
    config = load_config(cli={"check.archs": archs, "check.out": args.out, "check.format": args.format,
                              "check.cache": args.cache,
                              "jobs": args.jobs}, env=os.environ, config_file=args.config)
    bad = [a for a in config["check.archs"] if not a.startswith("gfx")]
    if bad:
        raise UsageError(f"--arch: {bad[0]!r} is not an AMD GPU architecture (gfx942, gfx950, ...)")
    cc = Path(args.compile_commands) if args.compile_commands else None
    if cc is not None and not cc.is_file():
        raise UsageError(f"--compile-commands {cc}: no such file")
    from ..check.cache import cache_location

    cache_dir, key_file = cache_location(str(config["check.cache"]), os.environ)
    req = CheckRequest(Path(args.src), Path(config["check.out"]), list(config["check.archs"]), cc,
                       list(args.defines), list(args.includes), args.codegen,
                       int(config["jobs"]) or os.cpu_count() or 1, cache_dir, key_file)
    machine = probe_machine("/", os.environ)
    result = run_check(req, make_plan(machine, config), machine)
    texts = _write_all(result, req.out)
    sys.stdout.write(texts[config["check.format"]])
    failing = sum(1 for u in result.units if u.verdict == "fails")
    refused = sum(1 for u in result.units if u.verdict == "tool-error")
    if failing or refused:
        raise ProblemsFound(f"check: {failing} of {len(result.units)} unit(s) fail to compile for ROCm 7"
                            + (f", the compiler gave no verdict on {refused}" if refused else "")
                            + f" (reports in {req.out})")
    return 0


def _write_all(result, out) -> dict[str, str]:
    import json

    from ..check import worklist
    from ..check.html import to_html
    from ..check.sarif import to_sarif

    data = worklist.to_json(result)
    texts = {"text": worklist.to_text(result), "json": json.dumps(data, indent=2) + "\n",
             "sarif": json.dumps(to_sarif(result), indent=2) + "\n", "html": to_html(data)}
    # a file name that is not UTF-8 (its bytes as surrogates) is shown escaped, never a traceback
    # (JSON and SARIF escape it themselves: json.dumps writes ASCII)
    texts = {fmt: t.encode("utf-8", "backslashreplace").decode("utf-8") for fmt, t in texts.items()}
    from ..paths import OutputDir

    # all four or none, each atomic, through the containment helper (no symlink in OUT is written through)
    OutputDir(out).publish({name: texts[fmt].encode() for fmt, name in (
        ("text", "check.txt"), ("json", "check.json"), ("sarif", "check.sarif"), ("html", "check.html"))})
    return texts
