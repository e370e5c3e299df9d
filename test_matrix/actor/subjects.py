"""Actors and values of the actor pack (shipped to proc processes by value)."""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import os

from monarch.actor import (
    Actor,
    Port,
    concurrent_endpoint,
    context,
    current_actor_name,
    current_rank,
    current_size,
    endpoint,
)


@dataclasses.dataclass(frozen=True)
class Record:
    """A class of the client's, pickled by value (its module is registered so)."""

    name: str
    values: tuple


class Colour(enum.Enum):
    """An enum of the client's, pickled by value (cloudpickle's enum reconstruction)."""

    RED = 1
    BLUE = 2


class UnpicklableError(Exception):
    """An exception that cannot be pickled back to the caller (it holds a lock)."""

    def __init__(self, message: str) -> None:
        import threading

        super().__init__(message)
        self.lock = threading.Lock()


def refuse_to_load(message: str):
    raise ValueError(message)


class LoadsBadly:
    """Pickles fine; unpickling it raises ``ValueError(message)`` wherever it lands."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __reduce__(self):
        return refuse_to_load, (self.message,)


class Probe(Actor):
    def __init__(self) -> None:
        self.count = 0
        self.log: list[tuple[str, int]] = []

    @endpoint
    def rank(self) -> int:
        return current_rank().rank

    @endpoint
    def point(self) -> dict[str, int]:
        r = current_rank()
        return {k: r[k] for k in r}

    @endpoint
    def where(self) -> dict:
        """What the actor knows about itself inside an endpoint (context())."""
        r = current_rank()
        return {"rank": r.rank, "point": {k: r[k] for k in r}, "size": current_size(),
                "name": current_actor_name(), "actor_id": str(context().actor_instance.actor_id),
                "pid": os.getpid()}

    @endpoint
    def echo(self, value):
        return value

    @endpoint
    def echo_tensor_meta(self, t):
        return (tuple(t.shape), str(t.dtype), t.is_contiguous(), t, t.device.type)

    @endpoint
    def tensor_facts(self, t) -> dict:
        """How a tensor arrived: layout, strides, storage size, autograd state, class."""
        import torch

        strided = t.layout == torch.strided
        return {"type": type(t).__name__, "layout": repr(t.layout), "shape": tuple(t.shape),
                "stride": t.stride() if strided else None,
                "offset": t.storage_offset() if strided else None,
                "storage_bytes": t.untyped_storage().nbytes() if strided else None,
                "requires_grad": t.requires_grad, "is_leaf": t.is_leaf, "device": t.device.type, "tensor": t}

    @endpoint
    def shares_storage(self, a, b) -> bool:
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()

    @endpoint
    def apply(self, fn, value):
        return fn(value)

    @endpoint
    def bump(self) -> int:
        self.count += 1
        return self.count

    @endpoint
    def count_now(self) -> int:
        return self.count

    @endpoint
    def record(self, sender: str, seq: int) -> None:
        self.log.append((sender, seq))

    @endpoint
    def take_log(self) -> list[tuple[str, int]]:
        out, self.log = self.log, []
        return out

    @endpoint
    def pid(self) -> int:
        return os.getpid()

    @endpoint
    def parent_pid(self) -> int:
        """The pid of the process that spawned this proc (its host agent)."""
        return os.getppid()

    @endpoint
    def hold(self, seconds: float) -> int:
        """Block this actor's thread (a sync endpoint) for ``seconds``."""
        import time

        time.sleep(seconds)
        return os.getpid()

    @endpoint
    def reply_that_loads_badly(self, message: str):
        return LoadsBadly(message)

    @endpoint
    def unpicklable_reply(self):
        import threading

        return threading.Lock()

    @endpoint
    def raise_unpicklable(self, message: str) -> None:
        raise UnpicklableError(message)

    @endpoint
    def fail(self, message: str) -> None:
        raise ValueError(message)

    @endpoint
    def numbers(self, n: int):
        yield from range(n)  # a generator: Monarch endpoints return values, not generators

    @endpoint
    def produce(self, port: Port, n: int) -> int:
        for i in range(n):
            port.send((current_rank().rank, i))
        return n

    @endpoint
    def send_twice(self, port: Port) -> str:
        """Send two values through ``port``; report what the second send did."""
        port.send(1)
        try:
            port.send(2)
        except Exception as exc:  # a once-port takes one value
            return f"{type(exc).__name__}: {exc}"
        return "sent twice"

    @endpoint
    def pids_of_own_proc_mesh(self) -> list[int]:
        """Spawn a proc mesh from inside this actor, use it, stop it."""
        from monarch.actor import this_host

        procs = this_host().spawn_procs(per_host={"inner": 2})
        try:
            return list(procs.spawn("inner", Probe).pid.call().get().values())
        finally:
            procs.stop().get()

    @endpoint(explicit_response_port=True)
    def answer_by_port(self, port: Port, value: int) -> None:
        port.send(value * 10 + current_rank().rank)

    @endpoint(explicit_response_port=True)
    def fail_by_port(self, port: Port, message: str) -> None:
        port.exception(KeyError(message))

    @endpoint(explicit_response_port=True)
    def park(self, port: Port, key: str) -> None:
        """Keep the response port; ``answer_parked`` replies through it later (a deferred reply)."""
        self.parked = getattr(self, "parked", {})
        self.parked[key] = port

    @endpoint
    def answer_parked(self, key: str, value) -> int:
        self.parked.pop(key).send(value)
        return len(self.parked)

    @endpoint
    def current_point(self):
        return current_rank()

    @endpoint
    def valuemesh_facts(self, vm) -> tuple[str, list]:
        return type(vm).__name__, [({k: p[k] for k in p}, v) for p, v in vm.items()]

    @endpoint
    def fail_on_rank(self, rank: int) -> int:
        if current_rank().rank == rank:
            raise ValueError(f"rank {rank} refuses")
        return current_rank().rank

    @endpoint
    def log_through_a_handler(self, message: str) -> str:
        """Log one record through a fresh handler; return what the handler wrote."""
        import io
        import logging

        out = io.StringIO()
        handler = logging.StreamHandler(out)
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger = logging.getLogger("port_matrix_actor.handler")
        logger.setLevel(logging.INFO)
        logger.addHandler(handler)
        try:
            logger.info(message)
        finally:
            logger.removeHandler(handler)
        return out.getvalue()

    @endpoint
    def open_inbox(self):
        """Open a channel here and hand its sending port to the caller."""
        from monarch.actor import Channel

        port, self.inbox = Channel.open()
        return port

    @endpoint
    def read_inbox(self, n: int) -> list:
        return [self.inbox.recv().get() for _ in range(n)]

    def not_an_endpoint(self) -> int:
        return 7

    @endpoint
    def visibility(self, names: list[str]) -> dict:
        import torch

        return {"env": {n: os.environ.get(n) for n in names},
                "device_count": torch.cuda.device_count() if torch.cuda.is_available() else 0}


