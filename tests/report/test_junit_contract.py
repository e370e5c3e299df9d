"""Every ``port.*`` property is declared once (porting.junit_contract); producers, the reader and
docs/junit-properties.md are held to that table."""

from __future__ import annotations

import re
from dataclasses import fields

from porting import assets
from porting.junit_contract import LABELLED, PROPERTIES, run_fields
from porting.matrix.scheduler import runner_properties
from porting.report.model import RunInfo


def test_the_documented_table_is_the_declared_one():
    doc = (assets.root() / "docs" / "junit-properties.md").read_text()
    documented = re.findall(r"^\| `(port\.[a-z_]+)` \|", doc, flags=re.MULTILINE)
    assert documented == list(PROPERTIES)


def test_the_reader_fills_a_field_for_each_property():
    names = {f.name for f in fields(RunInfo)}
    assert set(run_fields().values()) <= names
    assert set(LABELLED) <= set(run_fields().values())


def test_the_fingerprint_writes_only_declared_properties():
    from porting.detection import detect_here
    from porting.fingerprint import junit_properties

    machine, plan = detect_here({"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
    props = junit_properties(machine, plan, run_id="r", shard="1/1")
    assert set(props) <= set(PROPERTIES)
    # what the fingerprint leaves out is exactly what the run itself knows at the end
    assert set(PROPERTIES) - set(props) == {"port.complete", "port.incomplete_reason", "port.collected",
                                            "port.runner", "port.runner_detail"}


def test_runner_properties_are_declared():
    for env in ({}, {"GITHUB_ACTIONS": "true"}, {"SLURM_JOB_ID": "7"}, {"KUBERNETES_SERVICE_HOST": "10.0.0.1"}):
        assert set(runner_properties(env)) <= set(PROPERTIES)


def test_one_default_component_for_the_plugin_and_the_reader():
    from porting.junit_contract import default_component

    # a matrix node id (what the plugin sees) and its JUnit classname (what the reader sees)
    assert default_component("test_matrix/rdma/test_rdma.py") == "rdma"
    assert default_component("test_matrix.rdma.test_rdma::test_x") == "rdma"
    assert default_component("tests/test_matrix/actor/t.py::x") == "actor"
