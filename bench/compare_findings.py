#!/usr/bin/env python3
"""Do two versions of `port audit` find the same things? (issue 26: a speed-up changes no finding.)

Each version (a git ref, extracted with ``git archive`` into a temporary directory, or ``.`` for
the working tree) audits each tree in a fresh interpreter, one job, every rule enabled; the
findings (path, line, column, rule, severity, symbol, message), the suppressed count and the file
and line counts are compared as JSON. Default trees: the labelled corpus, tests/audit's other
trees and a synthetic tree from bench/gen_cuda_corpus.py. Exit 0 when identical, 1 otherwise
(the first differences are printed).

    .venv/bin/python bench/compare_findings.py f07907e .  [--tree DIR ...] [--lines 250000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
AUDIT_TREES = ["corpus", "fresh", "golden", "data", "confirm", "confirm_lines"]
SNAPSHOT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from porting.audit.rules import RULES
from porting.audit.scan import audit_paths
r = audit_paths([sys.argv[2]], jobs=1, enable=[x.id for x in RULES.values() if not x.default])
print(json.dumps({"findings": [[f.path, f.line, f.col, f.rule, f.severity, f.symbol, f.message] for f in r.findings],
                  "suppressed": r.suppressed, "files": r.files, "lines": r.lines}))
"""


def _source(ref: str, tmp: Path) -> Path:
    """A directory holding ``ref``'s porting package (the working tree for ``.``)."""
    if ref == ".":
        return REPO
    out = tmp / ref.replace("/", "_")
    out.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "porting"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


def _snapshot(src: Path, tree: Path) -> dict:
    # run from the repository so that both versions report the same (relative) paths
    run = subprocess.run([sys.executable, "-c", SNAPSHOT, str(src), str(tree)], capture_output=True, text=True,
                         cwd=REPO)
    if run.returncode != 0:
        last = (run.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"compare_findings: the audit of {src} failed on {tree}: {last}")
    return json.loads(run.stdout)


def _differences(a: dict, b: dict) -> list[str]:
    out = [f"{key}: {a[key]} vs {b[key]}" for key in ("suppressed", "files", "lines") if a[key] != b[key]]
    only_a = [f for f in a["findings"] if f not in b["findings"]]
    only_b = [f for f in b["findings"] if f not in a["findings"]]
    out += [f"only in the first: {f}" for f in only_a[:5]] + [f"only in the second: {f}" for f in only_b[:5]]
    if not out and a["findings"] != b["findings"]:
        out.append("same findings in another order")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", help="a git ref, or . for the working tree")
    parser.add_argument("second", help="a git ref, or . for the working tree")
    parser.add_argument("--tree", action="append", type=Path, default=None, help="a tree to audit (repeatable)")
    parser.add_argument("--lines", type=int, default=250_000, help="size of the synthetic tree (0: none)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as raw:
        tmp = Path(raw)
        trees = args.tree or [Path("tests/audit") / name for name in AUDIT_TREES]
        if args.tree is None and args.lines > 0:
            synth = tmp / "synthetic"
            subprocess.run([sys.executable, str(REPO / "bench" / "gen_cuda_corpus.py"), str(synth),
                            "--files", str(max(1, args.lines // 480))], check=True, capture_output=True)
            trees.append(synth)
        sources = [_source(ref, tmp) for ref in (args.first, args.second)]
        same = True
        for tree in trees:
            a, b = (_snapshot(src, tree) for src in sources)
            diff = _differences(a, b)
            print(f"{tree}: {len(a['findings'])} / {len(b['findings'])} findings, "
                  f"{'identical' if not diff else 'DIFFERENT'}")
            for line in diff:
                print(f"  {line}")
            same = same and not diff
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
