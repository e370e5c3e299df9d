"""The per-proc device visibility contract.

CUDA honours ``CUDA_VISIBLE_DEVICES``; ROCm honours ``HIP_VISIBLE_DEVICES`` and
``ROCR_VISIBLE_DEVICES`` (and, through HIP, ``CUDA_VISIBLE_DEVICES``). Each proc of a mesh
gets its own variable through a bootstrap (rank r sees device r) or inherits the client's;
the test checks what every proc sees: the variable, and how many devices torch reports.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value, stop_mesh

pytestmark = pytest.mark.component("actor")
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_actor_subjects")

VARS = ["CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"]
HONOURED = {"cuda": {"CUDA_VISIBLE_DEVICES"},
            "rocm": {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"},
            "cpu": set()}


def _expected_count(facts, var: str, visible: int) -> int:
    if facts.platform == "cpu":
        return 0
    return visible if var in HONOURED[facts.platform] else facts.gpu_count


@pytest.mark.parametrize("var", VARS)
def test_bootstrap_sets_one_device_per_proc(facts, fault_log, var):
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"gpus": 2}, bootstrap=subjects.visibility_bootstrap(var))
    try:
        seen = list(procs.spawn("vis", subjects.Probe).visibility.call(VARS).get().values())
    finally:
        stop_mesh(procs)
    for rank, info in enumerate(seen):
        assert info["env"][var] == str(rank)
        others = {v: info["env"][v] for v in VARS if v != var}
        assert others == {v: os.environ.get(v) for v in others}, "a bootstrap must not touch the other variables"
        if facts.platform == "cpu" or rank < facts.gpu_count:
            assert info["device_count"] == _expected_count(facts, var, 1)


@pytest.mark.parametrize("var", VARS)
def test_procs_inherit_the_client_setting(facts, fault_log, var, monkeypatch):
    from monarch.actor import this_host

    monkeypatch.setenv(var, "0")
    procs = this_host().spawn_procs(per_host={"gpus": 2})
    try:
        seen = list(procs.spawn("vis", subjects.Probe).visibility.call(VARS).get().values())
    finally:
        stop_mesh(procs)
    for info in seen:
        assert info["env"][var] == "0"
        assert info["device_count"] == _expected_count(facts, var, 1)


def test_unset_means_every_device(facts, fault_log, monkeypatch):
    from monarch.actor import this_host

    for var in VARS:
        monkeypatch.delenv(var, raising=False)
    procs = this_host().spawn_procs(per_host={"gpus": 2})
    try:
        seen = list(procs.spawn("vis", subjects.Probe).visibility.call(VARS).get().values())
    finally:
        stop_mesh(procs)
    for info in seen:
        assert all(v is None for v in info["env"].values())
        assert info["device_count"] == (facts.gpu_count if facts.platform != "cpu" else 0)
