"""Fixtures for the hip_aliases / `port aliases` tests (importlib mode: use fixtures, not imports)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from porting import assets
from porting.aliases.table import AliasTable, build_table


@pytest.fixture(scope="session")
def table() -> AliasTable:
    """The table as the commands build it: held to the ROCm headers here (cached after the first parse)."""
    from porting.aliases.ground_truth import rocm_names

    return build_table(names=rocm_names())


@pytest.fixture(scope="session")
def hip_aliases_dir() -> Path:
    return assets.aliases_dir()


def _find(name: str, *extra: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    return next((p for p in extra if os.access(p, os.X_OK)), None)


@pytest.fixture(scope="session")
def cargo() -> str:
    path = _find("cargo", str(Path.home() / ".cargo" / "bin" / "cargo"))
    if path is None:
        pytest.skip("cargo is not installed (ci/setup installs it)")
    return path


@pytest.fixture(scope="session")
def gxx() -> str:
    path = _find("g++") or _find("c++")
    if path is None:
        pytest.skip("no host C++ compiler")
    return path


@pytest.fixture(scope="session")
def nvcc() -> str:
    path = _find("nvcc", "/usr/local/cuda/bin/nvcc")
    if path is None:
        pytest.skip("nvcc is not installed")
    return path


@pytest.fixture(scope="session")
def hipcc() -> str:
    path = _find("hipcc", "/opt/rocm/bin/hipcc")
    if path is None:
        pytest.skip("hipcc is not installed (ci/setup installs Debian's HIP)")
    return path
