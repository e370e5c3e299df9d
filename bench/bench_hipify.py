#!/usr/bin/env python3
"""Benchmark `port hipify` and `port audit` against plain torch.utils.hipify, in one run.

Baseline: plain ``torch.utils.hipify.hipify_python.hipify`` (PyTorch-extension mode, as
torch.utils.cpp_extension calls it) on the same generated corpus. Each measurement runs in a
fresh process; plain and ours alternate per repetition so both see the same machine load;
the median and the minimum (the least-disturbed run, the usual statistic on a noisy shared
machine) are reported. Two clocks: "e2e" is the whole process as a user runs it (for
plain: ``python -c 'hipify(...)'`` including ``import torch``; for ours: the ``port`` CLI),
"fn" is the conversion call alone, timed inside the process (excludes interpreter start-up
and imports). Output bytes are compared file by file.

    python bench/bench_hipify.py [--files 520] [--lines 480] [--reps 3] [--jobs 0] [--json out.json]
    python bench/bench_hipify.py --src CHECKOUT/Samples --no-audit   # a real tree (NVIDIA's cuda-samples)

With ``--src`` the tree is copied first, keeping the files plain hipify can read (it raises
on non-UTF-8 text; ours converts those losslessly), and the number left out is printed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

PLAIN = """
import sys, time
t0 = time.perf_counter()
from torch.utils.hipify import hipify_python as hp
t1, c1 = time.perf_counter(), time.process_time()
hp.hipify(project_directory=sys.argv[1], output_directory=sys.argv[2], is_pytorch_extension=True, show_progress=False)
print(time.perf_counter() - t1, time.process_time() - c1)
"""
OURS = """
import resource, sys, time
from porting.hipify import convert_tree
t1, c1 = time.perf_counter(), time.process_time()
m = convert_tree(sys.argv[1], sys.argv[2], jobs=int(sys.argv[3]) or None)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(time.perf_counter() - t1, time.process_time() - c1 + kids.ru_utime + kids.ru_stime)
assert m.ok, m.summary
"""
AUDIT = """
import sys, time
from porting.audit.scan import audit_paths
t1 = time.perf_counter()
r = audit_paths([sys.argv[1]], jobs=int(sys.argv[2]) or None)
dt = time.perf_counter() - t1
print(dt, r.lines, len(r.findings))
"""


def run(cmd: list[str]) -> tuple[float, str]:
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-3000:]}")
    return wall, proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""


def digest(root: Path) -> dict[str, str]:
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            if name == ".port-hipify-manifest.json":
                continue
            p = Path(dirpath) / name
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def copy_readable(tree: Path, dest: Path) -> dict[str, int]:
    """Copy the regular files of ``tree`` that decode as UTF-8 (plain hipify reads nothing else)."""
    files = lines = left_out = 0
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                left_out += 1
                continue
            target = dest / path.relative_to(tree)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            files += 1
            lines += data.count(b"\n")
    return {"files": files, "lines": lines, "left_out_not_utf8": left_out, "source": str(tree)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=520)
    parser.add_argument("--lines", type=int, default=480)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=0, help="port hipify/audit workers (0 = cores)")
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    parser.add_argument("--src", metavar="DIR", help="convert a copy of this tree instead of a generated corpus")
    parser.add_argument("--no-audit", action="store_true", help="skip the `port audit` rows")
    args = parser.parse_args()

    from gen_cuda_corpus import generate

    py = sys.executable
    port = str(Path(py).with_name("port"))
    work = Path(tempfile.mkdtemp(prefix="bench-hipify-"))
    try:
        src = work / "src"
        stats = copy_readable(Path(args.src), src) if args.src else generate(src, args.files, args.lines, seed=0)
        rows: dict[str, list[float]] = {k: [] for k in (
            "plain_e2e", "plain_fn", "ours_e2e", "ours_fn", "warm_e2e", "warm_fn", "audit_fn", "audit_fn_1job",
            "plain_cpu", "ours_cpu")}
        identical = True
        for _rep in range(args.reps):
            for d in ("plain", "ours", "ours_fn"):
                shutil.rmtree(work / d, ignore_errors=True)
            wall, fn = run([py, "-c", PLAIN, str(src), str(work / "plain")])
            rows["plain_e2e"].append(wall)
            rows["plain_fn"].append(float(fn.split()[0]))
            rows["plain_cpu"].append(float(fn.split()[1]))
            wall, _ = run([port, "hipify", str(src), "--out", str(work / "ours"), "--jobs", str(args.jobs)])
            rows["ours_e2e"].append(wall)
            wall, fn = run([py, "-c", OURS, str(src), str(work / "ours_fn"), str(args.jobs)])
            rows["ours_fn"].append(float(fn.split()[0]))
            rows["ours_cpu"].append(float(fn.split()[1]))
            wall, _ = run([port, "hipify", str(src), "--out", str(work / "ours"), "--jobs", str(args.jobs)])
            rows["warm_e2e"].append(wall)
            wall, fn = run([py, "-c", OURS, str(src), str(work / "ours_fn"), str(args.jobs)])
            rows["warm_fn"].append(float(fn.split()[0]))
            plain_digest = digest(work / "plain")
            identical &= plain_digest == digest(work / "ours") == digest(work / "ours_fn")
            if args.no_audit:
                rows["audit_fn"].append(float("nan"))
                rows["audit_fn_1job"].append(float("nan"))
                lines_audited = 0
                continue
            _, out = run([py, "-c", AUDIT, str(src), str(args.jobs)])
            rows["audit_fn"].append(float(out.split()[0]))
            lines_audited = int(out.split()[1])
            _, out = run([py, "-c", AUDIT, str(src), "1"])
            rows["audit_fn_1job"].append(float(out.split()[0]))
        med = {k: statistics.median(v) for k, v in rows.items()}
        best = {k: min(v) for k, v in rows.items()}
        result = {
            "command": " ".join([Path(py).name, *sys.argv]),
            "corpus": stats, "reps": args.reps, "jobs": args.jobs or os.cpu_count(), "cpus": os.cpu_count(),
            "load_avg_1min_at_end": os.getloadavg()[0],
            "median_seconds": med, "min_seconds": best, "samples": rows, "identical_bytes": identical,
            "ratios": {
                "cold_speedup_fn": med["plain_fn"] / med["ours_fn"],
                "cpu_fraction": med["ours_cpu"] / med["plain_cpu"],
                "cold_speedup_e2e": med["plain_e2e"] / med["ours_e2e"],
                "warm_fraction_fn": med["warm_fn"] / med["plain_fn"],
                "warm_fraction_e2e": med["warm_e2e"] / med["plain_e2e"],
                "audit_lines_per_s": lines_audited / med["audit_fn"],
                "audit_lines_per_s_1job": lines_audited / med["audit_fn_1job"],
            },
            "ratios_min": {
                "cold_speedup_fn": best["plain_fn"] / best["ours_fn"],
                "cpu_fraction": best["ours_cpu"] / best["plain_cpu"],
                "cold_speedup_e2e": best["plain_e2e"] / best["ours_e2e"],
                "warm_fraction_fn": best["warm_fn"] / best["plain_fn"],
                "warm_fraction_e2e": best["warm_e2e"] / best["plain_e2e"],
                "audit_lines_per_s": lines_audited / best["audit_fn"],
                "audit_lines_per_s_1job": lines_audited / best["audit_fn_1job"],
            },
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)

    r, rb = result["ratios"], result["ratios_min"]
    print(f"corpus: {stats['files']} files, {stats['lines']} lines; {args.reps} reps; "
          f"jobs={result['jobs']} on {result['cpus']} CPUs; load avg {result['load_avg_1min_at_end']:.1f}")
    print(f"{'measurement':36} {'median s':>9} {'ratio':>10} {'min s':>8} {'ratio':>10}")

    def row(label: str, key: str, ratio: str, fmt: str) -> None:
        print(f"{label:36} {med[key]:9.3f} {fmt.format(r[ratio]) if ratio else 'baseline':>10} "
              f"{best[key]:8.3f} {fmt.format(rb[ratio]) if ratio else 'baseline':>10}")

    row("plain hipify, conversion call (fn)", "plain_fn", "", "")
    row("port hipify cold, fn", "ours_fn", "cold_speedup_fn", "{:.2f}x")
    row("port hipify warm (no change), fn", "warm_fn", "warm_fraction_fn", "{:.1%}")
    row("plain hipify CPU seconds (fn)", "plain_cpu", "", "")
    row("port hipify cold CPU s, all processes", "ours_cpu", "cpu_fraction", "{:.0%}")
    row("plain hipify, whole process (e2e)", "plain_e2e", "", "")
    row("port hipify cold, CLI e2e", "ours_e2e", "cold_speedup_e2e", "{:.2f}x")
    row("port hipify warm, CLI e2e", "warm_e2e", "warm_fraction_e2e", "{:.1%}")
    row("port audit, fn (lines/s)", "audit_fn", "audit_lines_per_s", "{:,.0f}")
    row("port audit, fn, 1 job (lines/s)", "audit_fn_1job", "audit_lines_per_s_1job", "{:,.0f}")
    print(f"byte-identical to plain hipify: {identical}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0 if identical else 1


if __name__ == "__main__":
    raise SystemExit(main())
