"""Monarch actors: one ``ReplicaActor`` per replica group on its own procs, owned by a
``SupervisorActor`` whose ``__supervise__`` restarts a failed replica on fresh procs.

The supervisor writes one JSON line per supervision event and per (re)start to
``<out>/supervisor.jsonl``; the driver and the metrics read it from there.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from monarch.actor import Actor, MeshFailure, endpoint, this_host

from .procs import pid_alive, start_ticks
from .trainer import TrainerSpec, current_deadline, train, warm_up

WATCH_GRACE_S = 3.0  # a dead replica proc not reported by Monarch within this is handled by the watch


class ReplicaActor(Actor):
    """Hosts one replica group's training loop (called with ``broadcast`` so that an
    exception escaping the loop fails the actor and reaches the supervisor)."""

    @endpoint
    def pid(self) -> int:
        return os.getpid()

    @endpoint
    def warm(self) -> float:
        """Pay the start-up costs now, so that a spare proc starts training at once when needed."""
        return warm_up()

    @endpoint
    def train(self, spec: dict[str, Any]) -> dict[str, Any]:
        entered = time.time()
        spec = dict(spec)
        sent = float(spec.pop("sent", entered))
        parsed = TrainerSpec.from_json(spec)
        parsed.delivery_s = round(entered - sent, 3)
        _log_to_file(Path(parsed.out_dir) / "logs" / f"r{parsed.replica}.g{parsed.generation}.log")
        return train(parsed)


def _log_to_file(path: Path) -> None:
    """Send this proc's stdout/stderr (torchft logs every step) to a file, not through Monarch's
    log forwarding to the client."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


