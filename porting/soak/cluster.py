"""`port soak` on a real cluster: one task (Slurm) or pod (Kubernetes) per role, real hosts, the
real network between them, every file in one run directory that all of them share.

Roles (``python -m porting.soak.cluster ROLE RUN_DIR``):

* ``task`` — a Slurm task picks its role from ``SLURM_PROCID``: 0 is the Lighthouse, ``k >= 1``
  is replica group ``k - 1`` (``ci/slurm/soak.sbatch`` starts ``--ntasks = replicas + 1``).
* ``lighthouse`` — the torchft Lighthouse on this node's address (from the allocation), its URL
  written to ``RUN_DIR/lighthouse.url``; then the fault driver (``ClusterDriver``: the schedule of
  ``spec.json`` through control files), and at the end the analysis and invariants
  (``soak.json``, ``soak.xml``, ``soak.png``) over what every task wrote.
* ``replica K`` — replica group ``K``'s supervisor on this node: runs each generation as a child
  process (``generation``), restarts it when it fails (a ``kill`` from the schedule is carried
  out here, on the replica's own node), and logs launches, failures and exits to
  ``RUN_DIR/supervisor-rK.jsonl``.

The address of a node comes from the allocation: ``PORT_SOAK_ADDRESS`` when set (Kubernetes
passes the pod IP through the downward API), else Slurm's ``NodeAddr`` of ``SLURMD_NODENAME``
(``scontrol show node``). Every torchft server binds or advertises that address.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import process_group
from ..atomic import write_json, write_text
from ..errors import PlatformError, UsageError
from .driver import _Driver, listeners
from .metrics import read_jsonl
from .procs import start_ticks
from .spec import SoakSpec, heartbeat_timeout_s, join_timeout_s
from .trainer import TrainerSpec, control_path, current_deadline

MIN_RESTART_S = 3.0


def node_address(env: Mapping[str, str]) -> str:
    """This node's address in the allocation (see the module docstring)."""
    if env.get("PORT_SOAK_ADDRESS"):
        return env["PORT_SOAK_ADDRESS"]
    node = env.get("SLURMD_NODENAME")
    if not node:
        raise PlatformError("port soak cluster: no PORT_SOAK_ADDRESS and not in a Slurm task (no SLURMD_NODENAME)")
    out = subprocess.run(["scontrol", "show", "node", "-o", node], capture_output=True, text=True, timeout=30,
                         env=dict(env)).stdout
    fields = dict(f.split("=", 1) for f in out.split() if "=" in f)
    addr = fields.get("NodeAddr") or node
    try:
        return str(socket.getaddrinfo(addr, None, socket.AF_INET)[0][4][0])
    except OSError as exc:
        raise PlatformError(f"port soak cluster: node {node} address {addr!r} does not resolve: {exc}") from None


def _spec(run_dir: Path) -> SoakSpec:
    return SoakSpec.from_json(json.loads((run_dir / "spec.json").read_text(encoding="utf-8")))


def _wait_for_file(path: Path, until: float) -> str:
    while time.time() < until:
        try:
            text = path.read_text(encoding="utf-8").strip()
        except OSError:
            text = ""
        if text:
            return text
        time.sleep(0.2)
    raise PlatformError(f"port soak cluster: {path} did not appear in time")


def supervisor_log(run_dir: Path, replica: int) -> Path:
    return run_dir / f"supervisor-r{replica}.jsonl"


def _log(path: Path, record: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"t": time.time(), **record}) + "\n")


