"""Scaling study of `port soak` (bench/bench_soak_scale.py): how long a partition of one host
takes to recover from as the number of replica groups grows, and a model fitted to it.

Pure functions: the recovery times are read from a soak's own record (soak.json), and the fit is
ordinary least squares over given points, so both are tested on known inputs.

Times of one partition (or host loss) fault, all from the soak's per-step records:

* ``reform_s``: from the fault to the first step committed by a replica group on another host
  under a quorum that did not exist before the fault and that leaves the cut-off host's groups out
  (the survivors noticed, the Lighthouse dropped the silent members, the quorum re-formed, one
  step committed in it);
* ``heal_s``: from the link coming back to the last cut-off group having loaded its state from a
  live peer (torchft's checkpoint transport);
* ``rejoin_s``: from the link coming back to the last cut-off group committing again.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..errors import InputError

CUT_OFF_FAULTS = ("partition", "host_loss")


def fault_times(data: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per partition / host-loss fault of a soak record: replica groups, reform, heal and
    rejoin times (None where the soak never saw that moment)."""
    steps = [s for s in data.get("steps", []) if s.get("committed")]
    n = int(data["spec"]["replicas"])
    rows = []
    for fault in data.get("faults", []):
        if fault.get("kind") not in CUT_OFF_FAULTS:
            continue
        victims = [int(v["replica"]) for v in fault["victims"]]
        heals = [v.get("healed_after_link_s") for v in fault["victims"]]
        rejoins = [v.get("rejoin_after_heal_s") for v in fault["victims"]]
        rows.append({"replicas": n, "fault": fault["id"], "kind": fault["kind"], "host": fault["host"],
                     "victims": len(victims), "reform_s": reform_s(steps, float(fault["t"]), victims, n),
                     "heal_s": _last(heals), "rejoin_s": _last(rejoins)})
    return rows


def _last(values: Sequence[float | None]) -> float | None:
    """The time of the slowest victim; None if any victim never got there."""
    return None if not values or any(v is None for v in values) else max(float(v) for v in values if v is not None)


def reform_s(steps: Sequence[dict[str, Any]], t0: float, victims: Sequence[int], replicas: int) -> float | None:
    """Seconds from ``t0`` to the first commit by a non-victim under a quorum id unseen before
    ``t0`` whose participants leave the victims out; None if there is none."""
    before = {s["quorum_id"] for s in steps if float(s["t"]) <= t0}
    cut = set(victims)
    first = min((float(s["t"]) for s in steps if float(s["t"]) > t0 and s["replica"] not in cut
                 and s["quorum_id"] not in before and int(s["participants"]) <= replicas - len(cut)),
                default=None)
    return None if first is None else round(first - t0, 3)


@dataclass(frozen=True)
class Fit:
    """``y = a + b * basis(n)`` fitted by least squares; ``stderr`` = sqrt(RSS / (points - params))."""

    model: str
    a: float
    b: float
    rss: float
    stderr: float
    points: int

    def predict(self, n: float) -> float:
        return self.a + self.b * BASES[self.model](n)

    def formula(self) -> str:
        term = {"constant": "", "linear": " + {b:.4g}*n", "log": " + {b:.4g}*ln(n)"}[self.model]
        return ("{a:.4g}" + term).format(a=self.a, b=self.b)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "formula": self.formula()}


BASES: dict[str, Callable[[float], float]] = {
    "constant": lambda n: 0.0,
    "linear": lambda n: float(n),
    "log": lambda n: math.log(n),
}
PARAMS = {"constant": 1, "linear": 2, "log": 2}


def fit_model(points: Sequence[tuple[float, float]], model: str) -> Fit:
    """Least squares of one model over (n, y) points (at least 3, and 2 distinct n)."""
    if len(points) < 3 or len({n for n, _ in points}) < 2:
        raise InputError(f"fit: need at least 3 points over 2 or more sizes, got {len(points)}")
    if any(n <= 0 for n, _ in points):
        raise InputError("fit: sizes must be positive")
    xs = [BASES[model](n) for n, _ in points]
    ys = [float(y) for _, y in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = 0.0 if sxx == 0 else sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    rss = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    return Fit(model, a, b, rss, math.sqrt(rss / (len(points) - PARAMS[model])), len(points))


def best_fit(points: Sequence[tuple[float, float]]) -> tuple[Fit, list[Fit]]:
    """Every model fitted; the chosen one has the smallest residual standard error (RSS over the
    degrees of freedom left, so a second parameter must earn its place), ties to fewer parameters."""
    fits = [fit_model(points, m) for m in BASES]
    chosen = min(fits, key=lambda f: (round(f.stderr, 9), PARAMS[f.model]))
    return chosen, fits


def medians(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """One point per size, the median of its trials: a fit over these is not pulled by one trial
    that a load spike on the shared machine stretched."""
    by: dict[float, list[float]] = {}
    for n, y in points:
        by.setdefault(n, []).append(float(y))
    return [(n, statistics.median(ys)) for n, ys in sorted(by.items())]
