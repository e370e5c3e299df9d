"""parity.md: GitHub-flavoured Markdown that fits ``$GITHUB_STEP_SUMMARY``.

The first two lines are the verdict and the counts. Long lists are cut (the full lists are
in parity.json), so the file stays far below the 1 MiB step-summary limit.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from .model import RAN, STATUSES, pass_rate
from .verdict import CERTIFIED, NO_EVIDENCE

if TYPE_CHECKING:
    from . import Report
    from .model import RunInfo

LIST_LIMIT = 50
ICONS = {CERTIFIED: "✅", NO_EVIDENCE: "⚪"}
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
    return f"\n_{len(items) - shown} more in parity.json._\n" if len(items) > shown else ""


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
    m, v = report.matrix, report.verdict
    totals = m.totals()
    icon = ICONS.get(v.status, "❌")
    lines = [f"# {icon} ROCm parity: {v.status.upper()}"]
    summary = [f"{len(m.cells)} tests", f"{len(m.columns)} platforms",
               f"reference: {md(report.reference)}"
               + (f" ({', '.join(md(k) for k in v.reference)})" if v.reference else " (none)"),
               f"{len(v.blocking)} blocking", f"{len(v.exempted)} exempted"]
    if m.partial:
        summary.append(f"**PARTIAL**: {len(m.partial_reasons())} problem(s)")
    lines.append("**" + "** · **".join(summary[:1]) + "** · " + " · ".join(summary[1:]))
    lines.append("")
    if v.reasons:
        lines.append("## Why")
        lines.extend(f"- {md(r)}" for r in v.reasons)
        lines.append("")
    lines.append("## Platforms")
    lines.append("| platform | runs | tests | " + " | ".join(STATUSES) + " | pass rate | complete |")
    lines.append("|---|---:|---:|" + "---:|" * len(STATUSES) + "---:|---|")
    for col in m.columns:
        t = totals[col.key]["*"]
        present = sum(t[s] for s in STATUSES) - t["missing"]
        lines.append(f"| {md(col.key)} | {len(col.runs)} | {present} | " + " | ".join(str(t[s]) for s in STATUSES)
                     + f" | {_rate(t)} | {'yes' if col.complete else '**no**'} |")
    lines.append("")
    if v.blocking:
        shown = v.blocking[:LIST_LIMIT]
        lines.append(f"## Blocking tests ({len(v.blocking)})")
        lines.append("| test | platform | status | passes on | message |")
        lines.append("|---|---|---|---|---|")
        for b in shown:
            msg = b.message + (f" ({b.note})" if b.note else "")
            lines.append(f"| {md(b.test_id)} | {md(b.column)} | {b.status} | {md(b.reference)} | {md(msg)} |")
        lines.append(_cut(v.blocking, len(shown)))
    if v.exempted:
        shown_e = v.exempted[:LIST_LIMIT]
        lines.append(f"## Exempted ({len(v.exempted)})")
        lines.append("| test | platform | status | exemption | reason | link | expires |")
        lines.append("|---|---|---|---|---|---|---|")
        for e in shown_e:
            x = e.exemption
            lines.append(f"| {md(e.test_id)} | {md(e.column)} | {e.status} | {md(x['id'])} | {md(x['reason'])} | "
                         f"{md_link(x['link'])} | {x['expires']} |")
        lines.append(_cut(v.exempted, len(shown_e)))
    if v.never_compared:
        shown_n = v.never_compared[:LIST_LIMIT]
        lines.append(f"## Never compared ({len(v.never_compared)})")
        lines.append("No reference run passed these tests (skipped, expected-fail or absent there), so "
                     "parity was never measured for them: they do not gate the verdict until a reference "
                     "run executes them (e.g. device cases skipped on a CPU reference).")
        lines.append("| test | platform | status | on the reference |")
        lines.append("|---|---|---|---|")
        for n in shown_n:
            lines.append(f"| {md(n.test_id)} | {md(n.column)} | {n.status} | {n.reference_status} |")
        lines.append(_cut(v.never_compared, len(shown_n)))
    blocked = {(b.test_id, b.column) for b in v.blocking}
    failures = [(t, k, c) for t in m.test_ids for k, c in m.cells[t].items()
                if c.status in ("failed", "error", "xpassed") and (t, k) not in blocked]
    if failures:
        lines.append(f"## Other failures ({len(failures)})")
        lines.append("| test | platform | status | message |")
        lines.append("|---|---|---|---|")
        for tid, k, c in failures[:LIST_LIMIT]:
            lines.append(f"| {md(tid)} | {md(k)} | {c.status} | {md(c.message)} |")
        lines.append(_cut(failures, min(len(failures), LIST_LIMIT)))
    reasons = m.partial_reasons()
    if reasons:
        lines.append(f"## Incomplete evidence ({len(reasons)})")
        lines.extend(f"- {md(r)}" for r in reasons[:LIST_LIMIT])
        lines.append(_cut(reasons, min(len(reasons), LIST_LIMIT)))
    runs = [(col.key, r) for col in m.columns for r in col.runs]
    if runs:
        lines.append(f"## Runs ({len(runs)}): where each column came from")
        lines.append("| file | platform | path | shard | host | run | started | runner | torch | monarch | rdma "
                     "| tests | complete |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|---:|---|")
        for key, r in runs[:LIST_LIMIT]:
            lines.append(f"| {md(Path(r.file).name)} | {md(key)} | {md(r.path or '–')} | {md(r.shard or '–')} | "
                         f"{md(r.host or '–')} | {md(r.run_id[:12] or '–')} | {md(r.timestamp or '–')} | "
                         f"{md(runner_text(r))} | {md(build_text(r.torch_version, r.torch_flavour))} | "
                         f"{md(build_text(r.monarch_version, r.monarch_flavour))} | "
                         f"{md(r.rdma_backend or '–')} | {r.tests} | {'no' if r.problems else 'yes'} |")
        lines.append(_cut(runs, min(len(runs), LIST_LIMIT)))
    components = sorted({c for t in totals.values() for c in t if c != "*"})
    if components and m.columns:
        lines.append("## Pass rate per component")
        lines.append("| component | " + " | ".join(md(c.key) for c in m.columns) + " |")
        lines.append("|---|" + "---:|" * len(m.columns))
        for comp in components[:200]:
            cells = []
            for col in m.columns:
                tot = totals[col.key].get(comp)
                cells.append("–" if tot is None else f"{_rate(tot)} ({tot['passed']}/{sum(tot[s] for s in RAN)})")
            lines.append(f"| {md(comp)} | " + " | ".join(cells) + " |")
        lines.append("")
    if report.baseline is not None:
        base = report.baseline
        counts = base.counts()
        lines.append(f"## Against baseline `{md(base.file)}`")
        lines.append(", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items()))
        lines.append("")
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
        if base.duration_changes:
            lines.append(f"**Duration changed more than 2x** ({len(base.duration_changes)}):")
            lines.extend(f"- {md(d['test_id'])} on {md(d['column'])}: {d['before']:.3f}s → {d['after']:.3f}s"
                         for d in base.duration_changes[:LIST_LIMIT])
            lines.append(_cut(base.duration_changes, min(len(base.duration_changes), LIST_LIMIT)))
    if report.warnings:
        lines.append(f"## Warnings ({len(report.warnings)})")
        lines.extend(f"- {md(w)}" for w in report.warnings[:LIST_LIMIT])
        lines.append("")
    lines.append(f"_Generated {report.generated} by {md(report.tool)}; ROCm gate >= {md(report.min_rocm)}._")
    return "\n".join(lines).replace("\n\n\n", "\n\n") + "\n"
