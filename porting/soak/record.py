"""soak.json (schema 1): the spec, the schedule and bounds, what was measured, the invariants.

Top-level keys: ``schema`` (1), ``tool``, ``scale`` ("cpu" unless an accelerator process group was
used; this implementation always runs ProcessGroupGloo on CPU), ``spec`` (SoakSpec), ``schedule``
(list of Fault), ``bounds`` {downtime_s, detect_s, hold_s, recovery_s, join_timeout_s, heartbeat_timeout_s},
``run`` {origin, end, startup_s, wall_s, lighthouse, network, listener_snapshots, reaped, errors,
unhandled_faults, hosts (with --hosts: layout and per-host namespace, links, addresses), cluster
(on Slurm/Kubernetes: scheduler, job, where each replica group ran)}, ``faults`` (per injected
fault: t, detect_s, detected_via, survivors_noticed_s, restarted_s, heal_s, rejoin_s, downtime_s,
steps_missed, heal_source, survivor_commits,
survivor_max_gap_s, window_s; a network fault instead: host, healed_s, victims (per replica:
rejoin_after_heal_s, healed_after_link_s, downtime_s, heal_source), new_quorums_while_cut_off, resumed_after_heal_s,
link), ``replicas`` (per replica: generations, commits, downtime max and
median), ``downtime`` {max_s, median_s}, ``participants`` ([t, replicas committing] per step),
``participants_range``, ``loss_curve`` ([step, global mean loss, t]), ``steps`` (every step record:
t, replica, gen, step, loss, committed, quorum_id, participants), ``steps_committed``,
``steps_lost`` (step attempts not committed), ``replica_steps_missed``, ``checksums``,
``invariants`` (name, ok, detail) and ``ok``. Times are seconds since the schedule origin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import __version__

SOAK_SCHEMA = 1


@dataclass
class SoakRecord:
    spec: dict[str, Any]
    schedule: list[dict[str, Any]]
    bounds: dict[str, float]
    run: dict[str, Any]
    result: dict[str, Any]
    invariants: list[dict[str, Any]]
    scale: str = "cpu"
    tool: str = field(default_factory=lambda: f"rocm-port {__version__}")
    schema: int = SOAK_SCHEMA

    @property
    def ok(self) -> bool:
        return bool(self.invariants) and all(i["ok"] for i in self.invariants)

    def to_json(self) -> dict[str, Any]:
        return {"schema": self.schema, "tool": self.tool, "scale": self.scale, "spec": self.spec,
                "schedule": self.schedule, "bounds": self.bounds, "run": self.run, **self.result,
                "invariants": self.invariants, "ok": self.ok}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SoakRecord:
        if data.get("schema") != SOAK_SCHEMA:
            raise ValueError(f"soak.json schema {data.get('schema')!r}, expected {SOAK_SCHEMA}")
        fixed = {"schema", "tool", "scale", "spec", "schedule", "bounds", "run", "invariants", "ok"}
        return cls(spec=data["spec"], schedule=data["schedule"], bounds=data["bounds"], run=data["run"],
                   result={k: v for k, v in data.items() if k not in fixed}, invariants=data["invariants"],
                   scale=data.get("scale", "cpu"), tool=data.get("tool", ""), schema=data["schema"])
