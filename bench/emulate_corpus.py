"""Run `port emulate` over a checkout of NVIDIA's cuda-samples and tally the verdicts.

The corpus is not part of this repository (its code is never committed): point --samples at a
checkout (the README's figures: NVIDIA/cuda-samples c94ff366). The programs are chosen by rule,
before looking at any result: every sample directory of the four kernel-centred categories
(0_Introduction, 2_Concepts_and_Techniques, 3_CUDA_Features, 6_Performance); its sources are
the directory's .cu/.cpp files that no other file there #includes. The programs are split into
two halves by the parity of the first byte of sha256(directory name): "tune" (even) is the half
the emulator was improved on, "eval" (odd) the half reported untouched.

    .venv/bin/python bench/emulate_corpus.py --samples DIR [--static] [--half tune|eval|all]
        [--timeout 120] [--out DIR] [--json results.json]

--summarize A.json B.json merges runs (a later file wins per program) and prints the verdict
rate per half, the refusals grouped by class and every divergence.
--static only runs the refusal scan (porting.emulate.refuse) and groups refusals by feature;
without it each program goes through `port emulate --json` and is counted by exit status:
0 same / 1 diverged (judged), 2 refused or not built, 3 inconclusive (timeout).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

CATEGORIES = ("0_Introduction", "2_Concepts_and_Techniques", "3_CUDA_Features", "6_Performance")
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def programs(samples: Path) -> list[tuple[str, list[Path]]]:
    found = []
    for cat in CATEGORIES:
        for d in sorted(p for p in (samples / "Samples" / cat).iterdir() if p.is_dir()):
            files = sorted(p for p in d.iterdir() if p.suffix in (".cu", ".cpp"))
            if not files:
                continue
            included = {Path(name).name for p in d.iterdir() if p.is_file()
                        for name in _INCLUDE.findall(p.read_text(errors="replace"))}
            found.append((d.name, [f for f in files if f.name not in included]))
    return found


def half(name: str) -> str:
    return "tune" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "eval"


def static_scan(progs: list[tuple[str, list[Path]]]) -> dict:
    from porting.emulate import build, refuse
    results = {}
    for name, sources in progs:
        common = sources[0].parents[2].parent / "Common"
        files = build.read_files(sources, [common], [], build.Toolchain())
        refusals = refuse.scan(files)
        results[name] = sorted({r.feature for r in refusals})
    return results


def run_one(name: str, sources: list[Path], out: Path, timeout: int) -> dict:
    common = sources[0].parents[2].parent / "Common"
    cmd = [sys.executable, "-m", "porting", "emulate", *map(str, sources), "-I", str(common),
           "--out", str(out / name), "--json", "--timeout", str(timeout), "--cwd", str(sources[0].parent)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    outcome = {0: "same", 1: "diverged", 3: "inconclusive"}.get(done.returncode, "refused")
    record = {"program": name, "half": half(name), "outcome": outcome, "exit": done.returncode,
              "message": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""}
    try:
        data = json.loads(done.stdout)
        record["differences"] = data["differences"]
        record["faults"] = [r["fault"] for r in data["runs"]]
        record["seconds"] = data["seconds"]
    except (json.JSONDecodeError, KeyError):
        pass
    return record


_FEATURE = re.compile(r":\d+: (.*?), which port emulate does not emulate")
_LACKS = re.compile(r"uses (\w+), which port emulate's runtime does not provide")
_HEADER = re.compile(r"includes <([^>]+)>, which port emulate does not provide")


def reason(record: dict) -> str:
    """A refusal's class: the feature named, the API or header the runtime lacks, or the kind
    of failure."""
    msg = record["message"]
    for pattern, label in ((_FEATURE, "{}"), (_LACKS, "runtime lacks {}"), (_HEADER, "header <{}>")):
        m = pattern.search(msg)
        if m:
            return label.format(m.group(1))
    if "does not compile" in msg:
        return "does not compile"
    if "fails at every width" in msg:
        return "fails at every width"
    return msg[:80]


def summarize(records: list[dict]) -> None:
    by_name = {r["program"]: r for r in records}  # a later record of a program replaces an earlier one
    for h in ("tune", "eval", "all"):
        rs = [r for r in by_name.values() if h == "all" or r["half"] == h]
        tally = collections.Counter(r["outcome"] for r in rs)
        judged = tally["same"] + tally["diverged"]
        print(f"{h}: {len(rs)} programs, verdict for {judged} ({100 * judged / max(len(rs), 1):.0f}%): "
              + ", ".join(f"{o} {tally[o]}" for o in ("same", "diverged", "inconclusive", "refused")))
    print("refusals by class (all):")
    for why, n in collections.Counter(reason(r) for r in by_name.values() if r["outcome"] == "refused").most_common():
        print(f"{n:4d}  {why}")
    for r in sorted(by_name.values(), key=lambda r: r["program"]):
        if r["outcome"] in ("diverged", "inconclusive"):
            print(f"{r['outcome']}: {r['program']} ({r['half']}): {r.get('differences')}"[:400])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=Path, required=True)
    ap.add_argument("--static", action="store_true")
    ap.add_argument("--half", choices=("tune", "eval", "all"), default="all")
    ap.add_argument("--only", action="append", default=[], help="program names (repeatable)")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--out", type=Path, default=Path("/tmp/emulate-corpus"))
    ap.add_argument("--json", type=Path)
    ap.add_argument("--summarize", type=Path, nargs="+", metavar="JSON",
                    help="merge earlier --json result files (a later one wins per program) and print the tally")
    args = ap.parse_args()
    if args.summarize:
        summarize([r for f in args.summarize for r in json.loads(f.read_text())])
        return 0
    progs = [(n, s) for n, s in programs(args.samples)
             if (args.half == "all" or half(n) == args.half) and (not args.only or n in args.only)]
    if args.static:
        results = static_scan(progs)
        by_feature = collections.Counter(f for fs in results.values() for f in fs)
        clean = sum(1 for fs in results.values() if not fs)
        print(f"{len(progs)} programs, {clean} pass the refusal scan")
        for feature, n in by_feature.most_common():
            print(f"{n:4d}  {feature}")
        payload: object = results
    else:
        records = []
        for name, sources in progs:
            rec = run_one(name, sources, args.out, args.timeout)
            records.append(rec)
            print(f"{rec['half']:4s} {rec['outcome']:12s} {name}: {rec['message'][:150]}", flush=True)
            if args.json:  # after every program: a long run stopped early keeps what it measured
                args.json.write_text(json.dumps(records, indent=1))
        tally = collections.Counter((r["half"], r["outcome"]) for r in records)
        for h in ("tune", "eval"):
            n = sum(v for (hh, _), v in tally.items() if hh == h)
            judged = tally[(h, "same")] + tally[(h, "diverged")]
            if n:
                print(f"{h}: {n} programs, judged {judged} ({100 * judged / n:.0f}%): "
                      + ", ".join(f"{o} {tally[(h, o)]}" for o in ("same", "diverged", "inconclusive", "refused")))
        payload = records
    if args.json:
        args.json.write_text(json.dumps(payload, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
