"""GPU visibility and per-worker device assignment on synthetic 1-, 2- and 8-GPU hosts."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from porting.matrix import devices
from porting.matrix.facts import FACTS_ENV, Facts, facts_from, unmet_requirement
from porting.matrix.plugin import MatrixState

PROPS = {"cuda": {"port.platform": "cuda", "port.path": "cuda"},
         "rocm": {"port.platform": "rocm", "port.path": "native-hip"}}


# ---- visibility ---------------------------------------------------------------------------

@pytest.mark.parametrize("gpus", [1, 2, 8])
def test_no_variable_means_every_gpu(gpus):
    for platform in ("cuda", "rocm"):
        vis = devices.visible_gpus(platform, gpus, {})
        assert vis.tokens == tuple(str(i) for i in range(gpus))


@pytest.mark.parametrize("value,want", [("3,1", ("3", "1")), ("", ()), ("-1", ()), ("0,9,1", ("0",)),
                                        ("1,1", ("1",)), ("GPU-abc,GPU-def", ("GPU-abc", "GPU-def"))])
def test_cuda_visible_devices_on_an_8_gpu_host(value, want):
    vis = devices.visible_gpus("cuda", 8, {"CUDA_VISIBLE_DEVICES": value})
    assert vis.tokens == want and vis.variable == "CUDA_VISIBLE_DEVICES"
    assert "CUDA_VISIBLE_DEVICES" in vis.evidence


def test_cuda_list_longer_than_the_host_is_cut_to_the_devices():
    assert devices.visible_gpus("cuda", 2, {"CUDA_VISIBLE_DEVICES": "0,1,2,3"}).tokens == ("0", "1")


def test_rocr_filters_first_then_hip_indexes_into_what_is_left():
    env = {"ROCR_VISIBLE_DEVICES": "4,5,6,7", "HIP_VISIBLE_DEVICES": "1,3"}
    vis = devices.visible_gpus("rocm", 8, env)
    assert vis.tokens == ("1", "3") and vis.variable == "HIP_VISIBLE_DEVICES"
    only_rocr = devices.visible_gpus("rocm", 8, {"ROCR_VISIBLE_DEVICES": "6,7"})
    assert only_rocr.tokens == ("0", "1")  # children index the two ROCr left
    assert devices.visible_gpus("rocm", 8, {"ROCR_VISIBLE_DEVICES": "6,7", "HIP_VISIBLE_DEVICES": "2"}).tokens == ()


def test_hip_honours_cuda_visible_devices_when_hip_is_unset():
    vis = devices.visible_gpus("rocm", 8, {"CUDA_VISIBLE_DEVICES": "2,3,4"})
    assert vis.variable == "CUDA_VISIBLE_DEVICES" and vis.count == 3
    both = devices.visible_gpus("rocm", 8, {"CUDA_VISIBLE_DEVICES": "2,3,4", "HIP_VISIBLE_DEVICES": "5"})
    assert both.variable == "HIP_VISIBLE_DEVICES" and both.tokens == ("5",)


def test_cpu_platform_has_no_gpus_whatever_the_variables_say():
    assert devices.visible_gpus("cpu", 0, {"CUDA_VISIBLE_DEVICES": "0,1"}).count == 0


def test_facts_count_only_visible_gpus_and_gate_world_size():
    eight = [object()] * 8
    f = facts_from(dict(PROPS["cuda"]), eight, {"CUDA_VISIBLE_DEVICES": "6,7"})
    assert f.gpu_count == 2 and f.gpu_tokens == ["6", "7"]
    assert unmet_requirement(f, device="gpu", world_size=2) is None
    assert "2 GPU(s)" in unmet_requirement(f, device="gpu", world_size=4)
    assert facts_from(dict(PROPS["cuda"]), eight, {}).gpu_count == 8


# ---- scheduling ---------------------------------------------------------------------------

@pytest.mark.parametrize("gpus,requested,want", [(1, 8, 1), (2, 2, 1), (2, 1, 1), (8, 8, 2), (8, 2, 2),
                                                 (8, 1, 1), (16, 8, 4), (3, 4, 1), (0, 6, 6)])
def test_worker_count_fits_the_largest_rank_pool_per_worker(gpus, requested, want):
    assert devices.worker_count(requested, gpus) == want


def test_assignment_is_disjoint_and_covers_the_pool():
    vis = devices.visible_gpus("cuda", 8, {})
    sets = devices.assign(vis, devices.worker_count(8, 8))
    assert sets == [("0", "1", "2", "3"), ("4", "5", "6", "7")]
    flat = [d for s in sets for d in s]
    assert len(flat) == len(set(flat))


def test_assignment_keeps_the_visible_tokens():
    vis = devices.visible_gpus("cuda", 8, {"CUDA_VISIBLE_DEVICES": "7,5,3,1"})
    assert devices.assign(vis, 2) == [("7", "5"), ("3", "1")]
    assert devices.worker_env(vis, ("3", "1")) == {"CUDA_VISIBLE_DEVICES": "3,1"}


def test_assignment_refuses_more_workers_than_gpus():
    with pytest.raises(ValueError, match="worker_count"):
        devices.assign(devices.visible_gpus("cuda", 2, {}), 3)


# ---- the plugin, driven with synthetic hosts ----------------------------------------------

def _controller(platform: str, gpus: int, env: dict[str, str], workers: int) -> MatrixState:
    config = SimpleNamespace(option=SimpleNamespace(tx=["popen"] * workers, numprocesses=workers))
    state = MatrixState(config)  # type: ignore[arg-type]
    state.facts = facts_from(dict(PROPS[platform]), [object()] * gpus, env)
    state._schedule_workers()
    return state


def _worker_inputs(state: MatrixState) -> list[dict]:
    inputs = []
    for i in range(len(state.config.option.tx)):
        node = SimpleNamespace(gateway=SimpleNamespace(id=f"gw{i}"), workerinput={})
        state.pytest_configure_node(node)
        inputs.append(node.workerinput)
    return inputs


@pytest.mark.parametrize("gpus,env,want", [
    (1, {}, [["0"]]),
    (2, {}, [["0", "1"]]),
    (8, {}, [["0", "1", "2", "3"], ["4", "5", "6", "7"]]),
    (8, {"CUDA_VISIBLE_DEVICES": "2,3"}, [["2", "3"]]),
    (8, {"CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5"}, [["0", "1", "2", "3", "4", "5"]]),  # one worker owns all six
])
def test_controller_caps_workers_and_deals_disjoint_gpus(gpus, env, want):
    state = _controller("cuda", gpus, env, workers=8)
    assert state.config.option.tx == ["popen"] * len(want) and state.config.option.numprocesses == len(want)
    assert [w["port_gpus"] for w in _worker_inputs(state)] == want


def test_controller_on_a_cpu_host_keeps_the_requested_workers():
    config = SimpleNamespace(option=SimpleNamespace(tx=["popen"] * 2, numprocesses=2))
    state = MatrixState(config)  # type: ignore[arg-type]
    state.facts = Facts(properties={"port.platform": "cpu"})
    state._schedule_workers()
    assert config.option.tx == ["popen"] * 2 and _worker_inputs(state) == [{}, {}]


def test_worker_narrows_its_environment_and_facts(monkeypatch):
    controller = _controller("rocm", 8, {"ROCR_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7"}, workers=4)
    second = _worker_inputs(controller)[1]
    monkeypatch.delenv("HIP_VISIBLE_DEVICES", raising=False)
    monkeypatch.setenv(FACTS_ENV, json.dumps(controller.facts.to_json()))
    worker = MatrixState(SimpleNamespace(workerinput=second))  # type: ignore[arg-type]
    worker.facts = controller.facts
    worker._take_assigned_gpus()
    import os

    assert os.environ["HIP_VISIBLE_DEVICES"] == "4,5,6,7"
    assert worker.facts.gpu_count == 4
    assert Facts.from_json(json.loads(os.environ[FACTS_ENV])).gpu_tokens == ["4", "5", "6", "7"]
