"""chart.svg: pass rate per component per platform, as a self-contained SVG (no fonts, no links)."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from .model import pass_rate

if TYPE_CHECKING:
    from . import Report

PALETTE = ("#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#76b7b2", "#b07aa1", "#edc948", "#9c755f")
MAX_COMPONENTS = 40
LABEL_W, BAR_W, TEXT_W, BAR_H, GAP = 190, 420, 70, 13, 10


def _clip(text: str, n: int = 28) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def render_chart(report: Report) -> str:
    m = report.matrix
    totals = m.totals()
    columns = m.columns
    components = sorted({c for t in totals.values() for c in t if c != "*"})
    omitted = max(0, len(components) - MAX_COMPONENTS)
    components = ["*"] + components[:MAX_COMPONENTS]
    legend_h = 22 * ((len(columns) + 2) // 3) + 36
    group_h = max(1, len(columns)) * (BAR_H + 2) + GAP
    width = LABEL_W + BAR_W + TEXT_W + 20
    height = legend_h + group_h * len(components) + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12" role="img">',
           '<title>Pass rate per component per platform</title>',
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="10" y="20" font-size="15" font-weight="bold">Pass rate per component per platform '
           f'(verdict: {escape(report.verdict.status)})</text>']
    for i, col in enumerate(columns):
        x, y = 10 + (i % 3) * 230, 38 + 22 * (i // 3)
        out.append(f'<rect x="{x}" y="{y - 10}" width="12" height="12" fill="{PALETTE[i % len(PALETTE)]}"/>'
                   f'<text x="{x + 18}" y="{y}">{escape(_clip(col.key, 32))}</text>')
    if not columns:
        out.append(f'<text x="10" y="{legend_h}">no runs</text>')
    y = legend_h
    x0 = LABEL_W
    for frac in (0, 0.5, 1.0):
        gx = x0 + BAR_W * frac
        out.append(f'<line x1="{gx}" y1="{legend_h - 6}" x2="{gx}" y2="{height - 30}" stroke="#dddddd"/>'
                   f'<text x="{gx}" y="{height - 14}" text-anchor="middle" fill="#555">{int(frac * 100)}%</text>')
    for comp in components:
        label = "all tests" if comp == "*" else comp
        weight = ' font-weight="bold"' if comp == "*" else ""
        out.append(f'<text x="{LABEL_W - 8}" y="{y + group_h / 2}" text-anchor="end"{weight}>'
                   f'{escape(_clip(label))}</text>')
        for i, col in enumerate(columns):
            counts = totals[col.key].get(comp)
            rate = pass_rate(counts) if counts else None
            by = y + i * (BAR_H + 2)
            if rate is None or counts is None:
                out.append(f'<text x="{x0 + 4}" y="{by + BAR_H - 2}" fill="#888">n/a</text>')
                continue
            w = BAR_W * rate
            out.append(f'<rect x="{x0}" y="{by}" width="{w:.1f}" height="{BAR_H}" '
                       f'fill="{PALETTE[i % len(PALETTE)]}"><title>{escape(label)} on {escape(col.key)}: '
                       f'{counts["passed"]} passed, {100 * rate:.1f}%</title></rect>'
                       f'<text x="{x0 + BAR_W + 6}" y="{by + BAR_H - 2}">{100 * rate:.1f}%</text>')
        y += group_h
    if omitted:
        out.append(f'<text x="10" y="{height - 2}" fill="#555">{omitted} more components in parity.json</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