# replica role ------------------------------------------------------------------------------------
def replica(run_dir: Path, index: int, env: Mapping[str, str]) -> int:
    """Supervise replica group ``index`` on this node until the run's deadline."""
    spec = _spec(run_dir)
    started = time.time()
    address = node_address(env)
    write_json(run_dir / "hosts" / f"r{index}.json", {"replica": index, "node": socket.gethostname(),
                                                      "address": address, "pid": os.getpid()})
    lighthouse = _wait_for_file(run_dir / "lighthouse.url", started + spec.startup_budget_s)
    cap = started + spec.startup_budget_s + spec.duration_s
    log, gen = supervisor_log(run_dir, index), 0
    base = {"lighthouse": lighthouse, "out_dir": str(run_dir), "deadline": cap, "quorum_every": spec.quorum_every,
            "step_period": spec.step_period_s, "min_replicas": spec.min_replicas, "timeout_s": spec.timeout_s,
            "quorum_timeout_s": spec.startup_budget_s, "seed": spec.seed, "address": address, "replica": index}
    spare = _spare(run_dir, index, 0)
    try:
        while time.time() < current_deadline(run_dir, cap) - MIN_RESTART_S:
            child, spare = spare, _spare(run_dir, index, gen + 1)  # the next one warms up meanwhile
            rc = _generation(child, run_dir, {**base, "generation": gen}, log)
            if rc == 0:
                break
            gen += 1
    finally:
        process_group.stop_group(spare, grace_s=5)
    _write_host_shard(run_dir, spec, index, env)
    return 0


def _write_host_shard(run_dir: Path, spec: SoakSpec, index: int, env: Mapping[str, str]) -> None:
    """``RUN_DIR/hosts/rK.xml``: this host's shard of the run (see junit.shard_of)."""
    from .junit import write_host_shard
    from .trainer import steps_path

    scheduler = "slurm" if env.get("SLURM_JOB_ID") else env.get("PORT_SOAK_SCHEDULER", "kubernetes")
    job = env.get("SLURM_JOB_ID") or env.get("PORT_SOAK_RUN_ID") or ""
    commits = sum(1 for e in read_jsonl(steps_path(run_dir, index)) if e.get("event") == "step" and e.get("committed"))
    write_host_shard(run_dir / "hosts" / f"r{index}.xml", index, f"soak-{scheduler}-{job}",
                     f"{index + 2}/{spec.replicas + 1}", read_jsonl(supervisor_log(run_dir, index)), commits, env)


def _spare(run_dir: Path, replica: int, n: int) -> subprocess.Popen[bytes]:
    """A generation process started ahead: it pays the imports and the first step's one-off costs
    (trainer.warm_up), then waits for its spec on stdin; a restart then costs no cold start."""
    logs = run_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "porting.soak.cluster", "generation", str(run_dir)]
    with open(logs / f"r{replica}.g{n}.log", "ab") as out:
        return process_group.spawn(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.PIPE)


def _generation(child: subprocess.Popen[bytes], run_dir: Path, spec: dict[str, Any], log: Path) -> int:
    """Hand ``spec`` to the waiting ``child`` and supervise it until it ends; a ``kill`` in its
    control file is a SIGKILL from here (this task runs on the replica's own node)."""
    replica_, gen = int(spec["replica"]), int(spec["generation"])
    ctl = control_path(run_dir, replica_, gen)
    assert child.stdin is not None
    try:
        child.stdin.write((json.dumps(spec) + "\n").encode())
        child.stdin.close()
    except OSError:  # the spare died while warming up: it is logged as a failed generation below
        pass
    _log(log, {"event": "launch", "replica": replica_, "gen": gen, "pid": child.pid, "start": start_ticks(child.pid),
               "warm_spare": True})
    try:
        while child.poll() is None:
            if _control(ctl) == "kill":
                os.kill(child.pid, signal.SIGKILL)
                child.wait()
                break
            time.sleep(0.1)
    finally:
        process_group.stop_group(child, grace_s=5)
    rc = child.returncode
    _log(log, {"event": "exit", "replica": replica_, "gen": gen, "pid": child.pid, "rc": rc})
    if rc != 0:
        _log(log, {"event": "failure", "replica": replica_, "gen": gen, "via": "task-supervisor",
                   "report": f"generation {gen} exited with status {rc}", "detected": time.time()})
    return int(rc)


