"""`port hipify SRC --out DIR`: out-of-tree, incremental, parallel hipify with a manifest."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..config import add_option_flag

HELP = "hipify a CUDA source tree into a separate output tree (incremental, parallel, lossless)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("src", metavar="SRC", help="source tree (never modified)")
    parser.add_argument("--out", metavar="DIR", required=True, help="output directory (mirror of SRC, hipified)")
    parser.add_argument("-j", "--jobs", type=int, default=None,
                        help="worker processes (default: config `jobs`, 0 = cores)")
    parser.add_argument("--manifest", metavar="FILE", default=None,
                        help="manifest JSON path (default: DIR/.port-hipify-manifest.json)")
    parser.add_argument("--no-pytorch-extension", dest="pytorch_extension", action="store_false",
                        help="plain hipify's project mode (outputs under hip/ directories) instead of "
                             "PyTorch-extension mode (x.cpp -> x_hip.cpp beside it)")
    parser.add_argument("--hip-clang-launch", action="store_true",
                        help="keep <<<>>> launches (hipify's hip_clang_launch=True)")
    parser.add_argument("--extensions", metavar="LIST", default=None,
                        help="comma-separated file extensions to hipify (default: hipify's)")
    parser.add_argument("--header-include-dir", dest="header_include_dirs", action="append", default=[],
                        metavar="DIR", help="header search directory, relative to DIR (repeatable)")
    parser.add_argument("--ignore", dest="ignores", action="append", default=[], metavar="GLOB",
                        help="fnmatch pattern of paths not to hipify (repeatable)")
    parser.add_argument("--max-file-size", type=int, default=None, metavar="BYTES",
                        help="skip files larger than this (default: config hipify.max_file_size)")
    add_option_flag(parser, "hipify.follow_external_symlinks", "--follow-external-symlinks")
    parser.add_argument("--json", action="store_true", help="print the manifest summary as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every file that was not converted cleanly")


def run(args: argparse.Namespace) -> int:
    from ..config import load_config
    from ..errors import ProblemsFound, UsageError
    from ..hipify import MANIFEST_NAME, HipifyOptions, convert_tree
    from ..paths import show

    if args.jobs is not None and args.jobs < 0:
        raise UsageError(f"--jobs: must be >= 0, got {args.jobs}")
    if args.max_file_size is not None and args.max_file_size <= 0:
        raise UsageError(f"--max-file-size: must be > 0, got {args.max_file_size}")
    config = load_config(cli={"jobs": args.jobs, "hipify.max_file_size": args.max_file_size,
                              "hipify.follow_external_symlinks": args.follow_external_symlinks},
                         env=os.environ, config_file=args.config)
    defaults = HipifyOptions()
    extensions = defaults.extensions
    if args.extensions:
        extensions = tuple(e if e.startswith(".") else "." + e for e in args.extensions.split(",") if e.strip())
    options = HipifyOptions(extensions=extensions, header_include_dirs=tuple(args.header_include_dirs),
                            ignores=tuple(args.ignores), is_pytorch_extension=args.pytorch_extension,
                            hip_clang_launch=args.hip_clang_launch, max_file_size=int(config["hipify.max_file_size"]))
    quiet = args.json

    def progress(msg: str) -> None:
        if not quiet:
            print(f"port hipify: {msg}", file=sys.stderr)

    manifest = convert_tree(args.src, args.out, jobs=int(config["jobs"]) or None, options=options,
                            manifest_path=args.manifest, progress=progress,
                            follow_external_symlinks=bool(config["hipify.follow_external_symlinks"]))
    s = manifest.summary
    if args.json:
        print(json.dumps({"summary": s, "manifest": str(args.manifest or os.path.join(args.out, MANIFEST_NAME)),
                          "problems": [f.to_json() for f in manifest.files if f.status in ("skipped", "failed")],
                          "refused": manifest.refused},
                         indent=2))
    else:
        for f in manifest.files:
            if f.status in ("skipped", "failed") or (args.verbose and f.non_utf8_bytes):
                print(f"{f.status:9} {show(f.source)}: {f.why}")
        for r in manifest.refused:
            print(f"refused   {show(r['path'])}: {r['why']}")
        print(f"hipify: {s['files']} files: {s['converted']} converted, {s['unchanged']} unchanged, "
              f"{s['skipped']} skipped, {s['failed']} failed ({s['non_utf8']} not UTF-8) -> {args.out}")
    if not manifest.ok:
        raise ProblemsFound(f"{s['failed']} file(s) failed; see the manifest for details")
    return 0