class Gate(Actor):
    """An async actor: endpoints that wait on events other endpoints set, and a journal of
    the order in which their bodies start and end."""

    def __init__(self) -> None:
        self.events: dict[str, asyncio.Event] = {}
        self.journal: list[tuple] = []

    def _event(self, key: str) -> asyncio.Event:
        return self.events.setdefault(key, asyncio.Event())

    @endpoint
    async def wait(self, key: str, patience_s: float) -> bool:
        """True if ``key`` was released within ``patience_s`` seconds."""
        self.journal.append(("start", key))
        try:
            await asyncio.wait_for(self._event(key).wait(), patience_s)
            released = True
        except asyncio.TimeoutError:
            released = False
        self.journal.append(("end", key, released))
        return released

    @endpoint
    async def release(self, key: str) -> str:
        self.journal.append(("release", key))
        self._event(key).set()
        return key

    @concurrent_endpoint
    async def cwait(self, key: str, patience_s: float) -> bool:
        self.journal.append(("cstart", key))
        try:
            await asyncio.wait_for(self._event(key).wait(), patience_s)
            released = True
        except asyncio.TimeoutError:
            released = False
        self.journal.append(("cend", key, released))
        return released

    @concurrent_endpoint
    async def crelease(self, key: str) -> str:
        self.journal.append(("crelease", key))
        self._event(key).set()
        return key

    @endpoint
    async def sleep_then(self, seconds: float, value: int) -> int:
        await asyncio.sleep(seconds)
        return value

    @endpoint
    async def rank_after(self, seconds_by_rank: list[float]) -> int:
        """Reply with this actor's rank after a delay that depends on the rank."""
        rank = current_rank().rank
        await asyncio.sleep(seconds_by_rank[rank])
        return rank

    @endpoint
    async def start_background(self, key: str, seconds: float) -> bool:
        """Start a task that sets ``key`` after ``seconds``; reply before it ran."""

        async def later() -> None:
            await asyncio.sleep(seconds)
            self._event(key).set()

        self.background = asyncio.get_running_loop().create_task(later())
        return self._event(key).is_set()

    @endpoint
    async def is_set(self, key: str) -> bool:
        return self._event(key).is_set()

    @concurrent_endpoint
    async def craise(self, message: str) -> None:
        await asyncio.sleep(0)
        raise ValueError(message)

    @concurrent_endpoint(explicit_response_port=True)
    async def craise_by_port(self, port: Port, message: str) -> None:
        await asyncio.sleep(0)
        port.exception(KeyError(message))

    @endpoint
    async def take_journal(self) -> list[tuple]:
        out, self.journal = self.journal, []
        return out

    @endpoint
    async def ask_blocking(self, other, value) -> tuple:
        """Block on another actor's reply with get() inside this actor's running event loop;
        return the reply and the warnings raised."""
        import warnings

        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            got = other.echo.call_one(value).get()
        return got, [str(w.message) for w in seen]

    @endpoint
    async def ask(self, other, value):
        """Await another actor mesh's reply inside an async endpoint."""
        return await other.echo.call_one(value)


