"""Benchmark `port report`: merge 3 runs x 100,000 cases into every artifact (issue 29's goal:
<= 3 s, memory growing linearly).

Baseline (measured in the same run, same files): a plain junitparser load, i.e.
``JUnitXml.fromfile`` of each file plus reading every case's name and result.
Prints a table of best-of-N wall and CPU times and their ratios to the baseline, and the load
average before and after; ``--json FILE`` writes them. ``--before DIR`` adds the same read and
write done by another copy of the package (e.g. ``git archive OLD porting`` unpacked in DIR), in a
fresh process, alternating with this copy in its own fresh process, to show a change in one run.

    .venv/bin/python bench/bench_report.py [--cases 100000] [--runs 3] [--repeat 1] [--json out.json]
    .venv/bin/python bench/bench_report.py --cases 20000 --repeat 3 --memory 1000,20000,100000

``--memory N,M,...``: peak RSS of a fresh process that reads N cases per run into every artifact,
for each N (the growth should be linear in N), beside the same for the junitparser baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from xml.sax.saxutils import quoteattr

COMPONENTS = ("actor", "rdma", "sharding", "supervision", "native", "soak", "mesh")
PLATFORMS = (
    {"port.platform": "cuda", "port.cuda_version": "13.0", "port.gpu_arch": "sm_90"},
    {"port.platform": "rocm", "port.rocm_version": "7.0.2", "port.rocm_usable": "true", "port.gpu_arch": "gfx942"},
    {"port.platform": "cpu"},
)


def make_run(path: Path, props: dict[str, str], cases: int, seed: int) -> None:
    rng = random.Random(seed)
    props = {"port.schema": "1", **props, "port.run_id": f"run{seed}", "port.shard": "1/1",
             "port.complete": "true", "port.collected": str(cases)}
    out = ['<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest"><properties>']
    out += [f"<property name={quoteattr(k)} value={quoteattr(v)}/>" for k, v in props.items()]
    out.append("</properties>")
    for i in range(cases):
        comp = COMPONENTS[i % len(COMPONENTS)]
        roll = rng.random()
        inner = ""
        if roll < 0.01:
            inner = (f'<failure message={quoteattr(f"AssertionError: <x> != {i} & more")}>'
                     "Traceback (most recent call last):\n  ...\nAssertionError</failure>")
        elif roll < 0.015:
            inner = '<error message="failed on setup with &quot;RuntimeError: boom&quot;">tb</error>'
        elif roll < 0.05:
            inner = '<skipped type="pytest.skip" message="needs two GPUs">skip</skipped>'
        out.append(f'<testcase classname="tests.{comp}.test_mod{i % 50}" name="test_case_{i}[p{i % 3}]" '
                   f'time="{rng.random() * 0.2:.4f}"><properties><property name="component" value="{comp}"/>'
                   f"</properties>{inner}</testcase>")
    out.append("</testsuite></testsuites>")
    path.write_text("".join(out), encoding="utf-8")


def plain_junitparser(files: list[Path]) -> int:
    from junitparser import JUnitXml

    n = 0
    for f in files:
        for suite in JUnitXml.fromfile(str(f)):
            for case in suite:
                _ = (case.classname, case.name, case.result)
                n += 1
    return n


def fromfile_only(files: list[Path]) -> int:
    from junitparser import JUnitXml

    return sum(1 for f in files for _ in JUnitXml.fromfile(str(f)))


def best(fn, repeat: int) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds of this process) over ``repeat`` calls."""
    walls, cpus = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return min(walls), min(cpus)


def _timed_child(files: list[str], out: str, repeat: int) -> None:
    """In a fresh process: best-of-``repeat`` (wall, CPU) of the read and of the write, as JSON."""
    from porting.report import build_report, write_artifacts

    report = None

    def read() -> None:
        nonlocal report
        report = build_report(files)

    read_t = best(read, repeat)
    write_t = best(lambda: write_artifacts(report, out), repeat)
    print(json.dumps({"read": read_t, "write": write_t}))


def _child_times(package: str, files: list[Path], out: Path, repeat: int) -> dict[str, tuple[float, float]]:
    env = {**os.environ, "PYTHONPATH": package}
    proc = subprocess.run([sys.executable, __file__, "--child", "time", "--repeat", str(repeat), "--out", str(out),
                           *map(str, files)], capture_output=True, text=True, check=True, env=env)
    return {k: tuple(v) for k, v in json.loads(proc.stdout.splitlines()[-1]).items()}  # type: ignore[misc]


