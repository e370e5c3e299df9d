"""The hipify manifest: one record per source file, and the key that makes re-runs incremental."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = "rocm-port/hipify-manifest/1"
STATUSES = ("converted", "unchanged", "skipped", "failed")


@dataclass
class FileEntry:
    """One source file. Paths are relative (``source`` to SRC, ``output``/``copy`` to OUT).

    status: ``converted`` (hipify changed it; ``output`` is the hipified file), ``unchanged``
    (hipify left it as is, or it is not a hipify source; ``output`` is its copy),
    ``skipped`` (not converted: binary, too large, symlink loop, output collision; ``why``
    says which) or ``failed`` (could not be read or written; ``why`` has the error).
    """

    source: str
    status: str
    why: str = ""
    output: str | None = None
    copy: str | None = None
    sha256: str | None = None
    size: int = 0
    mtime_ns: int = 0
    candidate: bool = False
    non_utf8_bytes: int = 0
    facts: dict[str, Any] | None = None  # includes.FileFacts as JSON, for incremental re-runs
    replacements: list[list[Any]] | None = None  # [[regex, index, directive], ...] applied
    output_size: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, "", 0, False) or k in ("source", "status")}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileEntry:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass
class Manifest:
    source_root: str
    output_root: str
    key: dict[str, Any]
    files: list[FileEntry] = field(default_factory=list)
    summary: dict[str, int] = field(default_factory=dict)
    schema: str = SCHEMA
    refused: list[dict[str, str]] = field(default_factory=list)  # paths porting.paths did not write/delete

    @property
    def ok(self) -> bool:
        return self.summary.get("failed", 0) == 0

    def by_source(self) -> dict[str, FileEntry]:
        return {f.source: f for f in self.files}

    def summarize(self) -> dict[str, int]:
        counts = {s: 0 for s in STATUSES}
        for f in self.files:
            counts[f.status] = counts.get(f.status, 0) + 1
        counts["non_utf8"] = sum(1 for f in self.files if f.non_utf8_bytes)
        counts["files"] = len(self.files)
        self.summary = counts
        return counts

    def to_json(self) -> dict[str, Any]:
        return {"schema": self.schema, "source_root": self.source_root, "output_root": self.output_root,
                "key": self.key, "summary": self.summary, "files": [f.to_json() for f in self.files],
                "refused": self.refused}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise ValueError(f"not a {SCHEMA} manifest")
        return cls(source_root=data["source_root"], output_root=data["output_root"], key=data.get("key", {}),
                   files=[FileEntry.from_json(f) for f in data.get("files", [])],
                   summary=data.get("summary", {}))

    @classmethod
    def load(cls, path: Path) -> Manifest | None:
        """The manifest at ``path``, or None if missing or unreadable (a full rebuild follows)."""
        try:
            return cls.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            return None
