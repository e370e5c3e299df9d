"""`port check` as SARIF 2.1.0: compile diagnostics on the CUDA lines (run 1) + `port audit` (run 2)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from .. import __version__
from ..audit.sarif import SARIF_SCHEMA, _uri
from ..audit.sarif import to_sarif as audit_sarif
from .diagnostics import MISSING_KINDS, counted
from .worklist import marker

# kind -> (rule id, level, description). A header the SDK lacks is a note: not the user's work.
RULES = {
    "compile-error": ("rocm7-compile-error", "error", "the unit does not compile for this arch against ROCm 7"),
    "leftover-cuda-header": ("cuda-header-left", "error", "a CUDA header hipify did not convert is still included"),
    "missing-rocm-header": ("rocm-header-not-in-sdk", "note",
                            "a ROCm library header the toolchain's SDK lacks: the unit is not checkable here"),
    "rocm7-warning": ("rocm7-warning", "warning", "ROCm 7 warns (nodiscard result ignored, deprecated API)"),
    "leftover-cuda-name": ("cuda-name-left", "error", "a CUDA name hipify did not convert is still used"),
    "missing-system-header": ("system-package-missing", "note",
                              "a header of a system package not installed here (the Debian package is named)"),
    "tool-error": ("compiler-gave-no-verdict", "error", "the compiler exited non-zero without judging the code"),
}


def to_sarif(result) -> dict[str, Any]:
    root = result.src
    ids = list(RULES)
    rules = [{"id": rid, "shortDescription": {"text": text}, "defaultConfiguration": {"level": level}}
             for rid, level, text in RULES.values()]
    results = []
    for u in result.units:
        for d in u.diagnostics:
            if d.kind not in RULES:
                continue
            rid, level, _ = RULES[d.kind]
            if d.kind not in ("tool-error", *MISSING_KINDS) and not counted(d):
                level = "note"  # the text report's rule: after a missing header, maybe its consequence
            uri, base = _uri(str(Path(root) / d.file), root)
            loc: dict[str, Any] = {"uri": uri, **({"uriBaseId": base} if base else {})}
            names = "; ".join(f"{n['hip']} (CUDA: {n['cuda']})" for n in d.names)
            text = (f"[{', '.join(d.archs)}] {d.message}" + (f" (hipified names: {names})" if names else "")
                    + (f" ({d.package})" if d.package else "") + marker(d)
                    + "".join(f" Hint: {h}" for h in d.hints))
            fp = hashlib.sha256(f"{rid}\0{d.file}\0{d.message}".encode("utf-8", "surrogateescape")).hexdigest()[:32]
            results.append({
                "ruleId": rid, "ruleIndex": ids.index(d.kind), "level": level, "message": {"text": text},
                "locations": [{"physicalLocation": {"artifactLocation": loc,
                                                    "region": {"startLine": max(d.line, 1),
                                                               "startColumn": max(d.col, 1)}}}],
                "partialFingerprints": {"portCheckFingerprint/v1": fp},
                "properties": {"unit": u.unit.source, "archs": d.archs, "hipFile": d.hip_file,
                               "hipLine": d.hip_line, "names": d.names, "counted": counted(d),
                               "afterMissingHeader": d.after_missing_header},
            })
    run = {"tool": {"driver": {"name": "rocm-port check", "semanticVersion": __version__, "rules": rules}},
           "originalUriBaseIds": {"SRCROOT": {"uri": Path(root).as_uri() + "/"}},
           "columnKind": "unicodeCodePoints", "results": results,
           "properties": {"evidence": _evidence(result)}}
    audit_run = audit_sarif(result.findings, root=root)["runs"][0]
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run, audit_run]}


def _evidence(result) -> str:
    from .worklist import evidence

    return evidence(result)
