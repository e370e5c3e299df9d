"""Host meshes (torchmonarch 0.7.0, host_mesh.py) of a Monarch ProcessJob with two local
host processes: procs spawned per host run under their own host's agent, a slice of the host
mesh spawns only on its hosts, the checks spawn_procs makes before anything is sent (per-host
labels overlapping the host labels, a proc_bind list of the wrong length), a slice refused a
shutdown (a reference, not owned), and an owned host mesh's shutdown: new spawns refused and
its actors stopped by the drain.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value

pytestmark = pytest.mark.component("actor")
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_actor_subjects")


def _job(hosts: int):
    from monarch._src.job.process import ProcessJob

    job = ProcessJob({"hosts": hosts})
    return job, job.state(cached_path=None).hosts


@pytest.fixture(scope="module")
def hosts(fault_log):
    job, mesh = _job(2)
    try:
        yield mesh
    finally:
        job.kill()


@pytest.fixture(scope="module")
def probes(hosts):
    return hosts.spawn_procs(per_host={"gpus": 2}).spawn("host_probes", subjects.Probe)


def _parents(probes) -> dict[tuple[int, int], int]:
    return {(p["hosts"], p["gpus"]): v for p, v in probes.parent_pid.call().get(timeout=60).items()}


def test_procs_run_under_their_own_hosts_agent(hosts, probes):
    assert dict(hosts.extent) == {"hosts": 2}
    parents = _parents(probes)
    assert sorted(parents) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert parents[0, 0] == parents[0, 1] != parents[1, 0] == parents[1, 1]
    assert os.getpid() not in parents.values()  # the hosts are their own processes, not the client


def test_a_slice_of_the_host_mesh_spawns_only_on_its_hosts(hosts, probes):
    one = hosts.slice(hosts=1).spawn_procs(per_host={"gpus": 1}).spawn("host_slice_probe", subjects.Probe)
    assert one.parent_pid.call_one().get(timeout=60) == _parents(probes)[1, 0]


def test_spawn_procs_refuses_bad_shapes_before_sending(hosts):
    with pytest.raises(ValueError, match=r"per_host labels \['hosts'\] overlap with host labels"):
        hosts.spawn_procs(per_host={"hosts": 2})
    with pytest.raises(ValueError, match=r"proc_bind length \(1\) must equal procs_per_host \(2\)"):
        hosts.spawn_procs(per_host={"gpus": 2}, proc_bind=[{"cpus": "0"}])


def test_a_slice_of_a_host_mesh_cannot_be_shut_down(hosts, probes):
    with pytest.raises(RuntimeError, match="cannot shut down `HostMesh` that is a reference instead of owned"):
        hosts.slice(hosts=1).shutdown().get(timeout=60)
    assert sorted(_parents(probes)) == [(0, 0), (0, 1), (1, 0), (1, 1)]  # nothing was shut down


def test_a_shut_down_host_mesh_refuses_spawns_and_stops_its_actors(fault_log):
    from monarch._rust_bindings.monarch_hyperactor.supervision import SupervisionError

    job, mesh = _job(1)
    try:
        probe = mesh.spawn_procs(per_host={"gpus": 1}).spawn("host_drained", subjects.Probe)
        assert probe.pid.call_one().get(timeout=60) != os.getpid()
        mesh.shutdown().get(timeout=60)
        with pytest.raises(RuntimeError, match="HostMesh has already been shut down"):
            mesh.spawn_procs(per_host={"gpus": 1})
        with pytest.raises(SupervisionError, match="(?s)host_drained.pid\\(\\) failed.*stopped: drain host"):
            probe.pid.call_one().get(timeout=60)
    finally:
        job.kill()


def test_the_client_is_rank_zero_of_an_empty_extent_on_singleton_meshes():
    """Outside any actor the context is the root client actor's: rank 0 of an empty extent,
    named after the client, on a proc mesh and host mesh with no dimensions."""
    from monarch.actor import context, current_actor_name, current_rank, current_size, this_host, this_proc

    point = current_rank()
    assert (point.rank, dict(point), dict(point.extent), current_size()) == (0, {}, {}, {})
    assert current_actor_name().startswith("client.") and str(context().actor_instance.actor_id).startswith("client.")
    assert dict(this_proc().extent) == {} and dict(this_host().extent) == {}
