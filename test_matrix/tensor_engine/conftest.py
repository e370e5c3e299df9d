"""The tensor-engine pack's meshes: each module gets its own engine on local CPU procs, killed
at the end of the module (a module may define its own ``engine``)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def engine(fault_log):
    """One host process with two CPU worker procs."""
    from porting.matrix.monarch_util import tensor_engine_on_cpu

    with tensor_engine_on_cpu(1, 2) as dm:
        yield dm


@pytest.fixture
def dm(engine):
    with engine.activate():
        yield engine
