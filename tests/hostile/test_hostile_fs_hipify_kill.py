"""Killing `port hipify` (SIGKILL or SIGTERM) while its pool works leaves no worker alive
(issue 11, item 7, hipify part)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

REPO = Path(__file__).resolve().parents[2]
BODY = "void f(float* p, size_t n) { cudaMemcpy(p, p, n, cudaMemcpyHostToDevice); cudaDeviceSynchronize(); }\n"


def _big_tree(src: Path) -> None:
    for i in range(240):
        d = src / f"d{i % 8}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"k{i}.cu").write_text("#include <cuda_runtime.h>\n" + BODY * 900)


def _workers(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killing_hipify_leaves_no_worker_alive(tmp_path: Path, sig: int) -> None:
    src = tmp_path / "src"
    _big_tree(src)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "porting", "hipify", str(src), "--out", str(tmp_path / "out"),
                             "-j", "2"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    kids: list[psutil.Process] = []
    try:
        while proc.poll() is None and len(kids) < 2:
            kids = _workers(proc.pid)
            time.sleep(0.02)
        if proc.poll() is not None:
            pytest.fail("hipify finished before its workers were seen; the test tree is too small")
        os.kill(proc.pid, sig)
        proc.wait()
        _gone, alive = psutil.wait_procs(kids, timeout=60)
        assert alive == [], f"workers outlived `port hipify` killed by {signal.Signals(sig).name}: {alive}"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # never leave the old behaviour's orphans behind
        except ProcessLookupError:
            pass
        proc.wait()