def _control(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def generation(run_dir: Path) -> int:
    """A generation's process: warm up, then train with the spec read from stdin (one line)."""
    from .trainer import InjectedFault, train, warm_up

    warm_up()
    line = sys.stdin.readline()
    if not line.strip():
        return 0  # a spare never needed: its supervisor closed stdin at the end
    spec = TrainerSpec.from_json(json.loads(line))
    try:
        train(spec)
    except InjectedFault as exc:
        print(f"injected fault: {exc}", file=sys.stderr, flush=True)
        return 3
    return 0


# lighthouse role: Lighthouse, fault driver, analysis --------------------------------------------
class ClusterDriver(_Driver):
    """The soak driver over tasks on other nodes: replicas are found through their supervisor
    logs, and every fault (``kill`` too) is delivered through its control file."""

    def launch(self) -> None:
        self.launched = time.time()

    def _pids(self) -> dict[int, list[int]]:
        found: dict[int, list[int]] = {}
        for r in range(self.spec.replicas):
            launches = [e for e in read_jsonl(supervisor_log(self.out, r)) if e.get("event") == "launch"]
            found[r] = [int(launches[-1]["gen"]), int(launches[-1]["pid"])] if launches else [0, 0]
        return found

    def _kill(self, target: int, gen: int, pid: int) -> None:
        path = control_path(self.out, target, gen)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, "kill")

    def stop(self) -> None:
        """Replicas stop by themselves at the deadline; wait (bounded) for every generation's exit."""
        give_up = time.time() + 2 * self.spec.timeout_s + 30
        while time.time() < give_up and _running(self.out, self.spec.replicas):
            time.sleep(0.5)


def _running(run_dir: Path, replicas: int) -> list[int]:
    """Pids of generations launched and not yet logged as exited."""
    records = [e for r in range(replicas) for e in read_jsonl(supervisor_log(run_dir, r))]
    exited = {e["pid"] for e in records if e.get("event") == "exit"}
    return [e["pid"] for e in records if e.get("event") == "launch" and e["pid"] not in exited]


def lighthouse(run_dir: Path, env: Mapping[str, str], scheduler: str) -> int:
    from torchft.coordination import LighthouseServer

    from .launch import build_record, write_artifacts
    from .spec import make_schedule

    began = time.time()
    spec = _spec(run_dir)
    address = node_address(env)
    port = int(env.get("PORT_SOAK_LIGHTHOUSE_PORT") or 0)  # fixed behind a Kubernetes Service
    server = LighthouseServer(bind=f"{address}:{port}", min_replicas=spec.min_replicas, quorum_tick_ms=50,
                              join_timeout_ms=int(join_timeout_s(spec) * 1000),
                              heartbeat_timeout_ms=int(heartbeat_timeout_s(spec) * 1000))
    url = env.get("PORT_SOAK_LIGHTHOUSE_URL") or f"http://{address}:" + server.address().rsplit(":", 1)[1]
    run: dict[str, Any] = {"schema": 1, "driver_pid": os.getpid(), "injections": [], "listener_snapshots": [],
                           "unhandled_faults": [], "errors": [], "lighthouse": url,
                           "network": {"netns": os.readlink("/proc/self/ns/net"), "links": [], "addresses": []}}
    write_text(run_dir / "lighthouse.url", url + "\n")
    driver = ClusterDriver(run_dir, spec, run, None)
    try:
        driver.launch()
        driver.wait_for_origin()
        for fault in make_schedule(spec):
            driver.inject(fault)
        driver.wait_for_stop()
    except Exception as exc:  # reported; the analysis still runs over what was written
        run["errors"].append(f"{type(exc).__name__}: {exc}"[:600])
    finally:
        driver.stop()
        server.shutdown()
    run.update(finished=time.time(), cluster=_cluster_facts(run_dir, spec, scheduler, address, env))
    run["listener_snapshots"] = [{"t": time.time(), "listeners": listeners()}]
    left = _running(run_dir, spec.replicas)
    run["reaped"] = {"launched": [e["pid"] for r in range(spec.replicas) for e in read_jsonl(supervisor_log(
        run_dir, r)) if e.get("event") == "launch"], "stragglers_killed": left}
    write_json(run_dir / "run.json", run)
    _merge_supervisor_logs(run_dir, spec.replicas)
    record = build_record(spec, run_dir, 0 if not run["errors"] else 1, time.time() - began)
    write_artifacts(record, run_dir, env)
    return 0 if record.ok else 1


