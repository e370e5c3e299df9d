"""The hipify manifest: one record per source file, and the key that makes re-runs incremental."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
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
        # the fields as they are (asdict's deep copy of facts and replacements is not needed to
        # serialise them, and cost as much as the encoding)
        return {k: v for k, v in vars(self).items() if v not in (None, "", 0, False) or k in ("source", "status")}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileEntry:
        """One entry, its types checked: the manifest is a file anyone can edit, and a value of
        the wrong type must be a rebuild (ValueError -> ``Manifest.load`` returns None), not a
        traceback deep in the incremental logic."""
        if not isinstance(data, dict):
            raise ValueError("manifest entry is not an object")
        known = {f for f in cls.__dataclass_fields__}
        entry = cls(**{k: v for k, v in data.items() if k in known})
        _check_types(entry)
        return entry


_OPT_STR = (str, type(None))
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "source": (str,), "status": (str,), "why": (str,), "output": _OPT_STR, "copy": _OPT_STR, "sha256": _OPT_STR,
    "size": (int,), "mtime_ns": (int,), "candidate": (bool,), "non_utf8_bytes": (int,),
    "facts": (dict, type(None)), "replacements": (list, type(None)), "output_size": (int, type(None)),
}


def _check_types(e: FileEntry) -> None:
    for name, types in _FIELD_TYPES.items():
        if not isinstance(getattr(e, name), types):
            raise ValueError(f"manifest entry field {name!r} has the wrong type")
    if e.status not in STATUSES:
        raise ValueError(f"manifest entry status {e.status!r} is unknown")
    if not all(_shaped(r, (int, int, str)) for r in e.replacements or []):
        raise ValueError("manifest entry 'replacements' is malformed")
    if e.facts is not None:
        f = e.facts
        includes = f.get("includes", [])
        if not (isinstance(f.get("breadcrumb"), bool) and isinstance(f.get("base_changed"), bool)
                and isinstance(includes, list) and all(_shaped(m, (int, int, str, str, _OPT_STR)) for m in includes)):
            raise ValueError("manifest entry 'facts' is malformed")


def _shaped(value: Any, types: tuple[Any, ...]) -> bool:
    return (isinstance(value, list) and len(value) == len(types)
            and all(isinstance(v, t) and not (t is int and isinstance(v, bool)) for v, t in zip(value, types)))


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
        if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data["source_root"], str) \
                or not isinstance(data["output_root"], str) or not isinstance(data.get("key", {}), dict) \
                or not isinstance(data.get("files", []), list):
            raise ValueError(f"not a {SCHEMA} manifest")
        return cls(source_root=data["source_root"], output_root=data["output_root"], key=data.get("key", {}),
                   files=[FileEntry.from_json(f) for f in data.get("files", [])],
                   summary=data.get("summary", {}))

    @classmethod
    def load(cls, path: Path) -> Manifest | None:
        """The manifest at ``path``, or None if missing or unreadable (a full rebuild follows)."""
        try:
            return cls.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            return None
