"""Fixtures for the runner tests: a tiny matrix pack and a real single-node Slurm cluster."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

REPO = Path(__file__).resolve().parents[2]

# Six cases: passes, a skip, an xfail, and one that fails only where PORT_TEST_ROLE=rocm (so a
# run labelled ROCm has a blocking test and the reference does not). Every case is held on the
# Slurm task / Kubernetes completion index PORT_TEST_HOLD_TASK until it is cancelled (bounded,
# in case nobody cancels it).
PACK = '''
import os, pathlib, time
import pytest


def _hold():
    task = os.environ.get("PORT_TEST_HOLD_TASK")
    me = os.environ.get("SLURM_ARRAY_TASK_ID", os.environ.get("JOB_COMPLETION_INDEX"))
    if task is not None and me == task:
        pathlib.Path(os.environ["PORT_TEST_HOLD_FLAG"]).touch()
        for _ in range(3000):
            time.sleep(0.1)


@pytest.mark.parametrize("n", range(3))
def test_case(n):
    _hold()
    assert n >= 0


def test_fails_on_rocm():
    _hold()
    assert os.environ.get("PORT_TEST_ROLE") != "rocm", "wrong answer on this platform"


def test_skipped():
    _hold()
    pytest.skip("not on this platform")


@pytest.mark.xfail(strict=True, reason="known bug")
def test_known_bug():
    _hold()
    assert False
'''
PACK_SIZE = 6


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    d = tmp_path / "pack"
    d.mkdir()
    (d / "test_small.py").write_text(PACK)
    return d


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without scheduler or matrix variables, plus ``extra``;
    the worktree first on the path (the venv's editable install may point elsewhere)."""
    prefixes = ("SLURM_", "SBATCH_", "PORT_MATRIX", "PYTEST_XDIST", "GITHUB_", "JOB_COMPLETION",
                "KUBERNETES_", "PORT_SHARD", "PORT_TEST_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env.pop("PYTEST_CURRENT_TEST", None)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    env.update(extra)
    return env


def port(*args: str, env: dict[str, str] | None = None, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "porting", *args], cwd=cwd, env=env or clean_env(),
                          capture_output=True, text=True, timeout=600)


def read_parity(out: Path) -> dict:
    return json.loads((out / "parity.json").read_text())


@pytest.fixture(scope="session")
def slurm_cluster():
    # Loaded by path: with --import-mode=importlib the test directory is not on sys.path.
    spec = importlib.util.spec_from_file_location("port_slurm_cluster", Path(__file__).with_name("slurm_cluster.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    SlurmCluster, missing_tools = module.SlurmCluster, module.missing_tools

    missing = missing_tools()
    if missing:
        pytest.fail(f"Slurm/munge tools missing: {', '.join(missing)} (ci/setup installs slurm-wlm and munge)")
    cluster = SlurmCluster()
    try:
        yield cluster.start()
    finally:
        cluster.stop()
        left = cluster.leftovers()
        cluster.remove()
        assert not left, f"processes of the Slurm test cluster left running: {left}"


def wait_for_queue_empty(cluster, jobs: list[str], bound: float = 300.0) -> None:
    """Until none of ``jobs`` is queued or running (a hang guard, not a timing assertion)."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        out = cluster.run(["squeue", "-h", "-o", "%i %T", "-j", ",".join(jobs)], check=False).stdout
        if not out.strip():
            return
        time.sleep(0.3)
    raise AssertionError(f"jobs {jobs} still queued after {bound:.0f}s: "
                         + cluster.run(["squeue", "-h"], check=False).stdout)


@pytest.fixture(scope="session")
def tools() -> SimpleNamespace:
    """The helpers above, for the test modules (conftest is not importable under importlib mode)."""
    return SimpleNamespace(port=port, clean_env=clean_env, read_parity=read_parity, repo=REPO,
                           wait_for_queue_empty=wait_for_queue_empty, pack_size=PACK_SIZE)
