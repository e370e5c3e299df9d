"""Benchmark: why the matrix shares its subjects.

1. DTensor cases in the persistent rank pool (porting.matrix.rank_pool) vs. a fresh pool of
   ranks spawned per case (the baseline).
2. Actor calls on a module-shared Monarch proc mesh vs. a proc mesh spawned per case.

Prints per-case times and the speed-up ratio (baseline / shared); ``--json FILE`` writes them.
Run: .venv/bin/python bench/bench_matrix.py [--cases 40] [--fresh 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = str(ROOT / "test_matrix" / "sharding" / "dtensor_cases.py")


def _dtensor_case(pool, i: int) -> None:
    src, dst = [("S0", "R"), ("R", "S1"), ("S1", "S0"), ("Psum", "R")][i % 4]
    pool.run(CASES, "redistribute", ranks=[0, 1, 2, 3], mesh="1d-4", src=[src], dst=[dst], shape=(8, 12),
             dtype="float32")


def bench_pool(cases: int, fresh: int) -> dict:
    from porting.matrix.rank_pool import RankPool

    pool = RankPool(4)
    _dtensor_case(pool, 0)  # warm-up: first collectives, imports
    t0 = time.perf_counter()
    for i in range(cases):
        _dtensor_case(pool, i)
    shared = (time.perf_counter() - t0) / cases
    pool.close()
    t0 = time.perf_counter()
    for i in range(fresh):
        p = RankPool(4)
        _dtensor_case(p, i)
        p.close()
    per_case = (time.perf_counter() - t0) / fresh
    return {"shared_s": shared, "baseline_s": per_case, "ratio": per_case / shared}


def bench_mesh(cases: int, fresh: int) -> dict:
    from monarch.actor import Actor, endpoint, this_host

    class Echo(Actor):
        @endpoint
        def echo(self, x):
            return x

    procs = this_host().spawn_procs(per_host={"gpus": 2})
    mesh = procs.spawn("echo", Echo)
    mesh.echo.call(0).get()
    t0 = time.perf_counter()
    for i in range(cases):
        mesh.echo.call(i).get()
    shared = (time.perf_counter() - t0) / cases
    procs.stop().get()
    t0 = time.perf_counter()
    for i in range(fresh):
        p = this_host().spawn_procs(per_host={"gpus": 2})
        p.spawn("echo", Echo).echo.call(i).get()
        p.stop().get()
    per_case = (time.perf_counter() - t0) / fresh
    return {"shared_s": shared, "baseline_s": per_case, "ratio": per_case / shared}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=40, help="cases on the shared subject")
    parser.add_argument("--fresh", type=int, default=3, help="cases with a fresh subject each (baseline)")
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    rows = {"dtensor: persistent rank pool (4 gloo ranks) vs pool per case": bench_pool(args.cases, args.fresh),
            "actor: shared proc mesh (2 procs) vs mesh per case": bench_mesh(args.cases, args.fresh)}
    print(f"{'benchmark':66} {'shared/case':>12} {'baseline/case':>14} {'ratio':>8}")
    for name, r in rows.items():
        print(f"{name:66} {r['shared_s'] * 1e3:10.1f}ms {r['baseline_s'] * 1e3:12.1f}ms {r['ratio']:7.1f}x")
    if args.json:
        out = {"schema": 1, "cpu_count": os.cpu_count(), "cases": args.cases, "fresh": args.fresh, "results": rows}
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
