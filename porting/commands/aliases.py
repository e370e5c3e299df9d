"""`port aliases`: CUDA->HIP aliases for Rust (-sys crates) and the portable C++ header."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..config import add_option_flag
from ..errors import InputError, PortError, ProblemsFound, UsageError

HELP = "generate CUDA->HIP aliases for Rust sources and the portable gpu_runtime.h header"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--overrides", metavar="FILE", default=None,
                        help="alias overrides (default: hip_aliases/overrides.toml shipped with rocm-port)")
    add_option_flag(parser, "aliases.extra_overrides", "--extra-overrides")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--include-dir", action="store_true",
                       help="print the include directory of hip_aliases/gpu_runtime.h (for -I) and exit")
    where.add_argument("--cmake-dir", action="store_true",
                       help="print the directory of RocmPort.cmake (for CMAKE_MODULE_PATH) and exit")
    where.add_argument("--crate-dir", action="store_true",
                       help="print the directory of the hip-aliases Rust crate (for a path dependency) and exit")
    parser.add_argument("--verified-only", action="store_true",
                        help="leave out the library aliases (hipBLAS, hipSPARSE, ...) that could not be checked "
                             "against ROCm headers (they are marked unverified)")
    sub = parser.add_subparsers(dest="aliases_command", metavar="ACTION")

    scan = sub.add_parser("scan", help="the alias block that Rust sources need",
                          description="Find the CUDA identifiers the Rust sources use and generate "
                                      "exactly the #[cfg(use_rocm)] aliases they need.")
    scan.add_argument("sources", nargs="+", metavar="SRC", help="Rust files or directories")
    scan.add_argument("--out", metavar="FILE", help="write the block here (default: standard output)")
    scan.add_argument("--check", action="store_true",
                      help="write nothing; fail if --out FILE is stale or incomplete")
    scan.add_argument("--allow", metavar="NAME", action="append", default=[],
                      help="a CUDA-looking name that is fine without a HIP counterpart (repeatable)")
    scan.add_argument("--json", action="store_true", help="print the scan result as JSON on stdout")

    gen = sub.add_parser("generate", help="regenerate the checked-in files of hip_aliases/",
                         description="Regenerate gpu_runtime_renames.h, the API list of gpu_runtime.h "
                                     "and rust/src/table.rs from the alias table.")
    gen.add_argument("--root", metavar="DIR", default=None, help="the hip_aliases/ directory")
    gen.add_argument("--check", action="store_true", help="write nothing; fail if any file is stale")

    table = sub.add_parser("table", help="show the alias table (or some entries of it)")
    table.add_argument("names", nargs="*", metavar="CUDA_NAME")
    table.add_argument("--json", action="store_true", help="JSON (schema 1) instead of text")


def _print_location(args: argparse.Namespace) -> bool:
    """--include-dir / --cmake-dir / --crate-dir: print one shipped directory (no table needed)."""
    from .. import assets

    for flag, where in (("include_dir", assets.aliases_include), ("cmake_dir", assets.cmake_dir),
                        ("crate_dir", assets.rust_crate)):
        if getattr(args, flag, False):
            path = where()
            if not path.is_dir():
                raise assets.AssetError(f"{path}: missing from this rocm-port installation")
            print(path)
            return True
    return False


def run(args: argparse.Namespace) -> int:
    if _print_location(args):
        return 0
    action = getattr(args, "aliases_command", None)
    if action is None:
        raise UsageError("port aliases: choose an action: scan, generate or table (see --help)")
    from ..aliases.ground_truth import NoGroundTruth, rocm_names
    from ..aliases.table import build_table
    from ..config import load_config

    if action == "generate":
        _refuse_installed_copy(args)  # before reading any header: the refusal does not depend on them

    config = load_config(cli={"aliases.extra_overrides": args.extra_overrides}, config_file=args.config)
    # every HIP target is held to what the ROCm headers here declare (porting.aliases.ground_truth)
    try:
        table = build_table(args.overrides, extra_overrides=config["aliases.extra_overrides"], names=rocm_names())
    except NoGroundTruth as exc:
        table = _shipped_table(action, args, config, exc)
    if args.verified_only:
        table.entries = {c: a for c, a in table.entries.items() if a.status != "unverified"}
    return {"scan": _scan, "generate": _generate, "table": _table}[action](args, table)


def _shipped_table(action: str, args: argparse.Namespace, config, no_headers: PortError):
    """No ROCm 7 headers here: scan and table use the table generated (and verified) with the
    package, which only holds for the shipped overrides."""
    from .. import assets
    from ..aliases.snapshot import NAME, load

    if action == "generate" or args.overrides or config["aliases.extra_overrides"]:
        raise no_headers  # a table of the user's own must be held to headers here
    table = load(assets.aliases_dir() / NAME)
    print(f"port aliases: no ROCm 7 headers here ({no_headers}); using the table shipped with rocm-port, "
          f"held to {table.held_to or 'no headers'} when it was generated", file=sys.stderr)
    return table


def _scan(args: argparse.Namespace, table) -> int:
    from ..aliases import rust_gen
    from ..aliases.scan import scan
    from ..atomic import write_text

    if args.check and not args.out:
        raise UsageError("port aliases scan: --check needs --out FILE (the checked-in block)")
    result = scan(args.sources, table, exclude=[args.out] if args.out else [], allow=args.allow)
    selected = table.select(result.used)
    block = rust_gen.render_block(selected)
    problems = [f"{u.where()}: '{u.name}' has no HIP counterpart in the alias table" for u in result.unknown]
    problems += [f"{line} (its CUDA names are not in the block)" for line in result.unreadable]
    if args.check:
        out = Path(args.out)
        try:
            current = out.read_text(encoding="utf-8")
        except OSError:
            current = None
        if current != block:
            missing, extra = _diff_items(current or "", block)
            problems.insert(0, f"{out}: alias block is {'missing' if current is None else 'stale'} "
                               f"({missing} alias(es) missing, {extra} extra); rerun "
                               f"`port aliases scan {' '.join(args.sources)} --out {out}`")
    elif args.out:
        try:
            write_text(args.out, block)
        except OSError as exc:
            raise UsageError(f"--out {args.out}: cannot write the alias block: {exc.strerror or exc}") from None
    if args.json:
        print(json.dumps({**result.to_json(), "aliases": len(selected),
                          "problems": problems}, indent=2))
    elif not args.out:
        sys.stdout.write(block)
    for line in problems:
        print(f"port aliases: {line}", file=sys.stderr)
    print(f"port aliases: {len(result.files)} file(s), {result.lines} line(s): "
          f"{len(result.used)} CUDA name(s) aliased, {len(result.unknown)} without a HIP counterpart",
          file=sys.stderr)
    if problems:
        raise ProblemsFound(f"aliases scan: {len(problems)} problem(s), listed above")
    return 0


def _diff_items(current: str, wanted: str) -> tuple[int, int]:
    have = {line for line in current.splitlines() if line.startswith("#[")}
    want = {line for line in wanted.splitlines() if line.startswith("#[")}
    return len(want - have), len(have - want)


def _refuse_installed_copy(args: argparse.Namespace) -> None:
    from .. import assets

    if not (args.root or args.check or assets.is_checkout()):
        raise UsageError("port aliases generate: the shipped hip_aliases/ is an installed copy, not a "
                         "checkout; pass --root DIR (a copy to regenerate) or --check")


def _generate(args: argparse.Namespace, table) -> int:
    from .. import assets
    from ..aliases.generate import Layout, expected_files, stale_files, write_files

    layout = Layout(Path(args.root) if args.root else assets.aliases_dir())
    expected = expected_files(table, layout)
    if args.check:
        stale = stale_files(expected)
        if stale:
            raise ProblemsFound(f"stale generated file(s): {', '.join(map(str, stale))}; "
                                "run `port aliases generate`")
        print(f"port aliases: {len(expected)} generated file(s) up to date", file=sys.stderr)
        return 0
    written = write_files(expected)
    for path in written:
        print(f"wrote {path}")
    print(f"port aliases: {len(written)} of {len(expected)} generated file(s) changed", file=sys.stderr)
    return 0


def _table(args: argparse.Namespace, table) -> int:
    missing = [n for n in args.names if n not in table]
    entries = [table.entries[n] for n in args.names if n in table] if args.names else list(table.entries.values())
    if args.json:
        data = table.to_json()
        data["entries"] = [a.to_json() for a in entries]
        print(json.dumps(data, indent=2))
    else:
        for a in entries:
            extra = f" : {a.const_type}" if a.const_type else ""
            guard = f" [HIP>={a.min_hip}]" if a.min_hip else ""
            status = f", {a.status}" + (f": {a.library}" if a.library else "") if a.status else ""
            print(f"{a.kind:8} {a.cuda} -> {a.hip}{extra}{guard}  ({a.origin}{status})")
    if missing:
        dropped = {a.cuda: a.reason for a in table.dropped}
        why = [f"{n} (dropped: {dropped[n]})" if n in dropped else n for n in missing]
        raise InputError(f"no HIP counterpart in the alias table for: {', '.join(why)}")
    return 0
