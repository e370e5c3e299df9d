"""`port detect` on this very machine: CUDA 13.0 toolkit without a driver, Debian's HIP 5.2.

ci/setup installs Debian's hipcc and libamdhip64-dev, and the machine image carries the CUDA
13.0 toolkit, so these facts are part of the test environment, not assumptions.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from porting import assets

REAL_ENV = {k: v for k, v in os.environ.items() if k not in ("PORT_GPU_PLATFORM", "HIP_PLATFORM", "ROCM_PATH")}


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> dict:
    cwd = tmp_path_factory.mktemp("empty-project")
    proc = subprocess.run([sys.executable, "-m", "porting", "detect", "--json"], capture_output=True, text=True,
                          env=REAL_ENV, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_schema_has_the_documented_fields(record):
    for key in ("schema", "path", "device", "toolchains", "rocm", "cuda", "torch", "gpus", "reasons"):
        assert key in record
    assert record["schema"] == 1
    for tc in record["toolchains"]:
        assert set(tc) >= {"path", "compiler", "version", "can_run"}
    for key in ("found", "home", "version"):
        assert key in record["rocm"] and key in record["cuda"]
    assert set(record["torch"]) >= {"version", "cuda", "hip"}


def test_cuda_13_toolkit_is_compile_only_here(record):
    assert record["cuda"]["found"] and record["cuda"]["version"] == "13.0"
    assert record["cuda"]["driver"] is None
    cuda = next(t for t in record["toolchains"] if t["path"] == "cuda")
    assert cuda["can_compile"] and not cuda["can_run"]


def test_debian_rocm_5_2_is_found_under_usr_and_refused(record):
    assert record["rocm"]["found"] and record["rocm"]["home"] == "/usr"
    assert record["rocm"]["version"].startswith("5.2.")
    assert not record["rocm"]["gate_ok"]
    assert any("below the required 7.0" in r for r in record["reasons"])


def test_compile_only_rocm7_toolchain_is_listed_with_its_headers(record):
    sdk = [t for t in record["toolchains"] if t["path"] in ("native-hip", "hipified-cuda")]
    assert len(sdk) == 2
    for tc in sdk:
        assert tc["toolchain"] == "rocm7-sdk" and tc["can_compile"] and not tc["can_run"]
        assert tc["version"] == "7.1.25424" and tc["compiler"].endswith("clang++-22")
        assert "triton-3.9.0" in tc["headers"] and "sha256" in tc["headers"]


def test_path_is_cpu_with_no_gpu(record):
    assert record["path"] == "cpu" and record["device"] == "none" and record["gpus"] == []


def test_torch_is_the_pinned_cuda_build_and_monarch_a_cuda_build(record):
    # ci/setup installs torch 2.14.1 (cu130: a CUDA build that runs on this CPU-only machine)
    assert record["torch"]["version"].startswith("2.14.1")
    assert record["torch"]["flavour"] == "cuda" and record["torch"]["cuda"]
    assert record["monarch"] == "0.7.0" and record["monarch_flavour"] == "cuda"


def test_hipcc_trap_is_reported_without_hip_platform(record):
    assert record["hip_platform"]["trap"] is True
    assert any("HIP_PLATFORM=amd" in w for w in record["warnings"])


def test_require_rocm_7_fails_with_the_version_and_where(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "porting", "detect", "--require", "rocm>=7.0"],
                          capture_output=True, text=True, env=REAL_ENV, cwd=tmp_path)
    assert proc.returncode == 1
    assert "rocm>=7.0 not met: rocm 5.2" in proc.stderr and "/usr/include/hip/hip_version.h" in proc.stderr


def test_detect_does_not_import_torch(tmp_path):
    code = ("import sys, porting.cli; rc = porting.cli.main(['detect', '--json']); "
            "sys.exit(3 if 'torch' in sys.modules else rc)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=REAL_ENV, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_record_validates_against_the_published_json_schema(record):
    import jsonschema

    schema_path = assets.schema("detect-1")
    jsonschema.validate(record, json.loads(schema_path.read_text()))
    broken = {**record, "path": "metal"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, json.loads(schema_path.read_text()))
