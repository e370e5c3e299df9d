"""`port soak` across the tasks of a Slurm allocation (ci/slurm/soak.sbatch), for real, on a private
single-node Slurm cluster (tests/runners/slurm_cluster.py): task 0 is the Lighthouse and the fault
driver, tasks 1..3 each supervise one replica group; one replica is SIGKILLed by its own task
(told through the shared run directory) and heals from a peer over the allocation's address."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import time
from pathlib import Path

import pytest

from porting.soak.launch import driver_budget_s
from porting.soak.spec import SoakSpec

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def _cluster_module():
    # loaded by path: with --import-mode=importlib the test directories are not packages
    spec = importlib.util.spec_from_file_location("port_slurm_cluster_soak",
                                                  REPO / "tests" / "runners" / "slurm_cluster.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def slurm():
    """The private cluster, daemons and clients alike inside a network namespace of the test's
    own: the torchft servers of the tasks (which bind all interfaces) are reachable only there."""
    module = _cluster_module()
    missing = module.missing_tools()
    if missing:
        pytest.skip(f"Slurm/munge tools missing: {', '.join(missing)} (ci/setup installs slurm-wlm and munge)")
    if subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode != 0:
        pytest.skip("needs `unshare --net` (root) for the cluster's network namespace")
    # besides lo, one addressed link: Slurm's daemons resolve their listen address with
    # AI_ADDRCONFIG, which finds nothing in a namespace holding only loopback
    holder = subprocess.Popen(["unshare", "--net", "sh", "-c",
                               "ip link set lo up && ip link add name sv0 type veth peer name sv1 && "
                               "ip addr add 10.78.0.1/24 dev sv0 && ip link set sv0 up && ip link set sv1 up && "
                               "exec sleep infinity"])
    netns = ["nsenter", f"--net=/proc/{holder.pid}/ns/net"]

    class NamespacedCluster(module.SlurmCluster):
        def _spawn(self, name, argv):
            super()._spawn(name, [*netns, *argv])

        def run(self, argv, check=True):
            return super().run([*netns, *argv], check=check)

    cluster = NamespacedCluster(cpus=8)  # one CPU per task: 4 tasks, oversubscribing this node
    cluster.netns = netns
    try:
        yield cluster.start()
    finally:
        cluster.stop()
        left = cluster.leftovers()
        cluster.remove()
        holder.kill()
        holder.wait()
        assert not left, f"processes of the Slurm test cluster left running: {left}"


def test_soak_runs_across_slurm_tasks_and_heals_a_killed_replica_from_a_peer(slurm, tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    options = ["--duration", "40", "--fault-every", "20", "--faults", "kill", "--startup-budget", "240"]
    env = {**slurm.env(), "PYTHONPATH": str(REPO), "PORT_REPO": str(REPO), "PORT_RESULTS": str(results)}
    done = subprocess.run([*slurm.netns, "sbatch", "--parsable", "--ntasks=4", f"--output={results}/slurm-%j.out",
                           "--export=ALL",
                           str(REPO / "ci" / "slurm" / "soak.sbatch"), *options],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    job = done.stdout.strip().split(";")[0]
    spec = SoakSpec(replicas=3, duration_s=40, fault_every_s=20, faults=["kill"], startup_budget_s=240)
    give_up = time.monotonic() + driver_budget_s(spec) + 240  # a hang guard, not a speed check
    while time.monotonic() < give_up:
        if not slurm.run(["squeue", "-h", "-j", job], check=False).stdout.strip():
            break
        time.sleep(1)
    out = results / f"slurm-{job}.out"
    log = out.read_text(errors="replace") if out.exists() else ""
    run_dir = results / f"soak-{job}"
    assert (run_dir / "soak.json").is_file(), log[-4000:]
    data = json.loads((run_dir / "soak.json").read_text())
    assert data["ok"] is True, ([i for i in data["invariants"] if not i["ok"]], log[-3000:])
    cluster = data["run"]["cluster"]
    assert cluster["scheduler"] == "slurm" and cluster["job"] == job
    assert set(cluster["replicas"]) == {"0", "1", "2"}
    assert data["run"]["lighthouse"].startswith(f"http://{cluster['lighthouse_address']}:")
    (fault,) = data["faults"]
    assert fault["kind"] == "kill" and fault["recovered"] and fault["detected_via"] == "task-supervisor"
    assert fault["heal_source"]["replica"] != fault["replica"]
    source = str(fault["heal_source"]["replica"])
    assert fault["heal_source"]["via"].startswith(f"http://{cluster['replica_address'][source]}:")
    names = {i["name"] for i in data["invariants"]}
    assert {"on_allocation_addresses", "no_split_brain", "loss_curve_continuous", "processes_reaped"} <= names
    assert (run_dir / "soak.xml").is_file()
