#!/usr/bin/env python3
"""Benchmark: cold and warm `port build` for the ROCm 7 paths against `--path cuda` (nvcc).

In one run, for each path: a cold build (empty build directory: hipify, every compile, the
link; for the ROCm paths the -fgpu-rdc device link for gfx942 + gfx950 against the ROCm 7.1
SDK with clang++-22) and warm rebuilds (nothing changed: every step up to date). Whole
`port build` processes, wall time, medians. The baseline is `port build --path cuda`, nvcc
13.0 for its default arch (sm_90) on the same sources. Compile-only here: nothing is run.

Usage: bench/bench_build.py [--cold 1] [--warm 5] [--paths native-hip,hipified-cuda] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def port_build(path: str, build_dir: Path) -> float:
    cmd = [sys.executable, "-m", "porting", "build", "--path", path, "--build-dir", str(build_dir), "--json"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"port build --path {path} failed:\n{proc.stderr[-2000:]}")
    record = json.loads(proc.stdout)
    if path != "cuda" and {c["arch"] for c in record.get("code_objects", [])} != {"gfx942", "gfx950"}:
        raise SystemExit(f"port build --path {path}: expected gfx942 + gfx950 code objects")
    return elapsed


def measure(path: str, cold: int, warm: int, scratch: Path) -> dict:
    colds, warms = [], []
    for i in range(cold):
        build_dir = scratch / f"{path}-{i}"
        shutil.rmtree(build_dir, ignore_errors=True)
        colds.append(port_build(path, build_dir))
    for _ in range(warm):
        warms.append(port_build(path, scratch / f"{path}-0"))
    return {"cold_s": round(statistics.median(colds), 2), "cold_runs": colds,
            "warm_s": round(statistics.median(warms), 3), "warm_runs": warms}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cold", type=int, default=1)
    ap.add_argument("--warm", type=int, default=5)
    ap.add_argument("--paths", default="native-hip,hipified-cuda")
    ap.add_argument("--json", dest="json_out", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        scratch = Path(tmp)
        results = {"cuda": measure("cuda", args.cold, args.warm, scratch)}
        for path in args.paths.split(","):
            results[path] = measure(path, args.cold, args.warm, scratch)
    base = results["cuda"]
    out = {"machine": f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}", "paths": results,
           "ratios_vs_cuda": {p: {"cold": round(r["cold_s"] / base["cold_s"], 2),
                                  "warm": round(r["warm_s"] / base["warm_s"], 2)}
                              for p, r in results.items() if p != "cuda"}}
    print(f"{'port build --path':<28} {'cold':>9} {'warm':>9}")
    for p, r in results.items():
        print(f"{p:<28} {r['cold_s']:>8.1f}s {r['warm_s']:>8.3f}s")
    for p, ratio in out["ratios_vs_cuda"].items():
        print(f"{p} / cuda: cold {ratio['cold']}x, warm {ratio['warm']}x")
    print(out["machine"])
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
