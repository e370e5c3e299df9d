"""requires(...) evaluation against detected platform facts."""

from __future__ import annotations

import json

import pytest

from porting.matrix.facts import FACTS_ENV, Facts, facts_for_process, unmet_requirement


def _facts(platform="cpu", rocm="", usable="false", rdma="tcp", gpus=0):
    return Facts(properties={"port.platform": platform, "port.path": {"cpu": "cpu", "rocm": "native-hip",
                                                                      "cuda": "cuda"}[platform],
                             "port.rocm_version": rocm, "port.rocm_usable": usable, "port.rdma_backend": rdma},
                 gpu_count=gpus)


def test_cpu_box_runs_device_any_and_cpu():
    f = _facts()
    assert unmet_requirement(f) is None and unmet_requirement(f, device="cpu") is None


@pytest.mark.parametrize("device", ["gpu", "cuda", "rocm"])
def test_cpu_box_skips_gpu_requirements_with_detection_reason(device):
    reason = unmet_requirement(_facts(), device=device)
    assert reason and "detection: platform cpu" in reason


def test_rocm_version_gate():
    old = _facts(platform="rocm", rocm="6.4.1", usable="false", gpus=8)
    assert "ROCm 6.4.1" in unmet_requirement(old, min_rocm="7.0")
    new = _facts(platform="rocm", rocm="7.0.2", usable="true", gpus=8)
    assert unmet_requirement(new, device="rocm", min_rocm="7.0") is None
    assert "no ROCm found" in unmet_requirement(_facts(), min_rocm="7.0")
    unusable = _facts(platform="cpu", rocm="7.1", usable="false")
    assert "no usable device" in unmet_requirement(unusable, min_rocm="7.0")


def test_rdma_backend_requirement():
    assert unmet_requirement(_facts(rdma="tcp"), rdma="tcp") is None
    assert "detection: tcp" in unmet_requirement(_facts(rdma="tcp"), rdma="ibverbs")


def test_world_size_needs_devices_only_on_gpus():
    assert unmet_requirement(_facts(), world_size=64) is None  # CPU ranks are processes
    two = _facts(platform="cuda", gpus=2)
    assert unmet_requirement(two, device="gpu", world_size=2) is None
    assert "2 GPU(s)" in unmet_requirement(two, device="gpu", world_size=4)
    assert unmet_requirement(two, world_size=4) is None  # gloo ranks on a GPU host are processes too


def test_bad_marker_arguments_raise():
    with pytest.raises(ValueError):
        unmet_requirement(_facts(), device="tpu")
    with pytest.raises(ValueError):
        unmet_requirement(_facts(), rdma="carrier-pigeon")


def test_facts_travel_through_the_environment():
    f = _facts(platform="rocm", rocm="7.0", usable="true", gpus=4)
    back = facts_for_process({FACTS_ENV: json.dumps(f.to_json())})
    assert back == f and back.platform == "rocm"
