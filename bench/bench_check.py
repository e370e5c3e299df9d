#!/usr/bin/env python3
"""`port check` units/s, cold and warm, against the same compiler commands run by hand in sequence.

Tree: the check test data (tests/check/data: the known failure kinds and the ggml units) and
cuda-kernels 0.2.0 (tests/emulate/programs/public), copied to a temporary directory. Arches:
gfx942 and gfx950, -fsyntax-only, with the toolchain `port check` picks here.

* by hand: every compiler command `port check` ran (read back from its cache entries), one
  after the other, as a user would paste them after hipifying: the baseline doing the same
  compile work without the tool (no hipify, audit, mapping or reports);
* cold: `port check` on an empty --out (hipify + audit + every compile + all four reports);
* warm: `port check` again, nothing edited (the content-hash cache answers every compile).

    .venv/bin/python bench/bench_check.py [--jobs 2] [--json bench/out/check.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TREES = [REPO / "tests" / "check" / "data" / "kinds", REPO / "tests" / "check" / "data" / "ggml",
         REPO / "tests" / "emulate" / "programs" / "public" / "cuda_kernels-0.2.0"]


def _port_check(src: Path, out: Path, jobs: int) -> tuple[float, dict]:
    cmd = [sys.executable, "-m", "porting", "check", str(src), "--out", str(out), "-j", str(jobs),
           "--format", "json", "-I", str(src / "ggml" / "src")]
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    seconds = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"port check failed ({proc.returncode}): {proc.stderr.strip()}")
    return seconds, json.loads(proc.stdout)


def _by_hand(out: Path) -> tuple[float, int]:
    argvs = [json.loads(p.read_text())["argv"] for p in sorted((out / "cache").glob("*.json"))]
    started = time.perf_counter()
    for argv in argvs:
        subprocess.run(argv, capture_output=True)
    return time.perf_counter() - started, len(argvs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", default=None, help="also write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        for tree in TREES:
            shutil.copytree(tree, src / tree.name)
        out = Path(tmp) / "out"
        cold_s, data = _port_check(src, out, args.jobs)
        warm_s, warm = _port_check(src, out, args.jobs)
        hand_s, commands = _by_hand(out)
    units = data["summary"]["units"]
    assert warm["summary"]["compiled"] == 0, "the warm run recompiled something"
    rows = {"by hand (same compiler commands, in sequence)": hand_s, f"port check cold (-j {args.jobs})": cold_s,
            f"port check warm (-j {args.jobs})": warm_s}
    print(f"{units} units x {len(data['archs'])} arches = {commands} compiler commands; {data['evidence']}")
    classes = ", ".join(f"{k} {data['summary'][k]}" for k in ("compiles", "warnings", "fails", "not-checkable"))
    print(f"classes: {classes}")
    print(f"{'run':48} {'seconds':>8} {'units/s':>8} {'vs by hand':>10}")
    for name, seconds in rows.items():
        print(f"{name:48} {seconds:8.2f} {units / seconds:8.2f} {hand_s / seconds:9.2f}x")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"units": units, "commands": commands, "jobs": args.jobs,
                                               "seconds": rows, "evidence": data["evidence"]}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
