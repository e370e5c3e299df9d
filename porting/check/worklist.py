"""One ranked worklist per CUDA file (compile errors + audit hazards + effort), and its formats."""

from __future__ import annotations

from typing import Any

from .. import __version__
from .diagnostics import counted

SCHEMA = "rocm-port/check/1"
# effort from the work a file needs: errors the compiler reports + audit errors, warnings count half
EFFORT = (("none", 0), ("small", 3), ("medium", 15))  # else "large"


def effort(errors: int, hazard_errors: int, warnings: int) -> str:
    score = errors + hazard_errors + warnings / 2
    for name, limit in EFFORT:
        if score <= limit:
            return name
    return "large"


def build(result) -> list[dict[str, Any]]:
    files: dict[str, dict[str, Any]] = {}

    def entry(path: str) -> dict[str, Any]:
        return files.setdefault(path, {"file": path, "errors": 0, "warnings": 0, "hazards": {"error": 0,
                                       "warning": 0, "note": 0}, "not_checkable": [], "system_packages": [],
                                       "seen_past_missing_header": 0, "units": []})

    seen: set[tuple] = set()  # a header's error is counted once, however many units include it
    on_line: dict[tuple[str, int], set[str]] = {}  # counted compiler messages per (file, line)
    for u in result.units:
        entry(u.unit.source)["units"].append({"unit": u.unit.source, "class": u.verdict})
        for d in u.diagnostics:
            key = (d.file, d.line, d.col, d.severity, d.message)
            if key in seen:
                continue
            seen.add(key)
            e = entry(d.file)
            if d.kind == "missing-rocm-header":
                e["not_checkable"] = sorted(set(e["not_checkable"]) | {d.header})
            elif d.kind == "missing-system-header":
                e["system_packages"] = sorted(set(e["system_packages"]) | {d.package or d.header})
            elif not counted(d):
                continue
            elif d.kind != "rocm7-warning":
                e["errors"] += 1
            else:
                e["warnings"] += 1
            if counted(d) and d.after_missing_header:
                e["seen_past_missing_header"] += 1  # the user's work, seen past a header the build lacks
            if counted(d):
                on_line.setdefault((d.file, d.line), set()).add(d.message)
    for f in result.findings:
        if _same_as_compiler(f, on_line):
            continue  # the compiler's own diagnostic on this line already counts this hazard
        entry(f.path)["hazards"][f.severity] = entry(f.path)["hazards"].get(f.severity, 0) + 1
    for e in files.values():
        e["effort"] = effort(e["errors"], e["hazards"]["error"], e["warnings"] + e["hazards"]["warning"])
    return sorted(files.values(), key=lambda e: (-e["errors"], -e["hazards"]["error"], -e["warnings"],
                                                 -e["hazards"]["warning"], e["file"]))


# audit rule -> the words of the compiler diagnostic that reports the same hazard on the same line
_SAME_HAZARD = {"hip-error-ignored": ("nodiscard",), "hip-deprecated": ("deprecated",),
                "rocm7-removed": ("undeclared", "no member named")}


def _same_as_compiler(finding, on_line: dict[tuple[str, int], set[str]]) -> bool:
    words = _SAME_HAZARD.get(finding.rule, ())
    return any(w in msg for msg in on_line.get((finding.path, finding.line), ()) for w in words)


def summary(result) -> dict[str, Any]:
    from .diagnostics import CLASSES

    counts = {c: sum(1 for u in result.units if u.verdict == c) for c in CLASSES}
    return {"units": len(result.units), **counts, "compiled": result.compiled,
            "cached": sum(u.cached for u in result.units)}


def to_json(result) -> dict[str, Any]:
    t = result.toolchain
    return {"schema": SCHEMA, "tool": f"rocm-port {__version__}", "src": result.src,
            "evidence": evidence(result),
            "toolchain": {"kind": t.kind, "compiler": t.compiler, "hip_version": t.version, "headers": t.headers},
            "archs": result.archs, "mode": result.mode, "summary": summary(result),
            "worklist": build(result), "units": [u.to_json() for u in result.units],
            "findings": [f.to_json() for f in result.findings], "notes": result.notes}


def marker(d) -> str:
    """What the text, HTML and SARIF say of a diagnostic past a missing header (one wording)."""
    if not d.after_missing_header:
        return ""
    if counted(d):
        return " (seen past a missing header: counted, the user's work either way)"
    return " (after a missing header: maybe its consequence, not counted)"


def evidence(result) -> str:
    what = "compiled to device code" if result.mode == "codegen" else "syntax-checked"
    t = result.toolchain
    run = "compile-only toolchain, " if t.kind == "rocm7-sdk" else ""
    return (f"{what} for {', '.join(result.archs)} with {t.describe()} ({run}nothing was run on an AMD GPU)")


def to_text(result) -> str:
    s = summary(result)
    lines = [f"port check: {result.src}", evidence(result),
             f"units: {s['units']}: {s['compiles']} compile, {s['warnings']} with ROCm 7 warnings, "
             f"{s['fails']} fail, {s['needs-package']} need a system package, "
             f"{s['not-checkable']} not checkable here, "
             f"{s['tool-error']} no verdict (compiler error) "
             f"({s['compiled']} compiler runs, {s['cached']} from cache)", ""]
    for u in result.units:
        extra = f" (needs {', '.join(u.missing_headers)}: not in this SDK)" if u.missing_headers else ""
        extra += "".join(f" (needs {p})" for p in u.system_packages)
        lines.append(f"  {u.verdict:14} {u.unit.source}{extra}")
    lines += ["", "worklist (most work first):"]
    for e in build(result):
        h = e["hazards"]
        lines.append(f"  {e['effort']:6} {e['file']}: {e['errors']} error(s), {e['warnings']} ROCm 7 warning(s), "
                     f"hazards {h['error']}E/{h['warning']}W/{h['note']}N"
                     + (f", not checkable: {', '.join(e['not_checkable'])}" if e["not_checkable"] else "")
                     + (f", system packages: {'; '.join(e['system_packages'])}" if e["system_packages"] else "")
                     + (f", {e['seen_past_missing_header']} seen past a missing header"
                        if e["seen_past_missing_header"] else ""))
    lines += ["", "diagnostics (on the CUDA lines; a header's once, however many units include it):"]
    shown: set[tuple] = set()
    for u in result.units:
        for d in u.diagnostics:
            key = (d.file, d.line, d.col, d.severity, d.message)
            if d.kind == "warning" or key in shown:
                continue
            shown.add(key)
            names = "; ".join(f"{n['hip']} (CUDA: {n['cuda']})" for n in d.names)
            after = marker(d)
            lines.append(f"  {d.file}:{d.line}:{d.col}: {d.severity}[{d.kind}] [{','.join(d.archs)}] {d.message}{after}"
                         + (f"\n      hipified: {d.hip_file}:{d.hip_line}" if d.hip_file else "")
                         + (f"  names: {names}" if names else "")
                         + "".join(f"\n      hint: {h}" for h in d.hints))
    lines += [f"note: {n}" for n in result.notes]
    return "\n".join(lines) + "\n"
