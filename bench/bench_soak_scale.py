"""Scaling of `port soak` recovery with the number of replica groups: for each size, one real soak
on simulated hosts (network namespaces on a bridge, this machine) whose faults all cut one host
off (partition by default); from the soak's own records, per fault: the time to re-form a quorum
without the cut-off host, and the heal and rejoin times once its link is back
(porting/soak/scaling.py defines them). Then each time is fitted (constant, a + b*n, a + b*ln n;
the model with the smallest residual standard error is chosen), over each size's median (not
pulled by one trial a load spike stretched) and over every trial, and evaluated at --extrapolate
replica groups: an EXTRAPOLATION from the sizes run, not a measurement.

    .venv/bin/python bench/bench_soak_scale.py [--sizes 4,8,12,16] [--hosts 4] [--trials 3]
        [--fault partition] [--fault-every 20] [--link-fault 8] [--step-period 0.1] [--json OUT.json]
        [--keep DIR]
    .venv/bin/python bench/bench_soak_scale.py --from A.json --from B.json   # refit earlier runs together

The load average (/proc/loadavg, 1 min) is sampled every 5 s during each soak and reported with
its figures: the machine is shared, and every time here grows with the load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from porting.errors import UsageError  # noqa: E402
from porting.soak.launch import soak  # noqa: E402
from porting.soak.scaling import best_fit, fault_times, medians  # noqa: E402
from porting.soak.spec import SoakSpec  # noqa: E402

METRICS = ("reform_s", "heal_s", "rejoin_s")


class LoadSampler:
    """The 1-minute load average every ``every`` seconds while a soak runs."""

    def __init__(self, every: float = 5.0) -> None:
        self.samples: list[float] = []
        self._every, self._stop = every, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            self.samples.append(float(Path("/proc/loadavg").read_text().split()[0]))
            if self._stop.wait(self._every):
                return

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> dict[str, float]:
        return {"mean": round(statistics.fmean(self.samples), 2), "max": max(self.samples)}


def spec_for(n: int, args: argparse.Namespace) -> SoakSpec:
    return SoakSpec(replicas=n, hosts=args.hosts, replicas_per_host=n // args.hosts, faults=[args.fault],
                    duration_s=(args.trials + 1) * args.fault_every, fault_every_s=args.fault_every,
                    link_fault_s=args.link_fault, step_period_s=args.step_period, timeout_s=args.timeout,
                    startup_budget_s=args.startup_budget).validate()


def run_size(spec: SoakSpec, args: argparse.Namespace, out: Path) -> dict[str, Any]:
    n = spec.replicas
    began = time.time()
    with LoadSampler() as load:
        data = soak(spec, out, os.environ).to_json()
    return {"replicas": n, "hosts": args.hosts, "replicas_per_host": n // args.hosts, "ok": data["ok"],
            "failed": [i["name"] for i in data["invariants"] if not i["ok"]],
            "startup_s": data["run"].get("startup_s"), "wall_s": round(time.time() - began, 1),
            "load": load.summary(), "faults": fault_times(data)}


def fits(sizes: list[dict[str, Any]], extrapolate: int, over: str) -> dict[str, Any]:
    """Each metric fitted over every trial (``over="all"``) or over each size's median."""
    out: dict[str, Any] = {}
    for metric in METRICS:
        points = [(float(s["replicas"]), float(f[metric])) for s in sizes for f in s["faults"]
                  if f[metric] is not None]
        if over == "median":
            points = medians(points)
        if len({n for n, _ in points}) < 2 or len(points) < 3:
            out[metric] = {"error": f"too few points ({len(points)})"}
            continue
        chosen, every = best_fit(points)
        out[metric] = {"chosen": chosen.to_json(), "all": [f.to_json() for f in every],
                       "extrapolated": {str(extrapolate): round(chosen.predict(extrapolate), 2)},
                       "extrapolated_by_model": {f.model: round(f.predict(extrapolate), 2) for f in every}}
    return out


