#!/usr/bin/env python3
"""`port audit` precision, recall and throughput, against today's audit in the same run.

Quality, on the labelled corpus of real CUDA code (tests/audit/corpus, see labels.toml and
hazards.toml there): precision per rule, precision over default-on rules weighted by frequency
(true findings / findings), recall per wave64 hazard class, and the hazards missed.

Throughput, in lines/s of ``audit_paths`` (one process, ``--jobs`` workers, symbol sets loaded
before the clock starts), on two trees: the labelled corpus and a synthetic 250k-line tree from
bench/gen_cuda_corpus.py. The baseline is the audit as it was before issue 17
(``--baseline-ref``, extracted with ``git archive`` into a temporary directory and run the same
way in a fresh interpreter); each round runs baseline and ours back to back, and the table shows
medians of ``--repeat`` rounds.

    .venv/bin/python bench/bench_audit.py [--repeat 5] [--jobs 1] [--json bench/out/audit.json]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from porting.audit.evaluate import evaluate  # noqa: E402
from porting.audit.rules import RULES  # noqa: E402
from porting.audit.scan import audit_paths  # noqa: E402

CORPUS = REPO / "tests" / "audit" / "corpus"
BASELINE_REF = "469d6e2"  # main before issue 17's audit work (today's `port audit`)
TIMER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from porting.audit.scan import audit_paths
from porting.audit.tables import hipify_map
hipify_map()
try:
    from porting.audit.symbols import symbol_sets
    symbol_sets()
except ImportError:
    pass  # today's audit has no symbol sets
t, c = time.perf_counter(), time.process_time()
r = audit_paths([sys.argv[2]], jobs=int(sys.argv[3]))
print(time.perf_counter() - t, time.process_time() - c, r.lines)
"""


def quality() -> None:
    result = audit_paths([CORPUS], jobs=1, enable=[r.id for r in RULES.values() if not r.default])
    ev = evaluate(CORPUS, result.findings)
    print(f"labelled corpus: {result.files} files, {result.lines} lines; "
          f"unlabelled findings {len(ev.unlabelled)}, labels without a finding {len(ev.stale_labels)}")
    print(f"{'rule':22} {'default':8} {'findings':>8} {'true':>5} {'precision':>9}")
    for rule in sorted(ev.total_by_rule, key=lambda r: -ev.total_by_rule[r]):
        print(f"{rule:22} {'on' if RULES[rule].default else 'opt-in':8} {ev.total_by_rule[rule]:8d} "
              f"{ev.true_by_rule[rule]:5d} {ev.precision(rule):9.1%}")
    print(f"weighted precision, default-on rules: {ev.weighted_precision():.1%} "
          f"(all rules: {ev.weighted_precision(default_only=False):.1%})")
    for cls in sorted(ev.hazards_by_class):
        print(f"recall {cls:11} {ev.found_by_class[cls]:3d} / {ev.hazards_by_class[cls]:3d} = {ev.recall(cls):.1%}")
    print(f"recall, all wave64 hazards: {ev.recall():.1%}; missed: {ev.missed}")


def _time(src: Path, tree: Path, jobs: int) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of this process, lines) of one audit in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", TIMER, str(src), str(tree), str(jobs)], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1]), int(out[2])


def _extract(ref: str, where: Path) -> Path:
    """``ref``'s porting package, extracted with git archive under ``where``."""
    where.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "porting"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    return where


def throughput(repeat: int, jobs: int, lines: int, also: tuple[str, ...] = ()) -> dict[str, dict[str, float]]:
    """Medians of ``repeat`` rounds; each round times the baseline, each ref of ``also`` (another
    version to compare with in the same run, e.g. the last merge) and ours, back to back."""
    with tempfile.TemporaryDirectory() as tmp:
        base = _extract(BASELINE_REF, Path(tmp) / "baseline")
        others = [(ref, _extract(ref, Path(tmp) / f"ref-{i}")) for i, ref in enumerate(also)]
        synth = Path(tmp) / "synthetic"
        subprocess.run([sys.executable, str(REPO / "bench" / "gen_cuda_corpus.py"), str(synth),
                        "--files", str(max(1, lines // 480))], check=True, capture_output=True)
        out: dict[str, dict[str, float]] = {}
        for name, tree in (("labelled corpus", CORPUS), ("synthetic tree", synth)):
            versions = [("baseline", base), *others, ("ours", REPO)]
            runs: dict[str, list[float]] = {who: [] for who, _src in versions}
            cpu: dict[str, list[float]] = {who: [] for who, _src in versions}
            n = 0
            for _ in range(repeat):
                for who, src in versions:
                    seconds, cpu_seconds, n = _time(src, tree, jobs)
                    runs[who].append(seconds)
                    cpu[who].append(cpu_seconds)
            med = {who: statistics.median(v) for who, v in runs.items()}
            # CPU time of the auditing process: what the work costs, less disturbed than wall time
            # by other load on a shared machine (meaningful with --jobs 1)
            med_cpu = {who: statistics.median(v) for who, v in cpu.items()}
            out[name] = {"lines": n, "baseline_lines_per_s": n / med["baseline"], "ours_lines_per_s": n / med["ours"],
                         "ratio": med["baseline"] / med["ours"], "ratio_cpu": med_cpu["baseline"] / med_cpu["ours"]}
            print(f"{name}: {n} lines, jobs={jobs}: today's audit {n / med['baseline']:,.0f} lines/s, "
                  f"ours {n / med['ours']:,.0f} lines/s, ratio {med['baseline'] / med['ours']:.2f}x (medians of "
                  f"{repeat}); CPU time {med_cpu['baseline']:.3f} s vs {med_cpu['ours']:.3f} s, "
                  f"ratio {med_cpu['baseline'] / med_cpu['ours']:.2f}x")
            for ref, _src in others:
                out[name][f"ratio_cpu_vs_{ref}"] = med_cpu[ref] / med_cpu["ours"]
                print(f"  vs {ref} in the same rounds: wall ratio {med[ref] / med['ours']:.2f}x, CPU time "
                      f"{med_cpu[ref]:.3f} s vs {med_cpu['ours']:.3f} s, ratio {med_cpu[ref] / med_cpu['ours']:.2f}x")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--lines", type=int, default=250_000, help="size of the synthetic tree")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--also-ref", action="append", default=[], metavar="REF",
                        help="another git ref to time in the same rounds (repeatable), e.g. the last merge")
    parser.add_argument("--no-quality", action="store_true", help="throughput only")
    args = parser.parse_args()
    if not args.no_quality:
        quality()
    speed = throughput(args.repeat, args.jobs, args.lines, tuple(args.also_ref))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"throughput": speed}, indent=2,
                                        default=lambda x: None if math.isnan(x) else x))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
