"""`port sdk fetch|path`: the compile-only ROCm 7 SDK (ROCm 7.1 HIP headers + ocml/ockl)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HELP = "fetch the compile-only ROCm 7 SDK (HIP headers, ocml/ockl from a pinned PyPI wheel) or show where it is"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("fetch", "path", "verify"),
                   help="fetch: download (or --wheel), check the hash and unpack, if not there yet; "
                        "path: print the SDK directory, exit 1 if it is not there; "
                        "verify: re-hash every file against MANIFEST.json and the pinned tree, exit 1 if it differs")
    p.add_argument("--dir", metavar="DIR", default=None,
                   help="the SDK directory (default: $PORT_ROCM7_SDK, else "
                        "${XDG_CACHE_HOME:-~/.cache}/rocm-port/rocm7-sdk/triton-VERSION, where detection looks)")
    p.add_argument("--wheel", metavar="FILE", default=None,
                   help="use this copy of the pinned triton wheel instead of downloading it (no network)")
    p.add_argument("--force", action="store_true", help="unpack again even if the SDK is there")


def run(args: argparse.Namespace) -> int:
    from .. import sdk_fetch
    from ..errors import UsageError

    sdk = Path(args.dir) if args.dir else sdk_fetch.default_dir(os.environ)
    if args.action == "verify":
        verdict = sdk_fetch.verify(sdk)
        print(f"port sdk: {'ok' if verdict.ok else 'TAMPERED or incomplete'}: {verdict.why}",
              file=sys.stdout if verdict.ok else sys.stderr)
        return 0 if verdict.ok else 1
    if args.action == "path":
        if args.wheel or args.force:
            raise UsageError("port sdk path: --wheel and --force belong to `port sdk fetch`")
        if not sdk_fetch.is_ready(sdk):
            print(f"port sdk: no ROCm 7 SDK in {sdk} (run `port sdk fetch`)", file=sys.stderr)
            return 1
        print(sdk)
        return 0
    sdk, did = sdk_fetch.fetch(sdk, Path(args.wheel) if args.wheel else None, force=args.force)
    print(f"port sdk: ROCm 7 SDK {'ready' if did else 'already there'}: {sdk}", file=sys.stderr)
    print(sdk)
    return 0
