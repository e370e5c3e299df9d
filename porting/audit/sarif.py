"""Findings as SARIF 2.1.0, so code-scanning UIs show them inline."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote_from_bytes

from .. import __version__
from .findings import Finding, display_path
from .rules import RULES

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "note": "note"}


def _uri(path: str, root: str | None) -> tuple[str, str | None]:
    """Relative URI against %SRCROOT% when the file is under ``root``, else a file URI.

    Percent-encoded per RFC 3986 (everything but unreserved characters and "/"), from the
    name's bytes, so a space, '#', '%' or a name that is not UTF-8 still resolves against
    ``originalUriBaseIds`` to the file (``Path.as_uri`` encodes the same way)."""
    absolute = os.path.abspath(path)
    if root is not None:
        rel = os.path.relpath(absolute, root)
        if rel != ".." and not rel.startswith(".." + os.sep):
            return quote_from_bytes(os.fsencode(Path(rel).as_posix()), safe="/"), "SRCROOT"
    return Path(absolute).as_uri(), None


def to_sarif(findings: Iterable[Finding], root: str | None = None) -> dict[str, Any]:
    """A SARIF log with one run; ``root`` (default: cwd) becomes the %SRCROOT% base."""
    root = os.path.abspath(root or os.getcwd())
    rule_ids = list(RULES)
    rules = [{
        "id": r.id,
        "name": "".join(part.capitalize() for part in r.id.split("-")),
        "shortDescription": {"text": r.title},
        "fullDescription": {"text": r.help},
        "help": {"text": r.help},
        "defaultConfiguration": {"level": _LEVEL[r.severity]},
    } for r in RULES.values()]
    results = []
    for f in findings:
        uri, base = _uri(f.path, root)
        location: dict[str, Any] = {"uri": uri}
        if base:
            location["uriBaseId"] = base
        results.append({
            "ruleId": f.rule,
            "ruleIndex": rule_ids.index(f.rule),
            "level": _LEVEL.get(f.severity, "warning"),
            "message": {"text": f"{f.message}. Suggestion: {f.suggestion}"},
            "locations": [{"physicalLocation": {
                "artifactLocation": location,
                "region": {"startLine": f.line, "startColumn": f.col, "snippet": {"text": display_path(f.snippet)}},
            }}],
            "partialFingerprints": {"portAuditFingerprint/v1": f.fingerprint},
            "properties": {"suggestion": f.suggestion,
                           **({"symbol": f.symbol} if f.symbol else {}), **({"hip": f.hip} if f.hip else {}),
                           **({"confirmation": f.confirmation, "confirmationDetail": f.confirmation_detail}
                              if f.confirmation else {})},
        })
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "rocm-port audit", "semanticVersion": __version__,
                                "informationUri": "https://rocm.docs.amd.com/projects/HIP/en/latest/",
                                "rules": rules}},
            "originalUriBaseIds": {"SRCROOT": {"uri": Path(root).as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
