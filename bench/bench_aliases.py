#!/usr/bin/env python3
"""Benchmark `port aliases scan` on a synthetic Rust tree (default 50,000 lines).

Measured in the same run, each as the median of --repeat runs:

- ``read``      read and decode every file (the floor).
- ``hipify-re`` (baseline): read every file and find every CUDA name in it with
                torch.utils.hipify's own trie regex (``RE_PYTORCH_PREPROCESSOR`` over
                ``PYTORCH_MAP``), collecting the set of names used: how one finds the CUDA
                names of a tree without this tool. It does less than ``scan`` (no lexer, so
                names in comments and strings count too; no alias selection or rendering).
- ``tokenize``  porting.audit.tokenize over every file (the scanner's lexer; for reference).
- ``table``:    build the alias table (hipify maps + overrides.toml).
- ``scan``:     scan() + render the alias block (the table already built).
- ``cli``:      `port aliases scan TREE --out FILE` as a fresh process, end to end
                (interpreter start, imports, table, scan, write): the number that matters.

Ratios are against ``hipify-re``. Usage:

    .venv/bin/python bench/bench_aliases.py [--lines 50000] [--repeat 5] [--json bench/out/aliases.json]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from porting.aliases import rust_gen  # noqa: E402
from porting.aliases.scan import rust_files, scan  # noqa: E402
from porting.aliases.table import build_table  # noqa: E402
from porting.audit.tokenize import tokenize  # noqa: E402

LINES_PER_FILE = 500


def make_tree(root: Path, lines: int, cuda_names: list[str], seed: int = 4) -> int:
    """Write ~``lines`` lines of plausible -sys-crate Rust; return the exact line count."""
    rng = random.Random(seed)
    used = rng.sample(cuda_names, min(300, len(cuda_names)))
    total = 0
    index = 0
    while total < lines:
        out: list[str] = [f"//! Module {index}: wrappers over the driver API.", "use crate::sys::*;", ""]
        while len(out) < LINES_PER_FILE and total + len(out) < lines:
            name = rng.choice(used)
            fn = f"wrapper_{index}_{len(out)}"
            out += [
                f"/// Calls `{name}` and maps the status (this comment mentions cudaMalloc).",
                f"pub unsafe fn {fn}(ctx: &mut Context, n: usize) -> Result<u64, DriverError> {{",
                f"    let label = \"{fn}: CUDA_ERROR_UNKNOWN in a string\";",
                f"    let status = {name}(ctx.handle(), n as u32, &mut ctx.out);",
                "    if status != CUDA_SUCCESS {",
                "        return Err(DriverError::new(status, label));",
                "    }",
                "    Ok(ctx.out as u64 + 0x10_u64)",
                "}",
                "",
            ]
        path = root / f"m{index // 20}" / f"f{index}.rs"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(out) + "\n")
        total += len(out)
        index += 1
    return total


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()

    table = build_table()
    names = sorted(a.cuda for a in table.entries.values() if rust_gen.rust_usable(a))
    with tempfile.TemporaryDirectory(prefix="bench-aliases-") as tmp:
        tree = Path(tmp) / "src"
        lines = make_tree(tree, args.lines, names)
        files = rust_files([tree])
        texts = [p.read_text() for p in files]
        out_file = Path(tmp) / "rocm_compat.rs"

        from porting.hipify.engine import hipify_module

        hp = hipify_module()
        pmap = hp.PYTORCH_MAP

        def hipify_re() -> set[str]:
            used: set[str] = set()
            for p in files:
                used.update(n for n in hp.RE_PYTORCH_PREPROCESSOR.findall(p.read_bytes().decode()) if n in pmap)
            return used

        hipify_re()  # warm: the trie regex is compiled at import; this faults in the files
        results = {
            "read": median_time(lambda: [p.read_bytes().decode() for p in files], args.repeat),
            "hipify-re": median_time(hipify_re, args.repeat),
            "tokenize": median_time(lambda: [sum(1 for _ in tokenize(t, "rust")) for t in texts], args.repeat),
            "table": median_time(build_table, args.repeat),
            "scan": median_time(lambda: rust_gen.render_block(table.select(scan([tree], table).used)), args.repeat),
            "cli": median_time(lambda: subprocess.run(
                [sys.executable, "-m", "porting", "aliases", "scan", str(tree), "--out", str(out_file)],
                cwd=REPO, check=False, capture_output=True), args.repeat),
        }
        result = scan([tree], table)
        aliases = len(table.select(result.used))
        unknown = len(result.unknown)

    base = results["hipify-re"]
    print(f"port aliases scan: {lines} lines in {len(files)} files, {aliases} aliases generated, "
          f"{unknown} unknown uses; median of {args.repeat}")
    print(f"{'step':10} {'seconds':>9} {'x hipify-re':>12}")
    for step, seconds in results.items():
        print(f"{step:10} {seconds:9.3f} {seconds / base:12.2f}")
    if args.json:
        from porting.atomic import write_json

        write_json(args.json, {"schema": 1, "benchmark": "aliases", "lines": lines, "files": len(files),
                               "aliases": aliases, "repeat": args.repeat, "baseline": "hipify-re",
                               "seconds": results, "ratio": {k: v / base for k, v in results.items()},
                               "python": sys.version.split()[0]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
