"""What `port fix` prints: a unified diff (the default, a dry run), the JSON record, or SARIF 2.1.0
whose results carry ``fixes`` (artifactChanges with replacements) so review tools offer the edit."""

from __future__ import annotations

import difflib
from typing import Any

from .. import __version__
from ..audit.findings import display_path
from ..audit.rules import RULES
from . import plan
from .model import FileFix, FixResult

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def repaired_text(ff: FileFix) -> str:
    return plan.apply(ff.original, ff.offered())


def to_diff(result: FixResult) -> str:
    parts: list[str] = []
    for ff in result.files:
        if not ff.offered():
            continue
        name = display_path(ff.path)
        parts += difflib.unified_diff(ff.original.splitlines(keepends=True),
                                      repaired_text(ff).splitlines(keepends=True), f"a/{name}", f"b/{name}")
    text = "".join(parts)
    return text if not text or text.endswith("\n") else text + "\n"


def summary_line(result: FixResult) -> str:
    c = result.counts()
    return (f"fix: {c['files']} file(s) with hazards: {c['offered']} repair(s) offered, {c['withdrawn']} withdrawn, "
            f"{c['notes']} note(s) left; emulated {c['emulated']} program(s), "
            f"{c['diverged_to_agree']} of {c['diverged_before']} that diverged at 64 lanes now agree")


def to_sarif(result: FixResult) -> dict[str, Any]:
    used = sorted({r.rule for ff in result.files for r in ff.repairs}
                  | {n.rule for ff in result.files for n in ff.notes})
    rules = [{"id": rid, "shortDescription": {"text": RULES[rid].title if rid in RULES else rid},
              "help": {"text": RULES[rid].help if rid in RULES else rid}} for rid in used]
    results: list[dict[str, Any]] = []
    for ff in result.files:
        uri = display_path(ff.path)
        lines = ff.original.splitlines(keepends=True)
        for r in ff.repairs:
            if r.kind == "header":
                continue
            region = _region(lines, r.start, r.end)
            entry: dict[str, Any] = {
                "ruleId": r.rule, "level": "warning" if r.status == "offered" else "note",
                "message": {"text": r.why if r.status == "offered" else f"{r.why} (withdrawn: {r.reason})"},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}, "region": region}}],
                "properties": {"kind": r.kind, "status": r.status, "verifications": r.verifications}}
            if r.status == "offered":
                changes = [_replacement(lines, r.start, r.end, r.new)]
                changes += [_replacement(lines, h.start, h.end, h.new) for h in plan.with_header(ff.repairs, [r])
                            if h.kind == "header" and h.status == "offered"]
                entry["fixes"] = [{"description": {"text": r.why},
                                   "artifactChanges": [{"artifactLocation": {"uri": uri}, "replacements": changes}]}]
            results.append(entry)
        for n in ff.notes:
            results.append({"ruleId": n.rule, "level": "note", "message": {"text": n.message},
                            "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri},
                                                                "region": {"startLine": n.line,
                                                                           "startColumn": n.col}}}]})
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "rocm-port fix", "version": __version__, "rules": rules}},
                      "columnKind": "unicodeCodePoints", "results": results}]}


def _position(lines: list[str], offset: int) -> tuple[int, int]:
    seen = 0
    for i, line in enumerate(lines):
        if offset < seen + len(line) or i == len(lines) - 1:
            return i + 1, offset - seen + 1
        seen += len(line)
    return 1, 1


def _region(lines: list[str], start: int, end: int) -> dict[str, int]:
    sl, sc = _position(lines, start)
    el, ec = _position(lines, end)
    return {"startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec}


def _replacement(lines: list[str], start: int, end: int, new: str) -> dict[str, Any]:
    return {"deletedRegion": _region(lines, start, end), "insertedContent": {"text": new}}
