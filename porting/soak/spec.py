"""What a soak run is asked to do: the spec, the fault schedule, and the bounds derived from it.

Everything here is pure (no processes, no clocks), so the schedule and the bounds can be tested
and are recorded verbatim in soak.json.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import UsageError

REPLICA_FAULTS: tuple[str, ...] = ("kill", "raise", "collective")
# faults on the simulated network (need --hosts): a host's link down for ``link_fault_s`` then up;
# its link rate-limited for ``link_fault_s``; the Lighthouse host's link down; every replica of a
# host SIGKILLed at once with its link down for ``link_fault_s`` (the host is lost, then returns)
HOST_FAULTS: tuple[str, ...] = ("partition", "slow", "lighthouse_partition", "host_loss")
FAULT_KINDS: tuple[str, ...] = REPLICA_FAULTS + HOST_FAULTS
SPEC_SCHEMA = 1


@dataclass(frozen=True)
class Fault:
    id: int
    at_s: float  # seconds after the schedule origin (all replicas trained their first step)
    kind: str  # one of FAULT_KINDS
    replica: int  # preferred target; the driver moves on to the next healthy replica if it is down

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Fault:
        return cls(int(data["id"]), float(data["at_s"]), str(data["kind"]), int(data["replica"]))


@dataclass
class SoakSpec:
    replicas: int = 4
    duration_s: float = 120.0
    fault_every_s: float = 20.0
    quorum_every: int = 5
    faults: list[str] = field(default_factory=lambda: list(REPLICA_FAULTS))
    step_period_s: float = 0.1
    timeout_s: float = 10.0  # collectives / should_commit / checkpoint fetch inside torchft
    startup_budget_s: float = 90.0  # time allowed for all replicas to train their first step
    seed: int = 0
    warm_spare: bool = True  # restart onto a pre-started proc (imports done) instead of a cold one
    hosts: int = 0  # 0: every replica in one namespace on loopback; N: N simulated hosts (hosts.py)
    replicas_per_host: int = 1
    link_fault_s: float = 5.0  # how long a partition / slow link / lost host lasts before it heals
    slow_rate_kbit: int = 2000  # the slow link's rate each way
    schema: int = SPEC_SCHEMA

    def validate(self) -> SoakSpec:
        if self.replicas < 2:
            raise UsageError("--replicas: need at least 2 replica groups (one fails, one survives), "
                             f"got {self.replicas}")
        if self.replicas > 16:
            raise UsageError(f"--replicas: at most 16 replica groups on one machine, got {self.replicas}")
        if self.fault_every_s < 5:
            raise UsageError("--fault-every: must be at least 5 seconds (time to restart and heal), "
                             f"got {self.fault_every_s:g}")
        if self.duration_s < 2 * self.fault_every_s:
            raise UsageError(f"--duration: must be at least twice --fault-every ({2 * self.fault_every_s:g} s) "
                             f"so that one fault has its full recovery window, got {self.duration_s:g}")
        if self.duration_s > 24 * 3600:
            raise UsageError(f"--duration: at most 86400 seconds, got {self.duration_s:g}")
        if not 0 < self.step_period_s <= 5:
            raise UsageError(f"--step-period: must be in (0, 5] seconds, got {self.step_period_s:g}")
        if self.timeout_s < 1:
            raise UsageError(f"--timeout: must be at least 1 second, got {self.timeout_s:g}")
        if self.quorum_every < 1:
            raise UsageError(f"--quorum-every: must be a positive number of steps, got {self.quorum_every}")
        if not self.faults:
            raise UsageError("--faults: name at least one fault kind (kill, raise, collective)")
        bad = [k for k in self.faults if k not in FAULT_KINDS]
        if bad:
            raise UsageError(f"--faults: unknown fault kind {bad[0]!r} (known: {', '.join(FAULT_KINDS)})")
        return self._validate_hosts()

    def _validate_hosts(self) -> SoakSpec:
        net = [k for k in self.faults if k in HOST_FAULTS]
        if not self.hosts:
            if net:
                raise UsageError(f"--faults: {net[0]} is a network fault; it needs --hosts N (simulated hosts)")
            return self
        if not 2 <= self.hosts <= 8:
            raise UsageError(f"--hosts: between 2 and 8 simulated hosts (a partitioned one and a live one), "
                             f"got {self.hosts}")
        if self.replicas_per_host < 1:
            raise UsageError(f"--replicas-per-host: must be at least 1, got {self.replicas_per_host}")
        if self.replicas != self.hosts * self.replicas_per_host:
            raise UsageError(f"--replicas: {self.replicas} is not --hosts x --replicas-per-host "
                             f"({self.hosts} x {self.replicas_per_host})")
        if not 1 <= self.link_fault_s <= self.fault_every_s / 2:
            raise UsageError(f"--link-fault: between 1 s and half of --fault-every ({self.fault_every_s / 2:g} s), "
                             f"got {self.link_fault_s:g}")
        if self.slow_rate_kbit < 64:
            raise UsageError(f"--slow-rate: at least 64 kbit/s, got {self.slow_rate_kbit}")
        return self

    @property
    def min_replicas(self) -> int:
        """Quorum size: a lone restarted replica must never form a quorum by itself."""
        return 2 if self.replicas >= 3 else 1

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SoakSpec:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known}).validate()


def make_schedule(spec: SoakSpec) -> list[Fault]:
    """One fault every ``fault_every_s``, kinds and targets in rotation.

    The last fault is at least ``fault_every_s`` before the end, so that every fault has its whole
    recovery window (the downtime bound) inside the run.
    """
    faults: list[Fault] = []
    k = 1
    while k * spec.fault_every_s <= spec.duration_s - spec.fault_every_s + 1e-9:
        i = k - 1
        faults.append(Fault(id=i, at_s=k * spec.fault_every_s, kind=spec.faults[i % len(spec.faults)],
                            replica=(i + 1) % spec.replicas))
        k += 1
    return faults


def join_timeout_s(spec: SoakSpec) -> float:
    """Lighthouse join timeout: longer than the survivors need to reach their next quorum step
    (``quorum_every`` steps), so a restarted replica waits for them instead of forming a quorum
    alone; at least 2 s."""
    return max(2.0, 4.0 * spec.quorum_every * spec.step_period_s)


def heartbeat_timeout_s(spec: SoakSpec) -> float:
    return 1.5


def rejoin_bound_s(spec: SoakSpec) -> float:
    """Longest a partitioned (or lost) host's replicas may take, from the moment its link is back,
    to commit again: reconnect to the Lighthouse (one heartbeat timeout), wait for the next quorum
    (the join timeout), fetch a checkpoint from a live peer (the transfer timeout), and one step."""
    return heartbeat_timeout_s(spec) + join_timeout_s(spec) + spec.timeout_s + spec.step_period_s


def downtime_bound_s(spec: SoakSpec) -> float:
    """No replica may be down longer than the fault interval: a replica still down when the next
    fault strikes would let faults overlap, which the schedule promises never happens."""
    return spec.fault_every_s


def recovery_bound_s(spec: SoakSpec) -> float:
    """Longest a victim may take, by the soak's own time-outs, from the fault to committing again:
    seen (the detect bound), then back in a quorum healed from a peer (the rejoin bound). The
    restart itself is not in it: it is what the rest of the fault interval (the downtime bound)
    leaves room for, the margin in which the warm spare must have finished warming up."""
    return detect_bound_s(spec) + rejoin_bound_s(spec)


def hold_bound_s(spec: SoakSpec) -> float:
    """Longest a failed peer may hold the survivors up: a broken allreduce ends at the collective
    timeout, a dead member leaves the quorum after the Lighthouse heartbeat timeout, and a new
    quorum waits at most the join timeout for stragglers."""
    return spec.timeout_s + heartbeat_timeout_s(spec) + join_timeout_s(spec)


def detect_bound_s(spec: SoakSpec) -> float:
    """A fault must be seen (by supervision or by the survivors' quorum) within the collective
    timeout plus the lighthouse heartbeat timeout; beyond that, torchft would have given up anyway."""
    return spec.timeout_s + heartbeat_timeout_s(spec)