def _cluster_facts(run_dir: Path, spec: SoakSpec, scheduler: str, address: str,
                   env: Mapping[str, str]) -> dict[str, Any]:
    where: dict[str, Any] = {}
    for r in range(spec.replicas):
        try:
            where[str(r)] = json.loads((run_dir / "hosts" / f"r{r}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            where[str(r)] = None
    job = env.get("SLURM_JOB_ID") or env.get("PORT_SOAK_RUN_ID") or ""
    return {"scheduler": scheduler, "job": job, "lighthouse_node": socket.gethostname(),
            "lighthouse_address": address, "lighthouse_service": env.get("PORT_SOAK_LIGHTHOUSE_URL"),
            "replicas": where,
            "replica_address": {r: (w or {}).get("address") for r, w in where.items()},
            "nodes": sorted({(w or {}).get("node") for w in where.values() if w} | {socket.gethostname()})}


def _merge_supervisor_logs(run_dir: Path, replicas: int) -> None:
    records = sorted((e for r in range(replicas) for e in read_jsonl(supervisor_log(run_dir, r))),
                     key=lambda e: float(e.get("t", 0)))
    write_text(run_dir / "supervisor.jsonl", "".join(json.dumps(e) + "\n" for e in records))


def write_spec(run_dir: Path, options: list[str]) -> int:
    """``RUN_DIR/spec.json`` from `port soak` options, in a new (or empty) run directory; the
    simulated-host options have no meaning on real hosts and are refused."""
    import argparse

    from ..commands.soak import add_arguments, spec_from_args

    parser = argparse.ArgumentParser(prog="port soak (cluster)")
    add_arguments(parser)
    args = parser.parse_args(options)
    args.config = None
    if args.hosts:
        raise UsageError("--hosts: simulated hosts are for one machine; on a cluster every task is a host")
    spec = spec_from_args(args)
    if run_dir.exists() and any(run_dir.iterdir()):
        raise UsageError(f"{run_dir}: not empty; a cluster soak starts in a new run directory")
    (run_dir / "hosts").mkdir(parents=True, exist_ok=True)
    write_json(run_dir / "spec.json", spec.to_json())
    print(f"soak spec: {spec.replicas} replica groups, {spec.duration_s:g} s, faults {','.join(spec.faults)} "
          f"-> {run_dir / 'spec.json'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2:
        raise UsageError("usage: python -m porting.soak.cluster {task|lighthouse|replica K|generation} RUN_DIR ...")
    role, run_dir, env = args[0], Path(args[1]), os.environ
    if role == "spec":
        return write_spec(run_dir, args[2:])
    if role == "generation":
        return generation(run_dir)
    if role == "task":
        rank = int(env.get("SLURM_PROCID", "-1"))
        if rank < 0:
            raise UsageError("port soak cluster task: not a Slurm task (no SLURM_PROCID)")
        return lighthouse(run_dir, env, "slurm") if rank == 0 else replica(run_dir, rank - 1, env)
    if role == "lighthouse":
        return lighthouse(run_dir, env, env.get("PORT_SOAK_SCHEDULER", "kubernetes"))
    if role == "replica":
        index = int(args[2]) if len(args) > 2 else int(env.get("JOB_COMPLETION_INDEX", "-1"))
        if index < 0:
            raise UsageError("port soak cluster replica: give the index (or JOB_COMPLETION_INDEX)")
        return replica(run_dir, index, env)
    raise UsageError(f"port soak cluster: unknown role {role!r}")


def _main() -> int:
    from ..errors import PortError

    try:
        return main()
    except PortError as exc:  # one line, no traceback
        print(f"port soak cluster: {exc}", file=sys.stderr, flush=True)
        return 2


if __name__ == "__main__":
    code = _main()
    sys.stdout.flush()
    os._exit(code)  # torchft's server threads do not end at interpreter exit
