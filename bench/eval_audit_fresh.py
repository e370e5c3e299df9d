#!/usr/bin/env python3
"""`port audit` on the fresh labelled corpus of issue 26 (tests/audit/fresh/labels.toml): precision
and wave64 recall per half (tune / holdout), on a checkout of the sources the labels name.

The third-party code is not in this repository: ``--root DIR`` holds one directory per
[[source]] (its ``name``), each the repository at the labelled commit (for aten-cuda: a torch
wheel's include/ATen/cuda). Every file of a half is audited as one run, the way the labels were
made; findings without a label and labels without a finding are printed (both must be empty for
the figures to mean anything).

    .venv/bin/python bench/eval_audit_fresh.py --root /path/to/sources [--json out.json]
    .venv/bin/python bench/eval_audit_fresh.py --labels tests/audit/fresh/labels_hecbench_faiss.toml --root DIR
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from porting.audit.evaluate import WAVE64_RULES  # noqa: E402
from porting.audit.scan import audit_paths  # noqa: E402
from porting.audit.tokenize import tokenize  # noqa: E402
from porting.config import _load_toml  # noqa: E402

LABELS = REPO / "tests" / "audit" / "fresh" / "labels.toml"


def score(root: Path, half: str, data: dict) -> dict:
    labels = {(d["source"], d["file"], int(d["line"]), d["rule"]): bool(d["real"])
              for d in data.get("finding", []) if d["half"] == half}
    files = sorted({root / d["source"] / d["file"] for d in data.get("finding", []) if d["half"] == half}
                   | {root / d["source"] / d["file"] for d in data.get("hazard", []) if d["half"] == half}
                   | _half_files(root, data, half))
    found = audit_paths([str(p) for p in files], jobs=1).findings
    keys = set()
    total: Counter[str] = Counter()
    true: Counter[str] = Counter()
    named: set[tuple[str, str, int]] = set()
    spans: dict[Path, dict[int, int]] = {}
    for f in found:
        rel = Path(f.path).resolve().relative_to(root.resolve())
        src, path = rel.parts[0], Path(*rel.parts[1:]).as_posix()
        key = (src, path, f.line, f.rule)
        first = _statement_of(spans, root / src / path, f.line)
        keys.add(key)
        if key in labels:
            total[f.rule] += 1
            true[f.rule] += labels[key]
        # a hazard is named by a wave64 rule's finding on its line that was judged TRUE: a
        # finding whose message is wrong there (labelled FALSE) does not describe it
        if f.rule in WAVE64_RULES and f.rule != "warp-mask-32bit" and labels.get(key, False):
            named.add((src, path, first))
    hazards = [(d["source"], d["file"], int(d["line"])) for d in data.get("hazard", []) if d["half"] == half]
    missed = [h for h in hazards if (h[0], h[1], _statement_of(spans, root / h[0] / h[1], h[2])) not in named]
    wave64 = [r for r in total if r in WAVE64_RULES or r == "warp32-logical"]
    return {"half": half, "files": len(files), "findings": sum(total.values()), "true": sum(true.values()),
            "by_rule": {r: [true[r], total[r]] for r in sorted(total)},
            "wave64_findings": sum(total[r] for r in wave64), "wave64_true": sum(true[r] for r in wave64),
            "hazards": len(hazards), "hazards_named": len(hazards) - len(missed), "missed": missed,
            "unlabelled": sorted(keys - set(labels)), "stale": sorted(set(labels) - keys)}


def statement_lines(text: str) -> dict[int, int]:
    """Map each line holding code to the first line of the statement it belongs to. A statement
    ends at a `;` outside parentheses (so a `for (;;)` header stays whole), at `{` or `}`, and a
    preprocessor directive at the end of its line. A hazard listed on one line of a statement
    that spans several (a ballot whose call sits on the line after `x =`) is named by a finding
    on any of its lines: the listed line and the reported line are the same code."""
    first: dict[int, int] = {}
    start: int | None = None
    depth = 0
    directive: int | None = None
    for tok in tokenize(text):
        if tok.kind == "comment":
            continue
        if directive is not None and tok.line != directive:
            directive, start = None, None
        if tok.kind == "preprocessor":
            directive, start, depth = tok.line, tok.line, 0
        if start is None:
            start = tok.line
        for line in range(start, tok.line + 1):
            first.setdefault(line, start)
        if directive is not None:
            continue
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            depth = max(0, depth - 1)
        elif tok.text in ("{", "}") or (tok.text == ";" and depth == 0):
            start, depth = None, 0
    return first


def _statement_of(cache: dict[Path, dict[int, int]], path: Path, line: int) -> int:
    if path not in cache:
        try:
            cache[path] = statement_lines(path.read_text(errors="replace"))
        except OSError:
            cache[path] = {}
    return cache[path].get(line, line)


def _half_files(root: Path, data: dict, half: str) -> set[Path]:
    listed = data.get("split", {}).get(half, [])
    return {root / p for p in listed}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True, help="directory holding one checkout per labelled source")
    ap.add_argument("--json", default=None, help="also write the figures here")
    ap.add_argument("--labels", default=str(LABELS), help="the label file (default: %(default)s)")
    ap.add_argument("--half", choices=("tune", "holdout"), action="append",
                    help="score only this half (repeatable; default both)")
    args = ap.parse_args()
    root = Path(args.root)
    if not root.is_dir():
        print(f"eval_audit_fresh: --root {root}: not a directory", file=sys.stderr)
        return 2
    labels = Path(args.labels)
    if not labels.is_file():
        print(f"eval_audit_fresh: --labels {labels}: not a file", file=sys.stderr)
        return 2
    data = _load_toml(labels)
    out = [score(root, half, data) for half in (args.half or ("tune", "holdout"))]
    for s in out:
        pct = 100 * s["true"] / s["findings"] if s["findings"] else float("nan")
        w = 100 * s["wave64_true"] / s["wave64_findings"] if s["wave64_findings"] else float("nan")
        print(f"{s['half']:8} {s['files']} files: precision {s['true']}/{s['findings']} = {pct:.1f}%; wave64 rules "
              f"{s['wave64_true']}/{s['wave64_findings']} = {w:.1f}%; hazards named by a rule that describes them "
              f"{s['hazards_named']}/{s['hazards']}; missed {s['missed']}")
        for rule, (t, n) in s["by_rule"].items():
            print(f"    {rule:20} {t:4}/{n:<4}")
        if s["unlabelled"] or s["stale"]:
            print(f"    unlabelled {s['unlabelled']}\n    labels without a finding {s['stale']}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
