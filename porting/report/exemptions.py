"""The exemption registry as the report reads it: ``porting.matrix.exemptions`` (the matrix
plugin's registries: the shipped test_matrix/exemptions.toml plus ``matrix.exemptions``) seen from JUnit.

The registry's patterns are over pytest node ids (``test_matrix/rdma/test_x.py::TestC::test_y``);
JUnit ids are ``classname::name`` (``test_matrix.rdma.test_x.TestC::test_y``), so each pattern
is matched in both spellings. Invalid registries are ``ConfigError``s from the registry loader.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable
from typing import Any

from ..matrix.exemptions import Exemption, load_all


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


def matches(ex: Exemption, test_id: str, platform: str) -> bool:
    """Whether ``ex`` covers the JUnit id ``test_id`` on ``platform`` (any of its patterns)."""
    return ex.applies_to(platform) and any(
        fnmatch.fnmatchcase(test_id, p) or fnmatch.fnmatchcase(test_id, nodeid_to_junit(p))
        for p in ex.patterns or (ex.pattern,))


def exemption_json(ex: Exemption) -> dict[str, Any]:
    """The exemption as parity.json shows it (``exempted[].exemption``)."""
    return {"id": ex.id, "test": ex.pattern, "platform": ",".join(ex.platforms), "reason": ex.reason,
            "link": ex.tracking, "expires": ex.expires.isoformat(), "action": ex.action}


def load_exemptions(paths: Iterable[str | os.PathLike[str]]) -> list[Exemption]:
    """The registries' exemptions (the shipped one and a user's); a missing file is empty."""
    return load_all(paths).exemptions
