"""`port check` compiles with the plan's ROCm toolchain: here, clang++-N with the ROCm 7.1 SDK."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from porting.check import compiler as cc


@pytest.fixture(scope="session", autouse=True)
def check_cache(tmp_path_factory) -> Path:
    """The compile cache of this test session (the per-user default is left alone; the key
    stays per user, outside every tree, as in real use)."""
    path = tmp_path_factory.mktemp("check-cache")
    old = os.environ.get("PORT_CHECK_CACHE")
    os.environ["PORT_CHECK_CACHE"] = str(path)
    yield path
    if old is None:
        os.environ.pop("PORT_CHECK_CACHE", None)
    else:
        os.environ["PORT_CHECK_CACHE"] = old


@pytest.fixture
def fake_tool(tmp_path, monkeypatch):
    """Install a shell script as the check toolchain's compiler (its body decides the verdict)."""
    def install(body: str) -> str:
        script = tmp_path / "fake-clang"
        script.write_text("#!/bin/sh\n" + body)
        script.chmod(0o755)
        tool = cc.Toolchain("rocm7-sdk", str(script), "7.1", ["-x", "hip"], "fake")
        monkeypatch.setattr(cc, "select_toolchain", lambda plan, machine, guard: tool)
        return str(script)
    return install


@pytest.fixture(scope="session")
def toolchain() -> None:
    from porting.probe.rocm_sdk import probe_rocm_sdk

    if shutil.which("hipcc") is None and not probe_rocm_sdk(Path("/"), os.environ).found:
        pytest.skip("no ROCm toolchain: neither ROCm 7 nor clang++-20+ with the ROCm 7 SDK "
                    "(ci/setup installs and fetches them)")
