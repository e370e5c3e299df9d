"""The header reader runs clang++-22; the real-SDK tests need the ROCm 7.1 SDK (ci/fetch-rocm7-sdk)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

SDK = Path(os.environ.get("PORT_ROCM7_SDK")
           or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rocm-port/rocm7-sdk/triton-3.9.0")


@pytest.fixture(scope="session")
def sdk_dir() -> Path:
    if shutil.which("clang++-22") is None or not (SDK / "include/hip/hip_version.h").is_file():
        pytest.skip("clang++-22 or the ROCm 7.1 SDK missing (ci/setup installs and fetches them)")
    return SDK


@pytest.fixture
def clang() -> str:
    found = shutil.which("clang++-22")
    if found is None:
        pytest.skip("clang++-22 not installed (ci/setup installs it)")
    return found


@pytest.fixture
def cache_env(tmp_path: Path) -> dict[str, str]:
    """An environment whose header cache is private to the test."""
    return dict(os.environ, PORT_CACHE_DIR=str(tmp_path / "cache"))


@pytest.fixture(scope="session")
def sdk_names(tmp_path_factory, sdk_dir):
    """ROCm 7.1's runtime API headers, read once per session (cold: seconds)."""
    from porting.headers import declared_names

    env = dict(os.environ, PORT_CACHE_DIR=str(tmp_path_factory.mktemp("header-cache")))
    return declared_names(["hip/hip_runtime_api.h"], include_dirs=[sdk_dir / "include"], language="hip", env=env)
