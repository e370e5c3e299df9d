"""Findings, inline suppressions (``port: ignore[rule-id]``) and baseline files."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError

SCHEMA = "rocm-port/audit/1"
BASELINE_SCHEMA = "rocm-port/audit-baseline/1"
IGNORE_RE = re.compile(r"port:\s*ignore\[([\w\-*,\s]+)\]")


@dataclass
class Finding:
    path: str
    line: int
    col: int
    rule: str
    severity: str
    message: str
    suggestion: str
    snippet: str = ""  # the source line, stripped (also the baseline fingerprint's input)
    symbol: str = ""  # the CUDA name concerned, where there is one (e.g. input for `port aliases`)
    hip: str = ""  # its HIP name from hipify's tables, where there is one

    @property
    def fingerprint(self) -> str:
        """Stable across line moves: rule + file + the line's text."""
        return hashlib.sha256(f"{self.rule}\0{self.path}\0{self.snippet}".encode()).hexdigest()[:32]

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "fingerprint": self.fingerprint}

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
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputError(f"{p}: cannot read baseline: {exc.strerror or exc}") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise InputError(f"{p}: baseline is not valid JSON ({exc})") from None
        if not isinstance(data, dict) or data.get("schema") not in (BASELINE_SCHEMA, SCHEMA):
            raise InputError(f"{p}: not an audit baseline (expected schema {BASELINE_SCHEMA})")
        items = data.get("findings", [])
        if not isinstance(items, list) or not all(isinstance(i, dict) and "fingerprint" in i for i in items):
            raise InputError(f"{p}: baseline 'findings' must be a list of objects with a 'fingerprint'")
        return cls({str(i["fingerprint"]) for i in items})

    @staticmethod
    def to_json(findings: Iterable[Finding]) -> dict[str, Any]:
        return {"schema": BASELINE_SCHEMA,
                "findings": [{"fingerprint": f.fingerprint, "rule": f.rule, "path": f.path, "line": f.line}
                             for f in findings]}
