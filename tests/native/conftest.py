"""Fixtures for the native layer: build the cpu library once per test session.

Under pytest-xdist all workers share one build directory (the parent of their base temp
dirs); ``porting.build.build`` serialises on a file lock, so the first worker compiles and
the others find every step up to date.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def shared_build_dir(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    base = tmp_path_factory.getbasetemp()
    root = base.parent if worker_id != "master" else base
    return root / "native-build"


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    return shared_build_dir(tmp_path_factory, worker_id)


@pytest.fixture(scope="session")
def lib(build_dir: Path):
    from porting import native

    return native.ensure_built("cpu", build_dir)

