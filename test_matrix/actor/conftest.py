"""The actor pack's proc mesh: each module that asks for ``procs`` gets its own two CPU procs on
this host, stopped at the end of the module (a module may define its own)."""

from __future__ import annotations

import pytest

from porting.matrix.monarch_util import stop_mesh


@pytest.fixture(scope="module")
def procs(fault_log):
    from monarch.actor import this_host

    mesh = this_host().spawn_procs(per_host={"gpus": 2})
    yield mesh
    stop_mesh(mesh)
