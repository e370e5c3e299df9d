"""Findings, inline suppressions (``port: ignore[rule-id]``) and baseline files."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError

SCHEMA = "rocm-port/audit/1"
BASELINE_SCHEMA = "rocm-port/audit-baseline/1"
IGNORE_RE = re.compile(r"port:\s*ignore\[([\w\-*,\s]+)\]")
# A finding's size is bounded whatever the line length: a 1 MB minified line with 30 000
# findings must not keep 30 000 copies of the line (memory, and the JSON/SARIF report).
MAX_SNIPPET = 240  # characters of source around the finding
MAX_FIELD = 1000  # message, suggestion, symbol, hip


def clip(text: str, limit: int = MAX_FIELD) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def snippet_at(text: str, start: int, end: int, offset: int) -> str:
    """The line ``text[start:end]`` stripped, or, when longer than ``MAX_SNIPPET``, a window of
    it around ``offset`` with "…" where it was cut. Slices only the window (no line copy)."""
    if end - start <= MAX_SNIPPET:
        return text[start:end].strip()
    lo = max(start, min(offset - MAX_SNIPPET // 3, end - (MAX_SNIPPET - 2)))
    hi = min(end, lo + MAX_SNIPPET - 2)
    return ("…" if lo > start else "") + text[lo:hi].strip() + ("…" if hi < end else "")


def display_path(path: str) -> str:
    """A file name as valid UTF-8 text: bytes that are not UTF-8 (surrogate-escaped by the
    file system decoding) are shown as \\xNN, so JSON, SARIF and text reports stay valid."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


@dataclass
class Finding:
    path: str
    line: int
    col: int
    rule: str
    severity: str
    message: str
    suggestion: str
    snippet: str = ""  # the source line, stripped, or a window of a long one (snippet_at)
    symbol: str = ""  # the CUDA name concerned, where there is one (e.g. input for `port aliases`)
    hip: str = ""  # its HIP name from hipify's tables, where there is one
    # `port audit --confirm` (porting.audit.confirm): confirmed / not-reproduced / untraced / inconclusive / not-run
    confirmation: str = ""
    confirmation_detail: str = ""

    def __post_init__(self) -> None:
        self.snippet = clip(self.snippet, MAX_SNIPPET)
        self.message, self.suggestion = clip(self.message), clip(self.suggestion)
        self.symbol, self.hip = clip(self.symbol), clip(self.hip)

    @property
    def fingerprint(self) -> str:
        """Stable across line moves: rule + file + the snippet. The file name counts as its
        bytes (surrogateescape), so a name that is not UTF-8 has a stable fingerprint too."""
        key = f"{self.rule}\0{self.path}\0{self.snippet}".encode("utf-8", "surrogateescape")
        return hashlib.sha256(key).hexdigest()[:32]

    def to_json(self) -> dict[str, Any]:
        data = {**asdict(self), "fingerprint": self.fingerprint}
        for key in ("confirmation", "confirmation_detail"):
            if not data[key]:
                del data[key]  # only runs with --confirm carry it
        for key in ("path", "snippet"):
            data[key] = display_path(data[key])
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Finding:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


def suppressed_rules(line_text: str) -> set[str]:
    """Rule ids named by a ``port: ignore[a, b]`` marker on the line (``*`` = all)."""
    out: set[str] = set()
    for m in IGNORE_RE.finditer(line_text):
        out.update(part.strip() for part in m.group(1).split(",") if part.strip())
    return out


@dataclass
class Baseline:
    fingerprints: set[str] = field(default_factory=set)

    def __contains__(self, finding: Finding) -> bool:
        return finding.fingerprint in self.fingerprints

    @classmethod
    def load(cls, path: str | Path) -> Baseline:
        from ..parsing import load_json  # one line for bad JSON, bad UTF-8 and nesting too deep

        p = Path(path)
        data = load_json(p, InputError, "baseline")
        if not isinstance(data, dict) or data.get("schema") not in (BASELINE_SCHEMA, SCHEMA):
            raise InputError(f"{p}: not an audit baseline (expected schema {BASELINE_SCHEMA})")
        items = data.get("findings", [])
        if not isinstance(items, list) or not all(isinstance(i, dict) and "fingerprint" in i for i in items):
            raise InputError(f"{p}: baseline 'findings' must be a list of objects with a 'fingerprint'")
        return cls({str(i["fingerprint"]) for i in items})

    @staticmethod
    def to_json(findings: Iterable[Finding]) -> dict[str, Any]:
        return {"schema": BASELINE_SCHEMA,
                "findings": [{"fingerprint": f.fingerprint, "rule": f.rule, "path": display_path(f.path),
                              "line": f.line} for f in findings]}