class Caller(Actor):
    """Calls other actor meshes it is given (as arguments or at construction)."""

    def __init__(self, target=None) -> None:
        self.target = target

    @endpoint
    def pid(self) -> int:
        return os.getpid()

    @endpoint
    def ranks_of(self, mesh) -> list[int]:
        return list(mesh.rank.call().get().values())

    @endpoint
    def sum_ranks_of_target(self) -> int:
        return sum(self.target.rank.call().get().values())

    @endpoint
    def bump_target(self) -> list[int]:
        """Broadcast a bump, then read the counts: same sender, so the read sees the bump."""
        self.target.bump.broadcast()
        return list(self.target.count_now.call().get().values())

    @endpoint
    def bump_controller(self, name: str) -> tuple[int, int]:
        """Look up (or spawn) the controller ``name`` from inside this actor and bump it;
        return the count and the pid the controller runs in."""
        from monarch.actor import get_or_spawn_controller

        controller = get_or_spawn_controller(name, Probe).get()
        return controller.bump.call_one().get(), controller.pid.call_one().get()

    @endpoint
    def failure_of(self, mesh, message: str) -> str:
        """Call an endpoint that raises; return how the failure reached this actor."""
        from monarch.actor import ActorError

        try:
            mesh.fail.call_one(message).get()
        except ActorError as exc:
            return f"{type(exc.exception).__name__}: {exc.exception}"
        return "no error"

    @endpoint
    def spawn_on(self, procs) -> list[int]:
        """Spawn Probes on a proc mesh this actor was given; return their pids."""
        return list(procs.spawn("spawned_by_actor", Probe).pid.call().get().values())

    @endpoint
    def spawn_child_pids(self) -> tuple[int, list[int]]:
        """Spawn a child actor on this actor's own proc; return (own pid, child pids)."""
        from monarch.actor import this_proc

        self.spawned_child = this_proc().spawn("child", Probe)
        return os.getpid(), list(self.spawned_child.pid.call().get().values())

    @endpoint
    def child_mesh(self):
        return self.spawned_child


