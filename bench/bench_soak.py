"""Recovery speed of `port soak`: restart onto a warm spare proc vs the baseline, a cold restart
(a newly spawned proc that must import torch/torchft and warm up before it can heal).

Both soaks run in this invocation, one after the other, with the same schedule; the figure is the
ratio cold / warm of the median (and max) replica downtime, time to heal and time to rejoin.

    .venv/bin/python bench/bench_soak.py [--replicas 3] [--duration 60] [--fault-every 20]
                                         [--faults kill,raise,collective] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from porting.soak.launch import soak  # noqa: E402
from porting.soak.spec import SoakSpec  # noqa: E402


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def measure(spec: SoakSpec, out: Path) -> dict[str, object]:
    data = soak(spec, out, os.environ).to_json()
    faults = data["faults"]
    pick = lambda key: [float(f[key]) for f in faults if f.get(key) is not None]  # noqa: E731
    return {
        "ok": data["ok"], "faults": len(faults), "failed": [i["name"] for i in data["invariants"] if not i["ok"]],
        "downtime_median_s": _median(pick("downtime_s")),
        "downtime_max_s": max(pick("downtime_s"), default=float("nan")),
        "heal_median_s": _median(pick("heal_s")), "rejoin_median_s": _median(pick("rejoin_s")),
        "steps_missed": sum(int(f["steps_missed"] or 0) for f in faults),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--fault-every", type=float, default=20.0)
    ap.add_argument("--faults", default="kill,raise,collective")
    ap.add_argument("--json", default=None, metavar="OUT")
    args = ap.parse_args()
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench_soak.") as tmp:
        for name, warm in (("cold restart (baseline)", False), ("warm spare", True)):
            spec = SoakSpec(replicas=args.replicas, duration_s=args.duration, fault_every_s=args.fault_every,
                            faults=args.faults.split(","), warm_spare=warm).validate()
            results[name] = measure(spec, Path(tmp) / ("warm" if warm else "cold"))
    cold, warm = results["cold restart (baseline)"], results["warm spare"]
    rows = ["downtime_median_s", "downtime_max_s", "heal_median_s", "rejoin_median_s", "steps_missed"]
    print(f"{'metric':<20} {'cold (baseline)':>16} {'warm spare':>12} {'cold/warm':>10}")
    ratios = {}
    for key in rows:
        c, w = float(cold[key]), float(warm[key])
        ratios[key] = c / w if w else None
        shown = f"{ratios[key]:>9.2f}x" if ratios[key] is not None else f"{'n/a':>10}"
        print(f"{key:<20} {c:>16.3f} {w:>12.3f} {shown}")
    print(f"invariants: cold {'PASS' if cold['ok'] else 'FAIL ' + ','.join(cold['failed'])}, "
          f"warm {'PASS' if warm['ok'] else 'FAIL ' + ','.join(warm['failed'])}")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "results": results, "ratios": ratios}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
