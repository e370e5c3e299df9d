"""Fixtures for `port emulate`: one compiled-object cache per test session.

The runtime object (and any program compiled twice) is cached by content hash; under
pytest-xdist every worker shares the cache (the parent of their base temp dirs), and writes
to it are atomic renames, so concurrent workers at worst compile the same object twice.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def emu_cache(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    base = tmp_path_factory.getbasetemp()
    root = base.parent if worker_id != "master" else base
    return root / "emulate-cache"


@pytest.fixture
def emulate_program(tmp_path: Path, emu_cache: Path):
    """Run ``port emulate``'s API on program files; returns the Result."""
    from porting.emulate import Request, emulate

    def go(*sources: Path, **kw):
        return emulate(Request(sources=list(sources), out_dir=tmp_path / "out", cache_dir=emu_cache, **kw))

    return go
