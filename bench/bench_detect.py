#!/usr/bin/env python3
"""Benchmark: `port detect --json` wall time against `python -m torch.utils.collect_env`.

Both are whole-process runs measured in this same run on this machine, each warmed the same
way first (two unmeasured runs: page cache, bytecode); the result is the ratio of medians.
collect_env keeps no cache between runs, so the fair figure is ours with an empty tool-version
cache each run (``PORT_CACHE_DIR`` = a fresh directory: every compiler asked its version, as
collect_env asks); ours with the cache populated (the normal second run) is reported beside it.
Usage: bench/bench_detect.py [--runs 21] [--baseline-runs 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd: list[str], runs: int, fresh_cache: bool = False) -> list[float]:
    out = []
    with tempfile.TemporaryDirectory(prefix="bench-detect-") as tmp:
        for i in range(runs):
            env = dict(os.environ)
            if fresh_cache:
                env["PORT_CACHE_DIR"] = os.path.join(tmp, str(i))  # empty: nothing remembered
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd=ROOT, env=env)
            out.append(time.perf_counter() - t0)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--baseline-runs", type=int, default=5)
    ap.add_argument("--json", dest="json_out", default=None)
    args = ap.parse_args()
    venv_bin = Path(sys.executable).parent
    port = str(venv_bin / "port") if (venv_bin / "port").exists() else None
    ours_cmd = [port, "detect", "--json"] if port else [sys.executable, "-m", "porting", "detect", "--json"]
    base_cmd = [sys.executable, "-m", "torch.utils.collect_env"]
    timed(ours_cmd, 2)  # warm: page cache, bytecode, and the tool-version cache
    timed(base_cmd, 2)  # the same warm-up for the baseline (it has no cache of its own)
    ours = timed(ours_cmd, args.runs)
    cold = timed(ours_cmd, args.runs, fresh_cache=True)
    base = timed(base_cmd, args.baseline_runs)
    m_ours, m_cold, m_base = statistics.median(ours), statistics.median(cold), statistics.median(base)
    result = {
        "machine": f"{os.cpu_count()} cores, {os.uname().machine}",
        "port_detect_json": {"runs": len(ours), "median_ms": round(m_ours * 1000, 1),
                             "min_ms": round(min(ours) * 1000, 1), "max_ms": round(max(ours) * 1000, 1)},
        "port_detect_json_empty_cache": {"runs": len(cold), "median_ms": round(m_cold * 1000, 1)},
        "torch_collect_env": {"runs": len(base), "median_ms": round(m_base * 1000, 1)},
        "speedup": round(m_base / m_cold, 1),  # like for like: neither side remembers anything
        "speedup_cached": round(m_base / m_ours, 1),
    }
    print(f"{'command (all warmed by 2 runs)':<44} {'runs':>4} {'median':>10}")
    print(f"{'port detect --json, empty tool cache':<44} {len(cold):>4} {m_cold * 1000:>8.1f}ms")
    print(f"{'port detect --json, tool cache populated':<44} {len(ours):>4} {m_ours * 1000:>8.1f}ms")
    print(f"{'python -m torch.utils.collect_env':<44} {len(base):>4} {m_base * 1000:>8.1f}ms")
    print(f"ratio: port detect is {result['speedup']}x faster with an empty cache, "
          f"{result['speedup_cached']}x with it (target: median <= 60 ms)")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
