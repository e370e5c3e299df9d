"""The soak driver: runs inside the network namespace that ``porting.soak.launch`` creates.

It brings ``lo`` up (with ``--hosts``: creates the simulated hosts, hosts.py), starts the torchft
Lighthouse on 127.0.0.1 (or on its own host), spawns the Monarch supervisor
(which spawns one replica group per proc), injects the scheduled faults, snapshots the listening
sockets, stops everything, checks every process it started is gone, and writes ``run.json``.
Every wait is bounded by the spec's times; nothing here analyses the results (see metrics.py).

Run as ``python -m porting.soak.driver OUT_DIR`` (reads ``OUT_DIR/spec.json``).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from ..atomic import write_json
from ..errors import InputError
from .hosts import LIGHTHOUSE_HOST, Layout, Network, enter
from .metrics import read_jsonl
from .procs import same_process_alive
from .spec import HOST_FAULTS, SoakSpec, heartbeat_timeout_s, join_timeout_s, make_schedule
from .trainer import control_path, deadline_path, steps_path

RUN_SCHEMA = 1


def _sh(argv: list[str]) -> str:
    """stdout of a short command, "" if it cannot run (the invariants then rely on other facts)."""
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def network_facts() -> dict[str, Any]:
    """Interfaces and addresses visible to the soak's processes."""
    links = [line.split(":")[1].strip().split("@")[0] for line in _sh(["ip", "-o", "link", "show"]).splitlines()
             if ":" in line]
    addrs = [line.split()[3] for line in _sh(["ip", "-o", "addr", "show"]).splitlines() if len(line.split()) > 3]
    return {"netns": os.readlink("/proc/self/ns/net"), "links": links, "addresses": addrs}


def listeners() -> list[str]:
    """Local addresses of every listening TCP socket in this namespace (``ss -ltnH``)."""
    out = _sh(["ss", "-ltnH"])
    return sorted({line.split()[3] for line in out.splitlines() if len(line.split()) >= 4})


def last_record(path: Path) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 4096))
            lines = fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def _healthy(out: Path, replica: int, gen: int, now: float, within: float) -> bool:
    rec = last_record(steps_path(out, replica))
    return bool(rec and rec.get("gen") == gen and rec.get("event") == "step" and rec.get("committed")
                and now - float(rec["t"]) <= within)


def _sleep_until(t: float, supervisor: Any = None) -> None:
    """Sleep until ``t``; meanwhile ask the supervisor every 0.5 s to run its fallback watch."""
    while t - time.time() > 0:
        if supervisor is not None:
            supervisor.watch.call_one().get(timeout=60)
        time.sleep(min(max(0.0, t - time.time()), 0.5))


def drive(out: Path) -> dict[str, Any]:
    spec = SoakSpec.from_json(json.loads((out / "spec.json").read_text(encoding="utf-8")))
    schedule = make_schedule(spec)
    run: dict[str, Any] = {"schema": RUN_SCHEMA, "driver_pid": os.getpid(), "injections": [],
                           "listener_snapshots": [], "unhandled_faults": [], "errors": []}
    if os.environ.get("PORT_SOAK_NETNS") == "1":
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True, timeout=10)
    network = Network(Layout(spec.hosts, spec.replicas_per_host)) if spec.hosts else None

    import monarch.actor

    def _unhandled(failure: Any) -> None:  # record, never KeyboardInterrupt the driver
        run["unhandled_faults"].append({"t": time.time(), "report": str(failure)[:600]})

    monarch.actor.unhandled_fault_hook = _unhandled
    lighthouse = None
    driver = _Driver(out, spec, run, network)
    try:
        if network is not None:
            network.up()
            run["hosts"] = network.facts()
        run["network"] = network_facts()
        lighthouse, run["lighthouse"] = start_lighthouse(spec, network)
        driver.launch()
        driver.wait_for_origin()
        for fault in schedule:
            driver.inject(fault)
        driver.wait_for_stop()
    except Exception as exc:  # reported, then everything is still stopped and reaped
        run["errors"].append(f"{type(exc).__name__}: {exc}"[:600])
    finally:
        driver.stop()
        if lighthouse is not None:
            lighthouse.shutdown()
        if network is not None:
            run["hosts_left"] = network.close()
    run["finished"] = time.time()
    run["reaped"] = _reap(out)
    return run


