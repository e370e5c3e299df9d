"""parity.md: GitHub-flavoured Markdown that fits ``$GITHUB_STEP_SUMMARY``.

The first two lines are the verdict and the counts. Long lists are cut (the full lists are
in parity.json), so the file stays far below the 1 MiB step-summary limit.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from .model import RAN, STATUSES, pass_rate
from .verdict import CERTIFIED, CERTIFIED_EXTERNAL, INCOMPLETE_STATUS, NO_EVIDENCE

if TYPE_CHECKING:
    from . import Report
    from .model import RunInfo

LIST_LIMIT = 50
ICONS = {CERTIFIED: "✅", NO_EVIDENCE: "⚪", INCOMPLETE_STATUS: "🟡", CERTIFIED_EXTERNAL: "🟠"}
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]|#!~])")


def md(text: str) -> str:
    """Inline-safe text: HTML-escaped and Markdown-escaped, one line."""
    text = " ".join(str(text).split())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


_URL = re.compile(r"^https?://[^\s()<>\[\]`|]+$")


def md_link(url: str) -> str:
    """A Markdown link for a plain http(s) URL; anything else is shown as escaped text."""
    return f"[link]({url})" if _URL.match(url or "") else md(url)


def _rate(counts: dict[str, int]) -> str:
    rate = pass_rate(counts)
    return "n/a" if rate is None else f"{100 * rate:.1f}%"


def _cut(items: list, shown: int) -> str:
    return _more(len(items), shown)


def _more(total: int, shown: int) -> str:
    return f"\n_{total - shown} more in parity.json._\n" if total > shown else ""


def runner_text(run: RunInfo) -> str:
    """``slurm: job 41_2 on cluster c, ...``; ``–`` when the file does not say."""
    if not run.runner:
        return "–"
    return run.runner + (f": {run.runner_detail}" if run.runner_detail else "")


def build_text(version: str, flavour: str) -> str:
    """``2.14.1 (cuda build)``; the flavour only where it is a GPU build."""
    if not version:
        return "–"
    return version + (f" ({flavour} build)" if flavour in ("cuda", "rocm") else "")


def render_md(report: Report) -> str:
    sections = (_head, _why, _platforms, _blocking, _exempted, _never_compared, _other_failures,
                _incomplete, _runs, _components, _baseline, _warnings)
    lines = [line for section in sections for line in section(report)]
    lines.append(f"_Generated {report.generated} by {md(report.tool)}; ROCm gate >= {md(report.min_rocm)}._")
    return "\n".join(lines).replace("\n\n\n", "\n\n") + "\n"


def _table(title: str, header: list[str], align: str, rows: list[str], total: int) -> list[str]:
    """A titled table of (already cut) rows, and the "N more" line."""
    return [title, "| " + " | ".join(header) + " |", align, *rows, _more(total, len(rows))]


def _head(report: Report) -> list[str]:
    m, v = report.matrix, report.verdict
    summary = [f"{len(m.cells)} tests", f"{len(m.columns)} platforms",
               f"reference: {md(report.reference)}"
               + (f" ({', '.join(md(k) for k in v.reference)})" if v.reference else " (none)"),
               f"{len(v.blocking)} blocking", f"{len(v.exempted)} exempted"]
    if m.partial:
        summary.append(f"**PARTIAL**: {len(m.partial_reasons())} problem(s)")
    return [f"# {ICONS.get(v.status, '❌')} ROCm parity: {v.status.upper()}",
            "**" + "** · **".join(summary[:1]) + "** · " + " · ".join(summary[1:]), ""]


def _why(report: Report) -> list[str]:
    v = report.verdict
    lines = ["## Why", *(f"- {md(r)}" for r in v.reasons), ""] if v.reasons else []
    if v.evidence:  # what each column is evidence of, and where it was made
        lines += ["## Evidence", "| column | level | provenance |", "|---|---|---|",
                  *(f"| {md(e['column'])} | {md(e['level'])} | {md(e['provenance'])} |" for e in v.evidence), ""]
    if v.components:
        lines += ["## Components", *(f"- {md(c)}: {md(s)}" for c, s in sorted(v.components.items())[:200]), ""]
    if v.not_executed:
        lines += [f"## Never ran on ROCm ({len(v.not_executed)})",
                  *(f"- {md(n.test_id)} ({md(n.column)}): {n.status}" for n in v.not_executed[:LIST_LIMIT]),
                  _cut(v.not_executed, min(len(v.not_executed), LIST_LIMIT))]
    return lines


def _platforms(report: Report) -> list[str]:
    totals = report.matrix.totals()
    lines = ["## Platforms", "| platform | runs | tests | " + " | ".join(STATUSES) + " | pass rate | complete |",
             "|---|---:|---:|" + "---:|" * len(STATUSES) + "---:|---|"]
    for col in report.matrix.columns:
        t = totals[col.key]["*"]
        present = sum(t[s] for s in STATUSES) - t["missing"]
        lines.append(f"| {md(col.key)} | {len(col.runs)} | {present} | " + " | ".join(str(t[s]) for s in STATUSES)
                     + f" | {_rate(t)} | {'yes' if col.complete else '**no**'} |")
    return [*lines, ""]


def _blocking(report: Report) -> list[str]:
    items = report.verdict.blocking
    rows = [f"| {md(b.test_id)} | {md(b.column)} | {b.status} | {md(b.reference)} | "
            f"{md(b.message + (f' ({b.note})' if b.note else ''))} |" for b in items[:LIST_LIMIT]]
    return _table(f"## Blocking tests ({len(items)})", ["test", "platform", "status", "passes on", "message"],
                  "|---|---|---|---|---|", rows, len(items)) if items else []


def _exempted(report: Report) -> list[str]:
    items = report.verdict.exempted
    rows = [f"| {md(e.test_id)} | {md(e.column)} | {e.status} | {md(e.exemption['id'])} | "
            f"{md(e.exemption['reason'])} | {md_link(e.exemption['link'])} | {e.exemption['expires']} |"
            for e in items[:LIST_LIMIT]]
    return _table(f"## Exempted ({len(items)})",
                  ["test", "platform", "status", "exemption", "reason", "link", "expires"],
                  "|---|---|---|---|---|---|---|", rows, len(items)) if items else []


def _never_compared(report: Report) -> list[str]:
    items = report.verdict.never_compared
    if not items:
        return []
    rows = [f"| {md(n.test_id)} | {md(n.column)} | {n.status} | {n.reference_status} |" for n in items[:LIST_LIMIT]]
    table = _table(f"## Never compared ({len(items)})", ["test", "platform", "status", "on the reference"],
                   "|---|---|---|---|", rows, len(items))
    why = ("No reference run passed these tests (skipped, expected-fail or absent there), so parity was never "
           "measured for them: they do not gate the verdict until a reference run executes them (e.g. device "
           "cases skipped on a CPU reference).")
    return [table[0], why, *table[1:]]


def _other_failures(report: Report) -> list[str]:
    m = report.matrix
    blocked = {(b.test_id, b.column) for b in report.verdict.blocking}
    failures = [(t, k, c) for t in m.test_ids for k, c in m.cells[t].items()
                if c.status in ("failed", "error", "xpassed") and (t, k) not in blocked]
    rows = [f"| {md(tid)} | {md(k)} | {c.status} | {md(c.message)} |" for tid, k, c in failures[:LIST_LIMIT]]
    return _table(f"## Other failures ({len(failures)})", ["test", "platform", "status", "message"],
                  "|---|---|---|---|", rows, len(failures)) if failures else []


def _incomplete(report: Report) -> list[str]:
    reasons = report.matrix.partial_reasons()
    if not reasons:
        return []
    return [f"## Incomplete evidence ({len(reasons)})", *(f"- {md(r)}" for r in reasons[:LIST_LIMIT]),
            _cut(reasons, min(len(reasons), LIST_LIMIT))]


def _runs(report: Report) -> list[str]:
    runs = [(col.key, r) for col in report.matrix.columns for r in col.runs]
    rows = [_run_row(key, r) for key, r in runs[:LIST_LIMIT]]
    header = ["file", "platform", "path", "shard", "host", "run", "started", "runner", "torch", "monarch", "rdma",
              "tests", "complete"]
    return _table(f"## Runs ({len(runs)}): where each column came from", header,
                  "|---|---|---|---|---|---|---|---|---|---|---|---:|---|", rows, len(runs)) if runs else []


def _run_row(key: str, r: RunInfo) -> str:
    return (f"| {md(Path(r.file).name)} | {md(key)} | {md(r.path or '–')} | {md(r.shard or '–')} | "
            f"{md(r.host or '–')} | {md(r.run_id[:12] or '–')} | {md(r.timestamp or '–')} | "
            f"{md(runner_text(r))} | {md(build_text(r.torch_version, r.torch_flavour))} | "
            f"{md(build_text(r.monarch_version, r.monarch_flavour))} | "
            f"{md(r.rdma_backend or '–')} | {r.tests} | {'no' if r.problems else 'yes'} |")


def _components(report: Report) -> list[str]:
    m = report.matrix
    totals = m.totals()
    components = sorted({c for t in totals.values() for c in t if c != "*"})
    if not (components and m.columns):
        return []
    lines = ["## Pass rate per component", "| component | " + " | ".join(md(c.key) for c in m.columns) + " |",
             "|---|" + "---:|" * len(m.columns)]
    for comp in components[:200]:
        cells = []
        for col in m.columns:
            tot = totals[col.key].get(comp)
            cells.append("–" if tot is None else f"{_rate(tot)} ({tot['passed']}/{sum(tot[s] for s in RAN)})")
        lines.append(f"| {md(comp)} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _baseline(report: Report) -> list[str]:
    base = report.baseline
    if base is None:
        return []
    lines = [f"## Against baseline `{md(base.file)}`", ", ".join(f"{n} {k.replace('_', ' ')}"
                                                               for k, n in base.counts().items()), ""]
    for title, items in (("Newly failing", base.newly_failing), ("Newly passing", base.newly_passing)):
        if items:
            lines.append(f"**{title}** ({len(items)}):")
            lines.extend(f"- {md(d['test_id'])} on {md(d['column'])}: {d['before']} → {d['after']}"
                         for d in items[:LIST_LIMIT])
            lines.append(_cut(items, min(len(items), LIST_LIMIT)))
    for title, names in (("Added", base.added), ("Removed", base.removed)):
        if names:
            lines.append(f"**{title}** ({len(names)}): " + ", ".join(md(n) for n in names[:LIST_LIMIT])
                         + (" …" if len(names) > LIST_LIMIT else ""))
            lines.append("")
    changes = base.duration_changes
    if changes:
        lines.append(f"**Duration changed more than 2x** ({len(changes)}):")
        lines.extend(f"- {md(d['test_id'])} on {md(d['column'])}: {d['before']:.3f}s → {d['after']:.3f}s"
                     for d in changes[:LIST_LIMIT])
        lines.append(_cut(changes, min(len(changes), LIST_LIMIT)))
    return lines


def _warnings(report: Report) -> list[str]:
    warnings = report.warnings
    if not warnings:
        return []
    return [f"## Warnings ({len(warnings)})", *(f"- {md(w)}" for w in warnings[:LIST_LIMIT]), ""]