class Keeper(Actor):
    """Runs ``__cleanup__`` at stop: it reports through a port it was given."""

    def __init__(self, port: Port) -> None:
        self.port = port

    @endpoint
    def pid(self) -> int:
        return os.getpid()

    @endpoint
    def hold(self, seconds: float) -> str:
        """Report the start, block for ``seconds``, report the end (through the port)."""
        import time

        self.port.send(("started", os.getpid()))
        time.sleep(seconds)
        self.port.send(("finished", os.getpid()))
        return "held"

    def __cleanup__(self, exc) -> None:
        self.port.send(("cleanup", os.getpid(), repr(exc)))


class SlowStart(Actor):
    def __init__(self, seconds: float) -> None:
        import time

        time.sleep(seconds)
        self.state = "constructed"

    @endpoint
    def state_now(self) -> str:
        return self.state


class AsyncKeeper(Actor):
    """An async actor: its ``__cleanup__`` is awaited on the actor's event loop at stop."""

    def __init__(self, port: Port) -> None:
        self.port = port

    @endpoint
    async def pid(self) -> int:
        return os.getpid()

    async def __cleanup__(self, exc) -> None:
        await asyncio.sleep(0)
        self.port.send(("async cleanup", os.getpid(), repr(exc)))


class Cancellable(Actor):
    """An async actor reporting, through a port, when its bodies start, are cancelled, and
    when ``__cleanup__`` runs."""

    def __init__(self, port: Port) -> None:
        self.port = port

    async def _wait(self, kind: str, seconds: float) -> str:
        try:
            self.port.send((f"{kind} started",))
            await asyncio.sleep(seconds)
            return "waited"
        except asyncio.CancelledError:
            self.port.send((f"{kind} cancelled",))
            raise

    @endpoint
    async def wait(self, seconds: float) -> str:
        return await self._wait("plain", seconds)

    @concurrent_endpoint
    async def cwait(self, seconds: float) -> str:
        return await self._wait("concurrent", seconds)

    @endpoint
    async def fail(self, message: str) -> None:
        await asyncio.sleep(0)
        raise KeyError(message)

    @endpoint
    async def ok(self) -> str:
        return "ok"

    async def __cleanup__(self, exc) -> None:
        self.port.send(("cleanup",))


class CleanupRefuses(Actor):
    @endpoint
    def pid(self) -> int:
        return os.getpid()

    def __cleanup__(self, exc) -> None:
        raise RuntimeError("cleanup refused on purpose")


class Asker(Actor):
    """Calls the mesh it is given from its constructor."""

    def __init__(self, target) -> None:
        self.ranks_at_init = list(target.rank.call().get().values())

    @endpoint
    def seen_at_init(self) -> list[int]:
        return self.ranks_at_init


class Boom(Actor):
    def __init__(self, message: str) -> None:
        raise RuntimeError(message)

    @endpoint
    def rank(self) -> int:
        return current_rank().rank


class Mixed(Actor):
    @endpoint
    def sync_one(self) -> int:
        return 0

    @endpoint
    async def async_one(self) -> int:
        return 0


class Collides(Actor):
    @endpoint
    def slice(self) -> int:  # ActorMesh.slice is a mesh method: an endpoint may not shadow it
        return 0


class NeedsTwo(Actor):
    def __init__(self, a: int, b: int) -> None:
        self.total = a + b

    @endpoint
    def total_now(self) -> int:
        return self.total


class Relay(Actor):
    """Sends ordered sequences to a Probe mesh from inside a proc (a second sender)."""

    def __init__(self, target) -> None:
        self.target = target

    @endpoint
    def send_seq(self, sender: str, n: int) -> int:
        for i in range(n):
            self.target.record.broadcast(sender, i)
        # Same sender, so this call is handled after every record above on every actor.
        self.target.count_now.call().get()
        return n


def add_one(value: int) -> int:
    """A function of the client's, shipped by value."""
    return value + 1


def failing_bootstrap() -> None:
    raise RuntimeError("bootstrap refused on purpose")


def visibility_bootstrap(var: str):
    """A bootstrap that exposes one device per proc (rank r sees device r) through ``var``."""

    def boot() -> None:
        os.environ[var] = str(current_rank().rank)

    return boot
