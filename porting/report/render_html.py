"""index.html: one self-contained page (inline CSS, script and SVG; no network).

Every test id, message and label is HTML-escaped on the server side; the only script is
ours, pinned by a Content-Security-Policy hash, so an injected ``<script>`` in a failure
message is both escaped and, were escaping ever to fail, refused by the browser.
Rows: tests that are not green everywhere come first; at most ``MAX_ROWS`` rows are
written (the rest are counted and are in parity.json).
"""

from __future__ import annotations

import base64
import hashlib
import re
from html import escape
from typing import TYPE_CHECKING

from .model import MISSING, PASSED, STATUSES, Cell, pass_rate
from .render_md import _URL, LIST_LIMIT, build_text, runner_text

if TYPE_CHECKING:
    from . import Report

MAX_ROWS = 50_000

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
#verdict{font-size:1.5em;font-weight:bold;padding:.5em .8em;border-radius:6px;display:inline-block}
.v-certified{background:#d7f5d7}.v-not-certified{background:#f9d6d5}.v-no-evidence{background:#e6e6e6}
.v-incomplete{background:#fbf0c4}.v-certified-on-external-evidence{background:#fde2c4}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top}
th{background:#f3f3f3}td.n{text-align:right}
.s-passed{background:#e4f6e4}.s-failed,.s-error{background:#fbe0df}.s-skipped,.s-missing{background:#f1f1f1}
.s-xfailed{background:#fff3d6}.s-xpassed{background:#fde7c8}
.msg{font-family:monospace;font-size:12px;color:#444;max-width:40em;white-space:pre-wrap;word-break:break-word}
small{color:#666}.partial{color:#a00;font-weight:bold}#filters label{margin-right:1em}
"""

SCRIPT = """(function(){
var rows=document.querySelectorAll('#tests tbody tr');
var fc=document.getElementById('f-component'),fp=document.getElementById('f-platform'),
fs=document.getElementById('f-status'),shown=document.getElementById('shown');
var cells=document.querySelectorAll('#tests [data-col]');
function apply(){
var c=fc.value,p=fp.value,s=fs.value,n=0,i;
for(i=0;i<cells.length;i++){cells[i].style.display=(p===''||cells[i].getAttribute('data-col')===p)?'':'none';}
for(i=0;i<rows.length;i++){
var r=rows[i],ok=(c===''||r.getAttribute('data-c')===c);
if(ok&&s!==''){var st=r.getAttribute('data-s').split(' ');
var pick=p===''?st:[st[+p]],want=s.charAt(0)==='!'?s.slice(1):s,neg=s.charAt(0)==='!',hit=false;
for(var j=0;j<pick.length;j++){if(neg?pick[j]!==want:pick[j]===want){hit=true;break;}}
ok=hit;}
r.style.display=ok?'':'none';if(ok)n++;}
shown.textContent=String(n);}
function pick(sel,v){for(var k=0;k<sel.options.length;k++){if(sel.options[k].value===v){sel.value=v;return;}}}
function fromHash(){var q=location.hash.replace(/^#/,'').split('&');
for(var k=0;k<q.length;k++){var kv=q[k].split('='),v=decodeURIComponent(kv[1]||'');
if(kv[0]==='component')pick(fc,v);else if(kv[0]==='platform')pick(fp,v);else if(kv[0]==='status')pick(fs,v);}}
function toHash(){var h='component='+encodeURIComponent(fc.value)+'&platform='+encodeURIComponent(fp.value)+
'&status='+encodeURIComponent(fs.value);if(history.replaceState)history.replaceState(null,'','#'+h);}
function change(){apply();toHash();}
fc.addEventListener('change',change);fp.addEventListener('change',change);fs.addEventListener('change',change);
fromHash();apply();document.body.setAttribute('data-ready','1');
})();"""


_ESCAPED = re.compile("[&<>\"']")


def _e(text: object) -> str:
    """html.escape(text, quote=True); most test ids hold none of its five characters, and a search
    for them costs less than its five replaces (50,000 rows, two or more texts each)."""
    s = str(text)
    return escape(s, quote=True) if _ESCAPED.search(s) else s


def _link(url: str) -> str:
    """An anchor for a plain http(s) URL (a link, not a fetch); anything else as escaped text."""
    if _URL.match(url or ""):
        return f"<a href=\"{_e(url)}\" rel=\"noopener noreferrer\">{_e(url)}</a>"
    return _e(url)


def _csp() -> str:
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")
    return (f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
            f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'")


def _summary(report: Report) -> list[str]:
    m, v = report.matrix, report.verdict
    totals = m.totals()
    out = ["<h2>Platforms</h2><table><thead><tr><th>platform</th><th>runs</th>"
           + "".join(f"<th>{s}</th>" for s in STATUSES) + "<th>pass rate</th><th>complete</th></tr></thead><tbody>"]
    for col in m.columns:
        t = totals[col.key]["*"]
        rate = pass_rate(t)
        runs = "; ".join(f"{r.file} ({r.host or 'host?'}, torch {r.torch_version or '?'})" for r in col.runs)
        out.append(f"<tr><td title=\"{_e(runs)}\">{_e(col.key)}</td><td class=n>{len(col.runs)}</td>"
                   + "".join(f"<td class=n>{t[s]}</td>" for s in STATUSES)
                   + f"<td class=n>{'n/a' if rate is None else f'{100 * rate:.1f}%'}</td>"
                   + f"<td>{'yes' if col.complete else '<span class=partial>no</span>'}</td></tr>")
    out.append("</tbody></table>")
    run_rows = [(col.key, r) for col in m.columns for r in col.runs]
    if run_rows:
        out.append(f"<h2>Runs ({len(run_rows)})</h2><table><thead><tr><th>file</th><th>platform</th><th>path</th>"
                   "<th>shard</th><th>host</th><th>run</th><th>started</th><th>runner</th><th>torch</th>"
                   "<th>monarch</th><th>rdma</th><th>tests</th><th>complete</th></tr></thead><tbody>")
        for key, r in run_rows[:LIST_LIMIT * 4]:
            cells = (r.file, key, r.path, r.shard, r.host, r.run_id[:12], r.timestamp, runner_text(r),
                     build_text(r.torch_version, r.torch_flavour), build_text(r.monarch_version, r.monarch_flavour),
                     r.rdma_backend)
            out.append("<tr>" + "".join(f"<td>{_e(c or '–')}</td>" for c in cells)
                       + f"<td class=n>{r.tests}</td><td>{'yes' if not r.problems else '<span class=partial>no</span>'}"
                       "</td></tr>")
        out.append("</tbody></table>")
    if v.reasons:
        out.append("<h2>Why</h2><ul>" + "".join(f"<li>{_e(r)}</li>" for r in v.reasons) + "</ul>")
    if v.blocking:
        out.append(f"<h2>Blocking tests ({len(v.blocking)})</h2><table><thead><tr><th>test</th><th>platform</th>"
                   "<th>status</th><th>passes on</th><th>message</th></tr></thead><tbody>")
        for b in v.blocking[:LIST_LIMIT * 4]:
            note = f" ({b.note})" if b.note else ""
            out.append(f"<tr><td>{_e(b.test_id)}</td><td>{_e(b.column)}</td><td class=\"s-{b.status}\">{b.status}</td>"
                       f"<td>{_e(b.reference)}</td><td class=msg>{_e(b.message + note)}</td></tr>")
        out.append("</tbody></table>")
    if v.exempted:
        out.append(f"<h2>Exempted ({len(v.exempted)})</h2><table><thead><tr><th>test</th><th>platform</th>"
                   "<th>status</th><th>exemption</th><th>reason</th><th>link</th><th>expires</th></tr></thead><tbody>")
        for x in v.exempted[:LIST_LIMIT * 4]:
            ex = x.exemption
            out.append(f"<tr><td>{_e(x.test_id)}</td><td>{_e(x.column)}</td><td>{x.status}</td><td>{_e(ex['id'])}</td>"
                       f"<td>{_e(ex['reason'])}</td><td>{_link(ex['link'])}</td><td>{_e(ex['expires'])}</td></tr>")
        out.append("</tbody></table>")
    reasons = m.partial_reasons()
    if reasons:
        out.append(f"<h2 class=partial>Incomplete evidence ({len(reasons)})</h2><ul>"
                   + "".join(f"<li>{_e(r)}</li>" for r in reasons[:LIST_LIMIT * 4]) + "</ul>")
    if report.baseline is not None:
        base = report.baseline
        out.append(f"<h2>Against baseline {_e(base.file)}</h2><p>"
                   + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in base.counts().items()) + "</p><ul>")
        out.extend(f"<li>newly failing: {_e(d['test_id'])} on {_e(d['column'])} ({_e(d['after'])})</li>"
                   for d in base.newly_failing[:LIST_LIMIT])
        out.extend(f"<li>newly passing: {_e(d['test_id'])} on {_e(d['column'])}</li>"
                   for d in base.newly_passing[:LIST_LIMIT])
        out.append("</ul>")
    if report.warnings:
        items = "".join(f"<li>{_e(w)}</li>" for w in report.warnings[:LIST_LIMIT])
        out.append("<h2>Warnings</h2><ul>" + items + "</ul>")
    return out


def _rows(report: Report) -> tuple[list[str], int]:
    m = report.matrix
    keys = [c.key for c in m.columns]
    ids = m.test_ids
    missing = Cell(MISSING)
    rows = {t: [m.cells[t].get(k, missing) for k in keys] for t in ids}
    not_green: list[str] = []
    green: list[str] = []
    for t in ids:
        (green if all(c.status == PASSED for c in rows[t]) else not_green).append(t)
    chosen = (not_green + green)[:MAX_ROWS]
    components = {c: _e(c) for c in set(m.components.values())}  # a handful, escaped once
    opening: dict[tuple[int, str], str] = {}  # '<td data-col=I class="s-STATUS">STATUS' per pair met
    out = []
    for test_id in chosen:
        cells = rows[test_id]
        tds = []
        for i, cell in enumerate(cells):
            td = opening.get((i, cell.status))
            if td is None:
                td = opening[i, cell.status] = f"<td data-col={i} class=\"s-{cell.status}\">{cell.status}"
            if cell.status != "missing":
                td += f" <small>{cell.duration:.3g}s</small>"
            if cell.message:
                td += f"<div class=msg>{_e(cell.message)}</div>"
            tds.append(td + "</td>")
        comp = components[m.components[test_id]]
        out.append(f"<tr data-c=\"{comp}\" data-s=\"{' '.join(c.status for c in cells)}\">"
                   f"<td>{comp}</td><td>{_e(test_id)}</td>{''.join(tds)}</tr>")
    return out, len(ids) - len(chosen)


def render_html(report: Report, chart_svg: str) -> str:
    m, v = report.matrix, report.verdict
    slug = v.status.replace(" ", "-")
    components = sorted(set(m.components.values()))
    rows, omitted = _rows(report)
    partial = (f" <span class=partial>PARTIAL: {len(m.partial_reasons())} problem(s)</span>" if m.partial else "")
    head = [
        "<!DOCTYPE html><html lang=en><head><meta charset=\"utf-8\">",
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_csp()}\">",
        "<meta name=viewport content=\"width=device-width\">",
        f"<title>ROCm parity: {_e(v.status)}</title><style>{CSS}</style></head><body>",
        "<h1>rocm-port parity report</h1>"
        f"<div id=verdict class=\"v-{slug}\">ROCm parity: {_e(v.status.upper())}</div>{partial}",
        f"<p>{len(m.cells)} tests on {len(m.columns)} platform(s); reference: {_e(report.reference)}"
        f" ({_e(', '.join(v.reference) or 'none')}); ROCm judged: {_e(', '.join(v.rocm) or 'none')}; "
        f"{len(v.blocking)} blocking, {len(v.exempted)} exempted. "
        f"Generated {_e(report.generated)} by {_e(report.tool)}.</p>",
    ]
    body = _summary(report)
    body.append(f"<h2>Pass rate per component</h2><div id=chart>{chart_svg}</div>")
    opts_c = "".join(f"<option value=\"{_e(c)}\">{_e(c)}</option>" for c in components)
    opts_p = "".join(f"<option value=\"{i}\">{_e(c.key)}</option>" for i, c in enumerate(m.columns))
    opts_s = "".join(f"<option value=\"{s}\">{s}</option>" for s in STATUSES)
    body.append(
        "<h2>Tests</h2><div id=filters>"
        f"<label>component <select id=f-component><option value=\"\">all</option>{opts_c}</select></label>"
        f"<label>platform <select id=f-platform><option value=\"\">all</option>{opts_p}</select></label>"
        "<label>status <select id=f-status><option value=\"\">any</option>"
        f"<option value=\"!passed\">not passed</option>{opts_s}</select></label>"
        f"<span><span id=shown>{len(rows)}</span> of {len(rows)} rows shown</span></div>")
    if omitted:
        body.append(f"<p>{omitted} all-green tests omitted from this page (limit {MAX_ROWS} rows); "
                    "every test is in parity.json.</p>")
    ths = "".join(f"<th data-col={i}>{_e(c.key)}</th>" for i, c in enumerate(m.columns))
    body.append(f"<table id=tests><thead><tr><th>component</th><th>test</th>{ths}</tr></thead><tbody>")
    body.extend(rows)
    body.append("</tbody></table>")
    tail = [f"<script>{SCRIPT}</script></body></html>"]
    return "\n".join(head + body + tail) + "\n"