def start_lighthouse(spec: SoakSpec, network: Network | None) -> tuple[Any, str]:
    """The torchft Lighthouse on 127.0.0.1, or on the Lighthouse's own simulated host (created
    from a thread that entered that host's namespace: its server threads stay there); with the
    URL the replicas dial (the Lighthouse itself advertises the machine's hostname)."""
    from torchft.coordination import LighthouseServer

    options = {"min_replicas": spec.min_replicas, "join_timeout_ms": int(join_timeout_s(spec) * 1000),
               "quorum_tick_ms": 50, "heartbeat_timeout_ms": int(heartbeat_timeout_s(spec) * 1000)}
    host = "127.0.0.1" if network is None else Layout.address(LIGHTHOUSE_HOST)
    made: dict[str, Any] = {}

    def _start() -> None:
        try:
            if network is not None:
                enter(network.netns(LIGHTHOUSE_HOST))
            made["server"] = LighthouseServer(bind=f"{host}:0", **options)
        except Exception as exc:  # handed to the caller's thread
            made["error"] = exc

    if network is None:
        _start()
    else:
        starter = threading.Thread(target=_start, name="lighthouse-host")
        starter.start()
        starter.join()
    if "error" in made:
        raise made["error"]
    return made["server"], f"http://{host}:" + made["server"].address().rsplit(":", 1)[1]


class _Driver:
    """The replicas under a Monarch supervisor, and the faults injected into them; every step
    appends what it saw to ``run``."""

    def __init__(self, out: Path, spec: SoakSpec, run: dict[str, Any], network: Network | None) -> None:
        self.out, self.spec, self.run, self.network = out, spec, run, network
        self.supervisor: Any = None
        self.launched = time.time()
        self.origin = self.end = 0.0

    def launch(self) -> None:
        from monarch.actor import this_proc

        from .actors import SupervisorActor

        spec = self.spec
        base = {"lighthouse": self.run["lighthouse"], "out_dir": str(self.out),
                "deadline": self.launched + spec.startup_budget_s + spec.duration_s,
                "quorum_every": spec.quorum_every, "step_period": spec.step_period_s,
                "min_replicas": spec.min_replicas, "timeout_s": spec.timeout_s,
                "quorum_timeout_s": spec.startup_budget_s, "seed": spec.seed}
        if self.network is not None:
            net, layout = self.network, self.network.layout
            base["placement"] = {str(r): {"netns": net.netns(layout.host_of(r)), "address": layout.address(
                layout.host_of(r))} for r in range(spec.replicas)}
        self.supervisor = this_proc().spawn("supervisor", SupervisorActor, base, spec.replicas,
                                            min_restart_s=3.0, warm_spare=spec.warm_spare)
        self.supervisor.start.call_one().get(timeout=spec.startup_budget_s)

    def _pids(self) -> Any:
        return self.supervisor.pids.call_one().get(timeout=30)

    def wait_for_origin(self) -> None:
        """The schedule's origin: the moment every replica has committed a step."""
        spec = self.spec
        while time.time() < self.launched + spec.startup_budget_s:
            pids = self._pids()
            now = time.time()
            if all(_healthy(self.out, r, pids[r][0], now, 5.0) for r in range(spec.replicas)):
                self.origin, self.end = now, now + spec.duration_s
                break
            time.sleep(0.2)
        else:
            raise RuntimeError(f"not every replica trained a step within {spec.startup_budget_s:g} s of launch")
        deadline_path(self.out).parent.mkdir(parents=True, exist_ok=True)
        deadline_path(self.out).write_text(f"{self.end:.6f}", encoding="utf-8")
        self.run.update(origin=self.origin, end=self.end, startup_s=round(self.origin - self.launched, 3))
        self.snapshot()

    def snapshot(self) -> None:
        snap: dict[str, Any] = {"t": time.time(), "listeners": listeners()}
        if self.network is not None:
            snap["hosts"] = self.network.listeners()
        self.run["listener_snapshots"].append(snap)

    def _target(self, fault: Any) -> tuple[int, Any] | None:
        """A replica that is up and committing, starting with the scheduled one; (replica, pids)."""
        spec = self.spec
        order = [(fault.replica + j) % spec.replicas for j in range(spec.replicas)]
        give_up = time.time() + spec.fault_every_s / 2
        while time.time() < give_up:
            pids = self._pids()
            now = time.time()
            target = next((r for r in order if _healthy(self.out, r, pids[r][0], now,
                                                        1.0 + 2 * spec.step_period_s)), None)
            if target is not None:
                return target, pids
            time.sleep(0.1)
        return None

    def inject(self, fault: Any) -> None:
        spec = self.spec
        _sleep_until(self.origin + fault.at_s, self.supervisor)
        found = self._target(fault)
        if found is None:
            self.run["injections"].append({**fault.to_json(), "t": time.time(),
                                           "skipped": f"no replica committing for {spec.fault_every_s / 2:g} s"})
            return
        target, pids = found
        if fault.kind in HOST_FAULTS:
            self.inject_on_host(fault, target, pids)
            return
        gen, pid = pids[target]
        injected = time.time()
        if fault.kind == "kill":
            self._kill(target, gen, pid)
        else:
            path = control_path(self.out, target, gen)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(fault.kind, encoding="utf-8")
        self.run["injections"].append({**fault.to_json(), "target": target, "gen": gen, "pid": pid,
                                       "t": injected, "delayed_s": round(injected - self.origin - fault.at_s, 3)})
        _sleep_until(time.time() + min(2.0, spec.fault_every_s / 4), self.supervisor)
        self.snapshot()

    def _kill(self, target: int, gen: int, pid: int) -> None:
        _kill_launched(self.out, pid)

    def inject_on_host(self, fault: Any, target: int, pids: Any) -> None:
        """A network fault on the host of ``target`` (or on the Lighthouse's host), held for
        ``link_fault_s`` and then healed; the record names every replica on the host (victims)."""
        assert self.network is not None
        net, layout, spec = self.network, self.network.layout, self.spec
        host = LIGHTHOUSE_HOST if fault.kind == "lighthouse_partition" else layout.host_of(target)
        victims = layout.replicas_on(host)
        record: dict[str, Any] = {**fault.to_json(), "target": target, "host": host, "victims": victims,
                                  "gens": {str(r): pids[r][0] for r in victims},
                                  "pids": {str(r): pids[r][1] for r in victims}}
        injected = time.time()
        if fault.kind == "slow":
            net.slow(host, spec.slow_rate_kbit, queue_ms=200)
        else:
            net.partition(host)
        if fault.kind == "host_loss":
            for r in victims:
                _kill_launched(self.out, pids[r][1])  # one already gone is recorded by supervision
        record.update(t=injected, delayed_s=round(injected - self.origin - fault.at_s, 3))
        _sleep_until(injected + spec.link_fault_s, self.supervisor)
        if fault.kind == "slow":
            record["link"] = net.unslow(host)
        else:
            net.heal(host)
        record["healed"] = time.time()
        self.run["injections"].append(record)
        _sleep_until(time.time() + min(2.0, spec.fault_every_s / 4), self.supervisor)
        self.snapshot()

    def wait_for_stop(self) -> None:
        """After the end: let every loop notice the deadline (at most one step plus one torchft
        timeout)."""
        spec = self.spec
        _sleep_until(self.end, self.supervisor)
        stop_by = time.time() + 2 * spec.timeout_s + spec.step_period_s
        while time.time() < stop_by:
            recs = [last_record(steps_path(self.out, r)) for r in range(spec.replicas)]
            if all(rec and rec.get("event") == "stop" for rec in recs):
                break
            time.sleep(0.2)
        self.snapshot()

    def stop(self) -> None:
        if self.supervisor is None:
            return
        try:
            self.run["stopped_meshes"] = self.supervisor.stop_all.call_one().get(timeout=120)
        except Exception as exc:
            self.run["errors"].append(f"stopping replicas: {type(exc).__name__}: {exc}"[:600])


