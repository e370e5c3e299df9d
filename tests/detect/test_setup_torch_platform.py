"""ci/setup's torch choice per platform (`ci/setup --torch-plan`, synthetic GPU probes)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parents[2] / "ci" / "setup"


def _plan(root: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PORT_TORCH")}
    clean.update(env, PORT_SETUP_SYSROOT=str(root))
    return subprocess.run(["bash", str(SETUP), "--torch-plan"], capture_output=True, text=True, env=clean,
                          timeout=60)


def _amd(root: Path) -> Path:
    node = root / "sys/class/kfd/kfd/topology/nodes"
    (node / "0").mkdir(parents=True)
    (node / "0/properties").write_text("cpu_cores_count 64\ngfx_target_version 0\n")
    (node / "1").mkdir()
    (node / "1/properties").write_text("simd_count 304\ngfx_target_version 90402\n")
    return root


def _nvidia(root: Path) -> Path:
    d = root / "proc/driver/nvidia/gpus/0000:17:00.0"
    d.mkdir(parents=True)
    (d / "information").write_text("Model: NVIDIA H100 80GB HBM3\n")
    return root


def test_cpu_host_gets_the_pinned_torch(tmp_path):
    out = _plan(tmp_path)
    assert out.returncode == 0 and out.stdout.splitlines() == ["platform cpu", "torch torch==2.14.1"]


def test_nvidia_host_gets_the_same_cuda_build(tmp_path):
    out = _plan(_nvidia(tmp_path))
    assert out.stdout.splitlines() == ["platform cuda", "torch torch==2.14.1"]


def test_amd_host_without_a_rocm_source_is_refused_with_the_options(tmp_path):
    out = _plan(_amd(tmp_path))
    assert out.returncode == 2
    assert "PORT_TORCH_ROCM_INDEX" in out.stderr and "PORT_TORCH_ROCM_WHEEL" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_cpu_node_alone_in_the_kfd_topology_is_not_an_amd_gpu(tmp_path):
    node = tmp_path / "sys/class/kfd/kfd/topology/nodes/0"
    node.mkdir(parents=True)
    (node / "properties").write_text("gfx_target_version 0\n")
    assert _plan(tmp_path).stdout.startswith("platform cpu")


@pytest.mark.parametrize("env,want", [
    ({"PORT_TORCH_ROCM_INDEX": "https://example.invalid/whl/rocm7.0"},
     "torch --index-url https://example.invalid/whl/rocm7.0 torch"),
    ({"PORT_TORCH_ROCM_WHEEL": "/wheels/torch-2.14.1+rocm7.0-cp311-linux_x86_64.whl"},
     "torch /wheels/torch-2.14.1+rocm7.0-cp311-linux_x86_64.whl"),
])
def test_amd_host_installs_the_rocm_torch_it_is_given(tmp_path, env, want):
    out = _plan(_amd(tmp_path), **env)
    assert out.returncode == 0 and out.stdout.splitlines() == ["platform rocm", want]


def test_platform_override_and_bad_value(tmp_path):
    assert _plan(_amd(tmp_path), PORT_TORCH_PLATFORM="cpu").stdout.startswith("platform cpu")
    bad = _plan(tmp_path, PORT_TORCH_PLATFORM="tpu")
    assert bad.returncode == 2 and "PORT_TORCH_PLATFORM=tpu" in bad.stderr
