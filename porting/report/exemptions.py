"""The exemption registry as the report reads it: ``porting.matrix.exemptions`` (the matrix
plugin's registry, ``matrix.exemptions`` = test_matrix/exemptions.toml) seen from JUnit.

The registry's patterns are over pytest node ids (``test_matrix/rdma/test_x.py::TestC::test_y``);
JUnit ids are ``classname::name`` (``test_matrix.rdma.test_x.TestC::test_y``), so each pattern
is matched in both spellings. Invalid registries are ``ConfigError``s from the registry loader.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def nodeid_to_junit(pattern: str) -> str:
    """``a/b.py::C::t[x]`` -> ``a.b.C::t[x]`` (pytest's junitxml classname mangling)."""
    path, sep, rest = pattern.partition("::")
    if path.endswith(".py"):
        path = path[:-3]
    path = path.replace("/", ".")
    if not sep:
        return path
    parts = rest.split("::")
    return ".".join([path, *parts[:-1]]) + "::" + parts[-1]


@dataclass(frozen=True)
class Exemption:
    id: str
    test: str  # fnmatch pattern over pytest node ids
    platforms: tuple[str, ...]  # cuda / rocm / cpu
    reason: str
    link: str
    expires: dt.date | None
    action: str = ""

    def matches(self, test_id: str, platform: str) -> bool:
        if self.platforms and platform not in self.platforms:
            return False
        return (fnmatch.fnmatchcase(test_id, self.test)
                or fnmatch.fnmatchcase(test_id, nodeid_to_junit(self.test)))

    def expired(self, today: dt.date) -> bool:
        return self.expires is None or today > self.expires

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "test": self.test, "platform": ",".join(self.platforms), "reason": self.reason,
                "link": self.link, "expires": self.expires.isoformat() if self.expires else None,
                "action": self.action}


def load_exemptions(path: str | Path) -> tuple[list[Exemption], list[str]]:
    """Return (exemptions, problems). A missing file is an empty registry."""
    from ..matrix.exemptions import load

    registry = load(path)
    out = [Exemption(id=e.id, test=e.pattern, platforms=tuple(e.platforms), reason=e.reason, link=e.tracking,
                     expires=e.expires, action=e.action) for e in registry.exemptions]
    return out, []