class SupervisorActor(Actor):
    def __init__(self, base_spec: dict[str, Any], replicas: int, min_restart_s: float,
                 warm_spare: bool = True) -> None:
        self._base = dict(base_spec)
        self._warm_spare = warm_spare
        self._spare: tuple[Any, Any, str, int] | None = None  # procs, actor, mesh name, pid
        self._spares_made = 0
        self._replicas = replicas
        self._min_restart_s = min_restart_s
        self._log_path = Path(self._base["out_dir"]) / "supervisor.jsonl"
        self._log_path.parent.mkdir(parents=True, exist_ok=True)
        self._procs: dict[int, Any] = {}
        self._meshes: dict[int, str] = {}  # replica -> actor mesh name prefix of its current generation
        self._gen: dict[int, int] = {}
        self._pid: dict[int, int] = {}
        self._retired: list[Any] = []
        self._stopping = False
        self._dead_since: dict[int, float] = {}

    def _log(self, record: dict[str, Any]) -> None:
        with open(self._log_path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"t": time.time(), **record}) + "\n")

    def _spawn(self, name: str) -> tuple[Any, Any, int]:
        procs = this_host().spawn_procs(per_host={"procs": 1})
        actor = procs.spawn(name, ReplicaActor)
        return procs, actor, int(actor.pid.call_one().get(timeout=120))

    def _make_spare(self) -> None:
        """One warm proc (imports done) waiting to replace the next failed replica."""
        if not self._warm_spare or self._stopping:
            return
        began = time.time()
        name = f"spare{self._spares_made}"
        self._spares_made += 1
        procs, actor, pid = self._spawn(name)
        actor.warm.broadcast()
        self._spare = (procs, actor, name, pid)
        self._log({"event": "spare", "pid": pid, "start": start_ticks(pid), "mesh": name,
                   "spawn_s": round(time.time() - began, 3)})

    def _launch(self, replica: int, generation: int) -> None:
        began = time.time()
        spare, self._spare = self._spare, None
        if spare is not None and pid_alive(spare[3]):
            procs, actor, name, pid = spare
        else:
            if spare is not None:
                self._retired.append(spare[0])
            spare = None
            name = f"replica{replica}g{generation}"
            procs, actor, pid = self._spawn(name)
        self._procs[replica], self._meshes[replica] = procs, name
        self._gen[replica], self._pid[replica] = generation, pid
        base = {k: v for k, v in self._base.items() if k != "placement"}
        # with simulated hosts: the replica's host namespace and address (the same on a restart)
        where = self._base.get("placement", {}).get(str(replica), {})
        spec = {**base, **where, "replica": replica, "generation": generation, "sent": time.time()}
        actor.train.broadcast(spec)
        self._log({"event": "launch", "replica": replica, "gen": generation, "pid": pid, "start": start_ticks(pid),
                   "mesh": name,
                   "warm_spare": spare is not None, "spawn_s": round(time.time() - began, 3)})

    @endpoint
    def start(self) -> dict[int, int]:
        for replica in range(self._replicas):
            self._launch(replica, 0)
        self._make_spare()
        return dict(self._pid)

    @endpoint
    def pids(self) -> dict[int, list[int]]:
        """replica -> [generation, pid] of the current generation."""
        return {r: [self._gen[r], self._pid[r]] for r in self._pid}

    @endpoint
    def stop_all(self) -> int:
        self._stopping = True
        self._meshes.clear()
        stopped = 0
        pending = []
        spare = [self._spare[0]] if self._spare is not None else []
        self._spare = None
        for procs in list(self._procs.values()) + self._retired + spare:  # stop them all at once, then wait
            try:
                pending.append(procs.stop("soak finished"))
            except Exception as exc:
                self._log({"event": "stop_error", "error": repr(exc)[:300]})
        for fut in pending:
            try:
                fut.get(timeout=30)
                stopped += 1
            except Exception as exc:  # already dead procs may refuse; record and go on
                self._log({"event": "stop_error", "error": repr(exc)[:300]})
        self._procs.clear()
        self._retired.clear()
        return stopped

    @endpoint
    def watch(self) -> int:
        """Fallback for a lost supervision event: a current replica whose process is gone is handled
        as a failure (recorded with ``via: "pid-watch"``). Returns the number found."""
        found, now = 0, time.time()
        for replica, pid in list(self._pid.items()):
            if self._stopping or replica not in self._meshes or pid_alive(pid):
                continue
            first = self._dead_since.setdefault(pid, now)
            if now - first >= WATCH_GRACE_S:  # Monarch's own supervision had its chance
                found += 1
                self._handle(replica, "pid-watch", f"process {pid} of replica {replica} gone for "
                             f"{now - first:.2f} s without a supervision event", now)
        return found

    def __supervise__(self, failure: MeshFailure) -> bool:
        detected = time.time()
        name = str(failure.mesh_name)
        replica = next((r for r, prefix in self._meshes.items()
                        if name == prefix or name.startswith(prefix + "-")), None)
        if replica is None or self._stopping:
            self._log({"event": "failure_ignored", "mesh": name, "report": str(failure)[:300],
                       "detected": detected})
            return True  # a helper mesh of a proc already handled (e.g. its logger), or shutting down
        self._handle(replica, "monarch-supervise", str(failure)[:600], detected)
        return True

    def _handle(self, replica: int, via: str, report: str, detected: float) -> None:
        self._log({"event": "failure", "replica": replica, "gen": self._gen[replica], "via": via,
                   "report": report, "detected": detected})
        old = self._procs.pop(replica)
        self._meshes.pop(replica)
        stopping = None
        try:
            stopping = old.stop("replica failed; restarting")  # closes its connections; wait below
        except Exception as exc:
            self._log({"event": "stop_error", "replica": replica, "error": repr(exc)[:300]})
        left = current_deadline(self._base["out_dir"], float(self._base["deadline"])) - time.time()
        if left >= self._min_restart_s:
            self._launch(replica, self._gen[replica] + 1)
        else:
            self._log({"event": "no_restart", "replica": replica, "left_s": round(left, 3)})
        try:
            if stopping is not None:
                stopping.get(timeout=30)
        except Exception as exc:
            self._retired.append(old)
            self._log({"event": "stop_error", "replica": replica, "error": repr(exc)[:300]})
        if left >= self._min_restart_s:
            self._make_spare()
