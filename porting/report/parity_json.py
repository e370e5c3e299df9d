"""parity.json: the report as data (schema ``rocm-port.parity`` version 1, see docs/report.md
and ``parity.schema.json`` beside this module)."""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as _quote  # json.dumps' own string encoder (C)
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError

if TYPE_CHECKING:
    from . import Report

KIND = "rocm-port.parity"
_INF = float("inf")  # a duration outside (-inf, inf) or not a float is written by json.dumps itself
SCHEMA = 1


def report_to_json(report: Report) -> dict[str, Any]:
    """The whole document as data (``report_to_text`` writes the same document, faster)."""
    m = report.matrix
    tests = []
    for test_id in m.test_ids:
        results: dict[str, Any] = {}
        for key, cell in m.cells[test_id].items():
            entry: dict[str, Any] = {"status": cell.status, "duration": round(cell.duration, 6)}
            if cell.message:
                entry["message"] = cell.message
            if cell.exemption:
                entry["exemption"] = cell.exemption
            results[key] = entry
        tests.append({"id": test_id, "component": m.components[test_id], "results": results})
    return {**_head(report), "tests": tests}


def report_to_text(report: Report) -> str:
    """``json.dumps(report_to_json(report)) + "\\n"``, byte for byte, without building the
    per-test dicts: the tests (100,000s of them, most of the file) are written straight from the
    matrix with json's own string encoder; the rest of the document goes through json.dumps."""
    m = report.matrix
    head = json.dumps({**_head(report), "tests": []})
    assert head.endswith('"tests": []}')
    parts = [head[:-len("[]}")] + "["]
    # '"<column>": {"status": "<status>", "duration": ' for each pair met: a handful of strings
    prefixes: dict[tuple[str, str], str] = {}
    for i, test_id in enumerate(m.test_ids):
        cells = []
        for key, cell in m.cells[test_id].items():
            prefix = prefixes.get((key, cell.status))
            if prefix is None:
                prefix = prefixes[key, cell.status] = f'{_quote(key)}: {{"status": {_quote(cell.status)}, "duration": '
            duration = round(cell.duration, 6)
            text = prefix + (repr(duration) if type(duration) is float and -_INF < duration < _INF
                             else json.dumps(duration))
            if cell.message:
                text += f', "message": {_quote(cell.message)}'
            if cell.exemption:
                text += f', "exemption": {_quote(cell.exemption)}'
            cells.append(text + "}")
        parts.append(f'{", " if i else ""}{{"id": {_quote(test_id)}, "component": {_quote(m.components[test_id])}, '
                     f'"results": {{{", ".join(cells)}}}}}')
    parts.append("]}\n")
    return "".join(parts)


def _head(report: Report) -> dict[str, Any]:
    m = report.matrix
    return {
        "kind": KIND,
        "schema": SCHEMA,
        "generated": report.generated,
        "tool": report.tool,
        "verdict": report.verdict.to_json(),
        "partial": m.partial,
        "partial_reasons": m.partial_reasons(),
        "warnings": list(report.warnings),
        "reference": report.reference,
        "min_rocm": report.min_rocm,
        # A bad registry is a ConfigError before any report is made, so "problems" stays empty.
        "exemptions": {"file": report.exemptions_file, "problems": []},
        "columns": [c.to_json() for c in m.columns],
        "totals": m.totals(),
        "baseline": report.baseline.to_json() if report.baseline else None,
    }


def load_parity(path: str | Path) -> dict[str, Any]:
    """Read an earlier parity.json (for --baseline); InputError if it is not one."""
    from ..parsing import load_json  # one line for bad JSON, bad UTF-8 and nesting too deep

    file = Path(path)
    data = load_json(file, InputError, "baseline")
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise InputError(f"{file}: not a parity.json (kind must be {KIND!r})")
    if data.get("schema") != SCHEMA:
        raise InputError(f"{file}: parity.json schema {data.get('schema')!r} is not supported (this reads {SCHEMA})")
    tests = data.get("tests")
    if not isinstance(tests, list) or not all(isinstance(t, dict) and isinstance(t.get("id"), str)
                                              and isinstance(t.get("results", {}), dict) for t in tests):
        raise InputError(f"{file}: parity.json 'tests' must be a list of {{id, results}} objects")
    columns = data.get("columns", [])
    if not isinstance(columns, list) or not all(isinstance(c, dict) for c in columns):
        raise InputError(f"{file}: parity.json 'columns' must be a list of objects")
    for t in tests:
        for key, cell in t.get("results", {}).items():
            if not _is_cell(cell):
                raise InputError(f"{file}: parity.json test {t['id'][:80]!r} on {str(key)[:40]!r}: a result must be "
                                 "an object with a string 'status' and a number 'duration'")
    return data


def _is_cell(cell: object) -> bool:
    if not isinstance(cell, dict):
        return False
    duration = cell.get("duration")
    duration_ok = duration is None or (isinstance(duration, (int, float)) and not isinstance(duration, bool))
    return isinstance(cell.get("status", ""), str) and duration_ok
