"""One torchft replica group (world size 1) training a small MLP on synthetic data.

The loop is bounded by a wall-clock deadline and writes one JSON line per step (and one per
heal) to ``<out>/steps/r<replica>.jsonl``, flushed at once so a SIGKILL loses nothing written.
Gradients are averaged with ``manager.allreduce`` on one flattened tensor: torchft 0.2.0's
``ft.DistributedDataParallel`` kills the survivors when a peer dies mid-allreduce
(``assert fut._fut`` in torchft/ddp.py), a plain managed allreduce survives it.

Faults that happen inside the replica (an exception in the train step, a collective whose
connections are closed mid-allreduce) are requested by the driver through a control file
``<out>/ctl/r<replica>.g<generation>.fault`` that the loop polls once per step.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

INPUT_DIM = 16
HIDDEN = 64
BATCH = 64


class InjectedFault(RuntimeError):
    """Raised inside a train step when the schedule asks for it."""


@dataclass
class TrainerSpec:
    replica: int
    generation: int
    lighthouse: str
    out_dir: str
    deadline: float  # time.time() after which the loop stops by itself
    quorum_every: int
    step_period: float  # seconds per step (pacing, so N replicas fit on a few cores)
    min_replicas: int
    timeout_s: float  # collectives, should_commit, checkpoint transfer
    quorum_timeout_s: float
    seed: int = 0
    lr: float = 3e-3
    delivery_s: float | None = None  # how long the train message took to reach this proc (measured)
    netns: str = ""  # the simulated host's network namespace to train in ("" = the proc's own)
    address: str = "127.0.0.1"  # the address this replica's servers advertise (its host's)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainerSpec:
        return cls(**data)


def control_path(out_dir: str | os.PathLike[str], replica: int, generation: int) -> Path:
    return Path(out_dir) / "ctl" / f"r{replica}.g{generation}.fault"


def deadline_path(out_dir: str | os.PathLike[str]) -> Path:
    return Path(out_dir) / "ctl" / "deadline"


def current_deadline(out_dir: str | os.PathLike[str], cap: float) -> float:
    """The run's end: the driver writes it once the schedule starts; ``cap`` bounds it anyway."""
    try:
        return min(cap, float(deadline_path(out_dir).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return cap


def steps_path(out_dir: str | os.PathLike[str], replica: int) -> Path:
    return Path(out_dir) / "steps" / f"r{replica}.jsonl"


def build_model(seed: int) -> Any:
    import torch

    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(INPUT_DIM, HIDDEN), torch.nn.Tanh(),
        torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.Tanh(),
        torch.nn.Linear(HIDDEN, 1),
    )


def teacher_batch(step: int, replica: int, seed: int) -> tuple[Any, Any]:
    """Synthetic data with a learnable target: y = teacher(x) + small noise, x ~ N(0, 1)."""
    import torch

    gen = torch.Generator().manual_seed(10_007 * seed + 7)
    w1 = torch.randn(INPUT_DIM, 32, generator=gen) / INPUT_DIM ** 0.5
    w2 = torch.randn(32, 1, generator=gen) * 3.0
    gen.manual_seed(1_000_003 * (step + 1) + 97 * replica + seed)
    x = torch.randn(BATCH, INPUT_DIM, generator=gen)
    y = torch.sin(x @ w1) @ w2 + 2.0 + 0.05 * torch.randn(BATCH, 1, generator=gen)
    return x, y


def weights_checksum(model: Any) -> str:
    digest = hashlib.sha256()
    for tensor in model.state_dict().values():
        digest.update(tensor.detach().contiguous().numpy().tobytes())
    return digest.hexdigest()[:16]


def socket_inodes() -> set[str]:
    """Inodes of the sockets this process holds now (``socket:[N]`` links in /proc/self/fd)."""
    found = set()
    for name in os.listdir("/proc/self/fd"):
        try:
            link = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if link.startswith("socket:"):
            found.add(link)
    return found


def close_tcp_connections(keep: set[str]) -> int:
    """Shut down the connected TCP sockets opened since ``keep`` was taken (gloo pairs, store and
    manager clients; not Monarch's own channels, not listeners): the peers see the connection
    closed in the middle of the collective."""
    count = 0
    for name in os.listdir("/proc/self/fd"):
        try:
            fd = int(name)
            if os.readlink(f"/proc/self/fd/{fd}") in keep:
                continue
            sock = socket.socket(fileno=fd)
        except (OSError, ValueError):
            continue
        try:
            if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
                sock.getpeername()  # raises for listeners
                sock.shutdown(socket.SHUT_RDWR)
                count += 1
        except OSError:
            pass
        finally:
            sock.detach()
    return count


class _Log:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(path, "a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        self._fh.write(json.dumps(record) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()


def _make_transport(timeout: timedelta, on_recv: Callable[[int, str, int], None], host: str) -> Any:
    from torchft.checkpointing import HTTPTransport

    class HostHTTPTransport(HTTPTransport):
        """HTTPTransport that advertises ``host`` (127.0.0.1, or the simulated host's address; not
        the machine's hostname) and reports each fetch."""

        def address(self) -> str:
            port = self._server.socket.getsockname()[1]
            return f"http://{host}:{port}/checkpoint/"

        def recv_checkpoint(self, src_rank: int, metadata: str, step: int, timeout: timedelta) -> Any:
            on_recv(src_rank, metadata, step)
            return super().recv_checkpoint(src_rank, metadata, step, timeout)

    return HostHTTPTransport(timeout=timeout, num_chunks=0)


def warm_up() -> float:
    """Do once what a replica's first step pays for (imports, and the optimizer's lazy import of
    torch._dynamo, seconds each): a spare proc calls this long before it is needed."""
    began = time.time()
    import torch
    import torchft  # noqa: F401
    from torch.distributed import TCPStore  # noqa: F401

    model = build_model(0)
    optim = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = teacher_batch(0, 0, 0)
    torch.nn.functional.mse_loss(model(x), y).backward()
    optim.step()
    weights_checksum(model)
    return time.time() - began


def train(spec: TrainerSpec) -> dict[str, Any]:
    """Run until ``spec.deadline``; return a summary. Raises InjectedFault when told to."""
    entered = time.time()
    import torch

    imported = time.time()
    torch.set_num_threads(1)
    if spec.netns:  # before any torchft socket or thread exists: they all live on the simulated host
        from .hosts import enter

        enter(spec.netns)
        # gloo picks its address from the hostname (loopback here) unless told which interface
        os.environ["GLOO_SOCKET_IFNAME"] = "eth0"
    replica = _Replica(spec)
    replica.log.write({"event": "start", "t": time.time(), **replica.me, "delivery_s": spec.delivery_s,
                       "entered": entered, "imported": imported})
    manager = replica.make_manager()
    replica.log.write({"event": "manager_ready", "t": time.time(), **replica.me})
    need_quorum, iterations, committed = True, 0, 0
    try:
        while (began := time.time()) < current_deadline(spec.out_dir, spec.deadline):
            ok = replica.step(manager, need_quorum)
            committed += int(ok)
            need_quorum = not ok
            iterations += 1
            rest = spec.step_period - (time.time() - began)
            if rest > 0:
                time.sleep(rest)
        replica.log.write({"event": "stop", "t": time.time(), **replica.me, "step": manager.current_step()})
    finally:
        replica.log.close()
        manager.shutdown(wait=False)
    return {**replica.me, "iterations": iterations, "committed": committed, "step": manager.current_step()}


class _Replica:
    """One replica group's model, optimizer and step log, and what torchft calls back into."""

    def __init__(self, spec: TrainerSpec) -> None:
        import torch

        self.spec = spec
        self.preexisting = socket_inodes()  # the host runtime's (Monarch's) sockets: never closed by a fault
        self.log = _Log(steps_path(spec.out_dir, spec.replica))
        self.ctl = control_path(spec.out_dir, spec.replica, spec.generation)
        self.model = build_model(spec.seed + 1000 * spec.replica + spec.generation)  # healing must overwrite
        self.optim = torch.optim.Adam(self.model.parameters(), lr=spec.lr)
        self.params = list(self.model.parameters())
        self.me = {"replica": spec.replica, "gen": spec.generation, "pid": os.getpid()}
        self.fetches: list[dict[str, Any]] = []

    def state_dict(self) -> dict[str, Any]:
        return {"model": self.model.state_dict(), "optim": self.optim.state_dict(),
                "source": {**{k: self.me[k] for k in ("replica", "gen", "pid")},
                           "checksum": weights_checksum(self.model)}}

    def load_state_dict(self, sd: dict[str, Any]) -> None:
        self.model.load_state_dict(sd["model"])
        self.optim.load_state_dict(sd["optim"])
        src = sd["source"]
        self.log.write({"event": "heal", "t": time.time(), **self.me, "source_replica": src["replica"],
                        "source_gen": src["gen"], "source_pid": src["pid"], "source_checksum": src["checksum"],
                        "checksum": weights_checksum(self.model),
                        "transport": self.fetches[-1] if self.fetches else None})

    def on_recv(self, src_rank: int, metadata: str, step: int) -> None:
        self.fetches.append({"src_rank": src_rank, "url": f"{metadata}{step}", "step": step})

    def make_manager(self) -> Any:
        from torch.distributed import TCPStore
        from torchft import Manager, ProcessGroupGloo

        spec = self.spec
        timeout = timedelta(seconds=spec.timeout_s)
        # kept on the replica: the store's server lives as long as this object (the manager's
        # connection to it must outlive this call)
        self.store = store = TCPStore(spec.address, 0, is_master=True, wait_for_workers=False)
        return Manager(
            pg=ProcessGroupGloo(timeout=timeout), load_state_dict=self.load_state_dict,
            state_dict=self.state_dict, min_replica_size=spec.min_replicas, use_async_quorum=False,
            timeout=timeout, quorum_timeout=timedelta(seconds=spec.quorum_timeout_s), connect_timeout=timeout,
            rank=0, world_size=1, store_addr=spec.address, store_port=store.port,
            lighthouse_addr=spec.lighthouse, replica_id=f"replica_{spec.replica}", hostname=spec.address,
            heartbeat_interval=timedelta(milliseconds=100),
            checkpoint_transport=_make_transport(timeout, self.on_recv, spec.address),
        )

    def step(self, manager: Any, need_quorum: bool) -> bool:
        """One training step through torchft; whether it committed. A scheduled fault raises."""
        import torch

        spec = self.spec
        fault = _read_fault(self.ctl)
        if need_quorum or manager.current_step() % spec.quorum_every == 0:
            manager.start_quorum()
        step = manager.current_step()
        x, y = teacher_batch(step, spec.replica, spec.seed)
        self.optim.zero_grad()
        loss = torch.nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        if fault == "raise":
            self.log.write({"event": "fault", "t": time.time(), **self.me, "kind": "raise", "step": step})
            raise InjectedFault(f"replica {spec.replica}: injected exception in train step {step}")
        flat = torch.cat([p.grad.reshape(-1) for p in self.params])
        work = manager.allreduce(flat)
        if fault == "collective":
            closed = close_tcp_connections(self.preexisting)
            self.log.write({"event": "fault", "t": time.time(), **self.me, "kind": "collective", "step": step,
                            "closed": closed})
            raise InjectedFault(f"replica {spec.replica}: closed {closed} connections mid-allreduce at step {step}")
        work.wait()
        if manager.errored() is not None:
            # Close this replica's side of the broken collective at once, so that peers blocked
            # on us fail now instead of at the collective timeout (gloo has no abort that wakes
            # a blocked peer; aborting the wrapper drops our pairs).
            _abort_pg(manager)
        offset = 0
        for p in self.params:
            n = p.numel()
            p.grad.copy_(flat[offset:offset + n].view_as(p))
            offset += n
        ok = bool(manager.should_commit())
        if ok:
            self.optim.step()
        self.log.write({"event": "step", "t": time.time(), **self.me, "step": step, "loss": loss.detach().item(),
                        "committed": ok, "quorum_id": manager._quorum_id,
                        "participants": manager.num_participants(),
                        "checksum": weights_checksum(self.model) if ok else None})
        return ok


def _abort_pg(manager: Any) -> None:
    try:
        manager._pg.abort()
    except Exception:  # an abort that fails leaves the timeout to do the job
        pass


def _read_fault(path: Path) -> str | None:
    try:
        kind = path.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return kind or None