def _launched(out: Path) -> list[tuple[int, int | None]]:
    """(pid, start ticks) of every replica process the supervisor launched, in launch order."""
    try:
        records = read_jsonl(out / "supervisor.jsonl")
    except InputError:
        records = []
    return [(int(rec["pid"]), rec.get("start")) for rec in records if rec.get("event") in ("launch", "spare")]


def _kill_launched(out: Path, pid: int) -> None:
    """SIGKILL the replica process launched as ``pid``, only while that very process lives
    (porting.soak.procs: a pid whose process has exited may be anyone's by now)."""
    start = next((s for p, s in reversed(_launched(out)) if p == pid), None)
    if same_process_alive(pid, start):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _reap(out: Path) -> dict[str, Any]:
    """Every replica process launched must be gone; SIGKILL stragglers (bounded) and report them."""
    launched = _launched(out)
    pids = [p for p, _ in launched]
    give_up = time.time() + 15
    while any(same_process_alive(p, s) for p, s in launched) and time.time() < give_up:
        time.sleep(0.2)
    # a pid whose process has exited may belong to anything by now: only the launched process
    # itself (pid and start time) is a straggler
    stragglers = [p for p, s in launched if same_process_alive(p, s)]
    for p in stragglers:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    return {"launched": pids, "stragglers_killed": stragglers}


def _interrupt(signum: int, _frame: object) -> None:
    """SIGTERM (the soak's process group being stopped) unwinds ``drive`` like Ctrl-C, so its
    ``finally`` stops the replicas and removes the hosts; SIGKILL still leaves nothing, since the
    namespace holders die with this process (PR_SET_PDEATHSIG)."""
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    signal.signal(signal.SIGTERM, _interrupt)
    out = Path(args[0])
    run = drive(out)
    write_json(out / "run.json", run)
    return 0 if not run["errors"] else 1


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # do not wait on Monarch's runtime threads at interpreter exit
