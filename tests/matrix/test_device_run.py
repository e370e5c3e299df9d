"""ci/device-run: argument handling, the interpreter check and the dry run (it has never run on
a GPU host from here: this machine has no GPU)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "ci" / "device-run"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args,needle", [
    ((), "--wheelhouse DIR is required"),
    (("--bogus",), "unknown argument --bogus"),
    (("--wheelhouse", "/nonexistent/wheels"), "not a directory"),
])
def test_usage_errors_are_one_line_exit_2(args, needle):
    out = _run(*args)
    assert out.returncode == 2 and needle in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_bad_worker_count_is_refused(tmp_path):
    out = _run("--wheelhouse", str(tmp_path), "-n", "many", "--python", sys.executable)
    assert out.returncode == 2 and "-n many" in out.stderr


def test_interpreter_without_torch_is_refused(tmp_path):
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    out = _run("--wheelhouse", str(tmp_path), "--python", str(bare / "bin" / "python"), "--dry-run")
    assert out.returncode == 2 and "no importable torch" in out.stderr


def test_dry_run_plans_the_cuda_build_the_cpu_build_and_the_matrix(tmp_path):
    import torch

    if not torch.version.cuda:
        pytest.skip(f"this interpreter's torch {torch.__version__} is not a CUDA build")
    out = _run("--wheelhouse", str(tmp_path), "--python", sys.executable, "--out", str(tmp_path / "o"),
               "--dry-run")
    assert out.returncode == 0, out.stderr
    steps = [line[2:] for line in out.stdout.splitlines() if line.startswith("+ ")]
    assert any("--no-index --find-links" in s and "rocm-port[matrix]" in s for s in steps)
    assert any("venv --system-site-packages" in s for s in steps)
    builds = [s for s in steps if "porting build --path" in s]
    assert [b.rsplit(" ", 1)[1] for b in builds] == ["cuda", "cpu"]
    assert steps[-1].endswith("porting matrix --junit junit -n auto")
    assert not (tmp_path / "o").exists()  # a dry run writes nothing