def _peak_rss_child(kind: str, files: list[str], out: str) -> None:
    """In a fresh process: do one thing, print the peak RSS in MiB."""
    if kind == "report":
        from porting.report import build_report, write_artifacts

        write_artifacts(build_report(files), out)
    else:
        plain_junitparser([Path(f) for f in files])
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def memory_rows(sizes: list[int], runs: int) -> list[tuple[int, float, float]]:
    """(cases per run, peak RSS MiB of port report, of the junitparser baseline) per size."""
    rows = []
    for cases in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            files = []
            for i in range(runs):
                f = Path(tmp) / f"run{i}.xml"
                make_run(f, PLATFORMS[i % len(PLATFORMS)], cases, seed=i)
                files.append(str(f))
            peaks = []
            for kind in ("report", "plain"):
                proc = subprocess.run([sys.executable, __file__, "--child", kind, "--out", str(Path(tmp) / "out"),
                                       *files], capture_output=True, text=True, check=True)
                peaks.append(float(proc.stdout.split()[-1]))
        rows.append((cases, peaks[0], peaks[1]))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memory", default="", metavar="N,M", help="peak RSS at these case counts per run")
    ap.add_argument("--memory-only", action="store_true", help="only the --memory rows")
    ap.add_argument("--child", choices=("report", "plain", "time"), help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("files", nargs="*", help=argparse.SUPPRESS)
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--before", metavar="DIR", help="also time the report of this copy of the package")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    if args.child == "time":
        _timed_child(args.files, args.out, args.repeat)
        return
    if args.child:
        _peak_rss_child(args.child, args.files, args.out)
        return
    load_before = os.getloadavg()
    # first, while this process is small: Linux carries a parent's peak RSS into a forked child
    memory = memory_rows([int(x) for x in args.memory.split(",") if x], args.runs)
    for cases, ours, plain in memory:
        print(f"peak RSS, {args.runs} x {cases} cases: port report {ours:.0f} MiB, "
              f"junitparser baseline {plain:.0f} MiB")
    if args.memory_only:
        return

    from porting.report import build_report, write_artifacts

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = []
        for i in range(args.runs):
            f = root / f"run{i}.xml"
            make_run(f, PLATFORMS[i % len(PLATFORMS)], args.cases, seed=i)
            files.append(f)
        size = sum(f.stat().st_size for f in files)
        plain_junitparser(files)  # warm imports and the page cache

        t_fromfile = best(lambda: fromfile_only(files), args.repeat)
        t_plain = best(lambda: plain_junitparser(files), args.repeat)
        t_build = best(lambda: build_report([str(f) for f in files]), args.repeat)
        report = build_report([str(f) for f in files])
        t_write = best(lambda: write_artifacts(report, root / "out"), args.repeat)
        t_total = best(lambda: write_artifacts(build_report([str(f) for f in files]), root / "out"), args.repeat)
        sizes = {p.name: p.stat().st_size for p in (root / "out").iterdir()}
        versions: dict[str, dict[str, tuple[float, float]]] = {}
        if args.before:
            here = str(Path(__file__).resolve().parent.parent)
            for name, package in (("this copy", here), ("before", args.before), ("this copy", here),
                                  ("before", args.before)):
                got = _child_times(package, files, root / "out-child", args.repeat)
                old = versions.setdefault(name, got)
                versions[name] = {k: min(old[k], got[k]) for k in got}

    rows = [
        ("junitparser fromfile only", t_fromfile),
        ("junitparser load + read every case (baseline)", t_plain),
        ("port report: read + matrix + verdict", t_build),
        ("port report: write json/md/html/svg", t_write),
        ("port report: total (read -> all artifacts)", t_total),
    ]
    for name, times in versions.items():
        rows += [(f"{name} (fresh process): read", times["read"]), (f"{name} (fresh process): write", times["write"]),
                 (f"{name} (fresh process): read + write",
                  (times["read"][0] + times["write"][0], times["read"][1] + times["write"][1]))]
    load_after = os.getloadavg()
    load = load_after[0]
    print(f"{args.runs} runs x {args.cases} cases ({size / 1e6:.1f} MB of JUnit), best of {args.repeat}; "
          f"python {platform.python_version()}; {os.cpu_count()} CPUs; load average before "
          f"{' '.join(f'{x:.2f}' for x in load_before)}, after {' '.join(f'{x:.2f}' for x in load_after)}")
    print("baseline: junitparser load + read every case (JUnitXml.fromfile, each case's classname, name, result)")
    print(f"{'step':50} {'wall s':>8} {'cpu s':>8} {'x baseline (wall)':>18} {'x baseline (cpu)':>17}")
    for name, (wall, cpu) in rows:
        print(f"{name:50} {wall:8.3f} {cpu:8.3f} {wall / t_plain[0]:18.2f} {cpu / t_plain[1]:17.2f}")
    print("artifacts: " + ", ".join(f"{k} {v / 1e6:.2f} MB" for k, v in sorted(sizes.items())))
    print(f"goal (issue 29): 3 x 100,000 cases read -> all artifacts in <= 3 s; here {args.runs} x {args.cases}: "
          f"{t_total[0]:.2f} s wall / {t_total[1]:.2f} CPU-s = {t_total[1] / t_plain[1]:.2f}x the baseline's CPU time")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "runs": args.runs, "cases": args.cases, "junit_bytes": size, "repeat": args.repeat,
            "baseline": "junitparser load + read every case", "load_average": load,
            "load_average_before": load_before, "load_average_after": load_after,
            "wall_seconds": {name: w for name, (w, _) in rows}, "cpu_seconds": {name: c for name, (_, c) in rows},
            "ratio_wall": {name: w / t_plain[0] for name, (w, _) in rows}, "artifact_bytes": sizes,
            "ratio_cpu": {name: c / t_plain[1] for name, (_, c) in rows},
            "peak_rss_mib": [{"cases_per_run": n, "port_report": o, "junitparser": p} for n, o, p in memory]},
            indent=2) + "\n")


if __name__ == "__main__":
    main()
