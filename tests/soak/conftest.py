"""Builders of soak logs in the exact formats the trainer, supervisor and driver write, so the
analysis can be tested on a known history (one replica killed and healed from a peer)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from porting.soak.procs import pid_alive
from porting.soak.spec import SoakSpec

T0 = 1_000_000.0


def history(*, replicas: int = 3, steps: int = 100, period: float = 0.1, fault_at: int = 40, back_at: int = 70,
            target: int = 1, source: int = 0, loss0: float = 100.0, decay: float = 0.97,
            heal_checksum_ok: bool = True, survivors_stall: bool = False) -> dict[str, Any]:
    """Raw records: ``target`` is killed after committing step ``fault_at - 1`` and commits again
    from step ``back_at``, healed from ``source``."""
    events: list[dict[str, Any]] = []
    for s in range(steps):
        t = T0 + s * period
        for r in range(replicas):
            down = r == target and fault_at <= s < back_at
            if down or (survivors_stall and r != target and fault_at <= s < back_at):
                continue
            gen = 1 if (r == target and s >= back_at) else 0
            events.append({"event": "step", "t": t + 0.001 * r, "replica": r, "gen": gen, "pid": 100 + r + 10 * gen,
                           "step": s, "loss": loss0 * decay ** s + r * 0.01, "committed": True, "quorum_id": 1,
                           "participants": replicas - 1 if fault_at <= s < back_at else replicas,
                           "checksum": f"w{s}"})
    t_heal = T0 + back_at * period - 0.05
    events.append({"event": "heal", "t": t_heal, "replica": target, "gen": 1, "pid": 100 + target + 10,
                   "source_replica": source, "source_gen": 0, "source_pid": 100 + source,
                   "source_checksum": "abc", "checksum": "abc" if heal_checksum_ok else "abd",
                   "transport": {"src_rank": 0, "url": f"http://127.0.0.1:4000/checkpoint/{back_at}",
                                 "step": back_at}})
    t_fault = T0 + fault_at * period - 0.05
    supervisor = [
        {"t": T0 - 5, "event": "launch", "replica": r, "gen": 0, "pid": 100 + r} for r in range(replicas)
    ] + [
        {"t": t_fault + 0.3, "event": "failure", "replica": target, "gen": 0, "via": "monarch-supervise",
         "report": "Killed(sig=9)", "detected": t_fault + 0.3},
        {"t": t_fault + 1.0, "event": "launch", "replica": target, "gen": 1, "pid": 100 + target + 10},
    ]
    run = {"schema": 1, "origin": T0, "end": T0 + steps * period,
           "injections": [{"id": 0, "at_s": fault_at * period, "kind": "kill", "replica": target, "target": target,
                           "gen": 0, "pid": 100 + target, "t": t_fault}],
           "listener_snapshots": [{"t": T0, "listeners": ["*:4000", "127.0.0.1:4001"]}],
           "network": {"netns": "net:[1]", "links": ["lo"], "addresses": ["127.0.0.1/8", "::1/128"]},
           "reaped": {"launched": [100, 101, 102, 111], "stragglers_killed": []},
           "unhandled_faults": [], "errors": []}
    spec = SoakSpec(replicas=replicas, duration_s=steps * period, fault_every_s=5.0, timeout_s=1.0).to_json()
    return {"spec": spec, "run": run, "supervisor": supervisor, "events": events}


def write_history(out: Path, raw: dict[str, Any]) -> None:
    (out / "steps").mkdir(parents=True)
    (out / "spec.json").write_text(json.dumps(raw["spec"]))
    (out / "run.json").write_text(json.dumps(raw["run"]))
    (out / "supervisor.jsonl").write_text("".join(json.dumps(e) + "\n" for e in raw["supervisor"]))
    for r in range(raw["spec"]["replicas"]):
        lines = [json.dumps(e) for e in raw["events"] if e["replica"] == r]
        (out / "steps" / f"r{r}.jsonl").write_text("\n".join(lines) + "\n")


@pytest.fixture
def make_history():
    return history


@pytest.fixture
def write_logs():
    return write_history


@pytest.fixture
def alive() -> Callable[[int], bool]:
    """Whether a pid exists and is not a zombie: the soak's own check (porting.soak.procs.pid_alive,
    itself tested against a real exited child in test_trainer_parts), not a copy of it."""
    return pid_alive
