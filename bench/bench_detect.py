#!/usr/bin/env python3
"""Benchmark: `port detect --json` wall time against the interpreter's own start (`python -c pass`).

The baseline is what no Python command can beat: the same venv's interpreter starting and
exiting. Both are whole processes, run interleaved (pass, detect, pass, detect, ...) so both
see the same machine load, after warm-up runs that also write the bytecode caches (the bench
clears PYTHONDONTWRITEBYTECODE: a user's first run writes them, later runs read them). The
result is the ratio of medians of wall time, and of CPU time (user + system of the
process: less disturbed by other work on a shared machine); goal: <= 2x. `port` is the venv's
console script when installed, else the script pip would write for ``[project.scripts]`` (pip's own
template: it imports ``re`` before our code runs), written to a temporary directory. More series:
`python -m porting detect --json` (the other entry point), `python -c "import re"` (the floor of
pip's console script) and `python -c "import argparse, json"` (the floor of a command line that
parses arguments with argparse and prints JSON).
`--collect-env` adds `python -m torch.utils.collect_env` (the torch tool for the same question).
`--before DIR` adds the same command run on another copy of the package (e.g. `git archive OLD porting`
unpacked in DIR), to show a change in the same run.
Usage: bench/bench_detect.py [--runs 21] [--collect-env] [--before DIR] [--json FILE]
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


def _once(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    if cmd[0].startswith("PYTHONPATH="):  # this series runs another copy of the package
        env = {**env, "PYTHONPATH": cmd[0].split("=", 1)[1]}
        cmd = cmd[1:]
    """Wall seconds and CPU seconds (user + system, from wait4) of one whole process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


# distlib's ScriptMaker template, which pip (23-25) writes for each [project.scripts] entry
PIP_SCRIPT = """#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from {module} import {func}
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit({func}())
"""


def console_script(where: Path) -> str:
    """The venv's `port`, else the one pip would install for pyproject's [project.scripts]."""
    installed = Path(sys.executable).parent / "port"
    if installed.exists():
        return str(installed)
    import tomllib

    target = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["port"]
    module, func = target.split(":")
    script = where / "port"
    script.write_text(PIP_SCRIPT.format(python=sys.executable, module=module, func=func))
    script.chmod(0o755)
    return str(script)


def interleaved(cmds: dict[str, list[str]], runs: int, env: dict[str, str]) -> dict[str, list[tuple[float, float]]]:
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            times[name].append(_once(cmd, env))
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--collect-env", action="store_true", help="also time python -m torch.utils.collect_env")
    ap.add_argument("--before", metavar="DIR", help="also time port detect with this copy of the package")
    ap.add_argument("--json", dest="json_out", default=None)
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(x for x in (str(ROOT), env.get("PYTHONPATH", "")) if x)
    scratch = tempfile.TemporaryDirectory(prefix="bench-detect-")
    port = [console_script(Path(scratch.name))]
    cmds = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "port detect --json": [*port, "detect", "--json"],
        "python -m porting detect --json": [sys.executable, "-m", "porting", "detect", "--json"],
        "python -c 'import re'": [sys.executable, "-c", "import re"],
        "python -c 'import argparse, json'": [sys.executable, "-c", "import argparse, json"],
    }
    if args.before:
        # `python -m porting`: an older copy need not have the module the console script names;
        # -P: not the working directory (this checkout) first on sys.path, but PYTHONPATH's copy
        cmds["python -m porting detect --json (before)"] = [f"PYTHONPATH={args.before}", sys.executable, "-P", "-m",
                                                            "porting", "detect", "--json"]
    if args.collect_env:
        cmds["python -m torch.utils.collect_env"] = [sys.executable, "-m", "torch.utils.collect_env"]
    load_before = [round(x, 2) for x in os.getloadavg()]
    interleaved(cmds, 2, env)  # warm: page cache, bytecode, the tool-version cache
    times = interleaved(cmds, args.runs, env)
    scratch.cleanup()
    base = statistics.median(w for w, _ in times["python -c pass"])
    base_cpu = statistics.median(c for _, c in times["python -c pass"])
    result: dict[str, object] = {"machine": f"{os.cpu_count()} cores, {os.uname().machine}", "port": port[0],
                                 "load_average_before": load_before,
                                 "load_average": [round(x, 2) for x in os.getloadavg()], "runs": args.runs}
    print(f"baseline: python -c pass ({sys.executable}); ratios are medians of {args.runs} interleaved runs; "
          f"port = {port[0]}")
    print(f"{'command (interleaved, warmed by 2 runs)':<40} {'wall':>9} {'ratio':>6} {'CPU':>9} {'ratio':>6}")
    for name, series in times.items():
        wall = statistics.median(w for w, _ in series)
        cpu = statistics.median(c for _, c in series)
        result[name] = {"median_ms": round(wall * 1000, 1), "min_ms": round(min(w for w, _ in series) * 1000, 1),
                        "ratio_to_interpreter_start": round(wall / base, 2),
                        "cpu_median_ms": round(cpu * 1000, 1), "cpu_ratio": round(cpu / base_cpu, 2)}
        print(f"{name:<40} {wall * 1000:>7.1f}ms {wall / base:>5.2f}x {cpu * 1000:>7.1f}ms {cpu / base_cpu:>5.2f}x")
    print(f"load average before {load_before}, after {result['load_average']}; "
          "goal (issue 29): port detect --json <= 2x python -c pass")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
