"""Fixtures for the audit's class tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from porting.audit.scan import audit_paths


@pytest.fixture
def rules_at(tmp_path: Path) -> Callable[[str, int], set[str]]:
    """The rules the audit names on ``line`` of ``source``, audited alone as ``k.cu``."""
    def at(source: str, line: int) -> set[str]:
        path = tmp_path / "k.cu"
        path.write_text(source)
        return {f.rule for f in audit_paths([path], jobs=1).findings if f.line == line}
    return at