def _cell(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def print_table(sizes: list[dict[str, Any]], fitted: dict[str, Any], extrapolate: int) -> None:
    print(f"{'groups':>6} {'hosts x K':>9} {'faults':>6} {'re-form s, median (range)':>26} "
          f"{'heal s':>20} {'rejoin s':>20} {'load mean/max':>14} invariants")
    for s in sizes:
        cells = [_cell([f[m] for f in s["faults"] if f[m] is not None]) for m in METRICS]
        print(f"{s['replicas']:>6} {s['hosts']:>5} x {s['replicas_per_host']:<2} {len(s['faults']):>6} {cells[0]:>26} "
              f"{cells[1]:>20} {cells[2]:>20} {s['load']['mean']:>7.1f}/{s['load']['max']:<6.1f} "
              f"{'PASS' if s['ok'] else 'FAIL ' + ','.join(s['failed'])}")
    for over, by_metric in fitted.items():
        print(f"\nfits over {over} (least squares; chosen: smallest residual standard error); "
              f"EXTRAPOLATION to {extrapolate} replica groups, not a measurement:")
        _print_fits(by_metric, extrapolate)


def _print_fits(fitted: dict[str, Any], extrapolate: int) -> None:
    for metric, f in fitted.items():
        if "error" in f:
            print(f"  {metric}: no fit, {f['error']}")
            continue
        c = f["chosen"]
        others = ", ".join(f"{m} {v:.2f}" for m, v in f["extrapolated_by_model"].items())
        print(f"  {metric}: {c['formula']} ({c['model']}, residual s.e. {c['stderr']:.3f} s) -> "
              f"{f['extrapolated'][str(extrapolate)]:.2f} s at n={extrapolate} [extrapolated; by model: {others}]")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="4,8,12,16", help="replica groups per soak (multiples of --hosts)")
    ap.add_argument("--hosts", type=int, default=4)
    ap.add_argument("--trials", type=int, default=3, help="faults per soak (one every --fault-every)")
    ap.add_argument("--fault", default="partition", choices=["partition", "host_loss"])
    ap.add_argument("--fault-every", type=float, default=20.0)
    ap.add_argument("--link-fault", type=float, default=8.0,
                    help="seconds a host stays cut off: longer than --timeout, so that the survivors re-form "
                         "their quorum while it is still cut off")
    ap.add_argument("--step-period", type=float, default=0.1)
    ap.add_argument("--timeout", type=float, default=5.0, help="torchft timeout (port soak's default)")
    ap.add_argument("--startup-budget", type=float, default=600.0)
    ap.add_argument("--extrapolate", type=int, default=256)
    ap.add_argument("--json", default=None, metavar="OUT")
    ap.add_argument("--keep", default=None, metavar="DIR", help="keep each soak's output under DIR/nN")
    ap.add_argument("--from", dest="earlier", action="append", default=[], metavar="OUT.json",
                    help="run nothing: table and fit over the sizes of earlier --json files (repeatable)")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    if any(n % args.hosts for n in sizes):
        ap.error(f"--sizes: every size must be a multiple of --hosts ({args.hosts})")
    try:  # every size's soak refused now, in one line, rather than after the first ran
        specs = [spec_for(n, args) for n in sizes]
    except UsageError as exc:
        ap.error(str(exc))
    began = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    results = []
    for path in args.earlier:
        try:
            results.extend(json.loads(Path(path).read_text())["sizes"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            ap.error(f"--from {path}: not a bench_soak_scale result ({exc.__class__.__name__})")
    if not args.earlier:
        with tempfile.TemporaryDirectory(prefix="bench_soak_scale.") as tmp:
            root = Path(args.keep) if args.keep else Path(tmp)
            for spec in specs:
                results.append(run_size(spec, args, root / f"n{spec.replicas}"))
                print(json.dumps(results[-1]), flush=True)
    fitted = {"each size's median": fits(results, args.extrapolate, "median"),
              "every trial": fits(results, args.extrapolate, "all")}
    print()
    print_table(results, fitted, args.extrapolate)
    if args.json:
        Path(args.json).write_text(json.dumps({"began": began, "args": vars(args), "sizes": results,
                                               "fits": fitted, "cpus": os.cpu_count()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
